"""The one exception type for bad user input (the CLI turns it into one line and exit code 2), and
how its messages quote the input."""


class InputError(ValueError):
    """Raised for malformed deals, bad seeds and unknown rule values."""


def shown(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters: bad input quoted in a one-line message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"
