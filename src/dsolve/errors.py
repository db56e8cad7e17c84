"""The one exception type for bad user input; the CLI turns it into one line and exit code 2."""


class InputError(ValueError):
    """Raised for malformed deals, bad seeds and unknown rule values."""
