"""The exceptions the CLI turns into one line (bad user input: exit code 2; a solver bug), and how
their messages quote the input."""


class InputError(ValueError):
    """Raised for malformed deals, bad seeds and unknown rule values."""


class SolverBug(RuntimeError):
    """The native core reported a line the referee rejects: a bug, reported with the deal."""


def shown(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters: bad input quoted in a one-line message."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"
