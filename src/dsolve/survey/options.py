"""What a survey run is told: the seed range, the limits of each solve, how often to log progress."""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

from ..errors import InputError
from ..limits import checked_limit
from .progress import DEFAULT_LOG_EVERY

DEFAULT_TIMEOUT = 60.0  # seconds per solve of a survey, unless told otherwise
LOG_EVERY_ENV = "DSOLVE_PROGRESS_EVERY"  # seconds between progress lines when stderr is not a terminal


@dataclass(frozen=True)
class Limits:
    """Per-solve budgets (``None``: no limit); each given one positive and finite."""

    max_nodes: int | None = None
    timeout: float | None = None
    memory_mb: int | None = None

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            checked_limit(name, value, integer=name == "max_nodes")

    def __str__(self) -> str:
        return ", ".join(f"{k}={'none' if v is None else v}" for k, v in dataclasses.asdict(self).items())


DEFAULT_LIMITS = Limits(timeout=DEFAULT_TIMEOUT)


def _seconds(name: str, text: str) -> float:
    """``text`` as a positive, finite number of seconds, else :class:`InputError` naming ``name``."""
    try:
        value: object = float(text)
    except ValueError:
        value = text
    return checked_limit(name, value)  # type: ignore[arg-type, return-value]


def parse_timeout(text: str, name: str = "timeout") -> float | None:
    """A time limit per solve as typed: positive, finite seconds, or ``none`` (``None``: no limit)."""
    if text.strip().lower() == "none":
        return None
    return _seconds(name, text)


def log_every() -> float:
    """Seconds between a run's progress lines in a log: ``$DSOLVE_PROGRESS_EVERY``, default 30."""
    text = os.environ.get(LOG_EVERY_ENV)
    return DEFAULT_LOG_EVERY if text is None else _seconds(LOG_EVERY_ENV, text)


def parse_seeds(text: str) -> range:
    """``"1-1000000"`` (inclusive) or a single seed ``"42"``."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m or (m[2] is not None and int(m[2]) < int(m[1])):
        raise InputError(f"bad seed range {text!r} (expected FIRST-LAST, e.g. 1-1000000, or one seed)")
    first = int(m[1])
    return range(first, (int(m[2]) if m[2] is not None else first) + 1)


