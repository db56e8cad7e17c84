"""The exceptions the CLI turns into one line: bad user input (exit code 2) and a solver bug."""


class InputError(ValueError):
    """Raised for malformed deals, bad seeds and unknown rule values."""


class SolverBug(RuntimeError):
    """The native core reported a line the referee rejects: a bug, reported with the deal."""
