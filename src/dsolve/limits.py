"""A solve's budgets: one rule for their values, and the default table memory sized from the machine."""
from __future__ import annotations

import functools
import math
import numbers
import operator
import os
import time
from pathlib import Path

from .errors import InputError

MEMORY_SHARE = 0.5
"""The share of the memory available now that the tables of all the solves running at once may use."""
MIN_MEMORY_MB, MAX_MEMORY_MB = 256, 8192
"""The default table memory per solve lies in this range (8 GB hold about 450 million positions)."""


def available_memory_mb() -> float | None:
    """The memory available for new work now, in MB: ``MemAvailable`` of ``/proc/meminfo``, else
    the free pages ``sysconf`` counts; ``None`` when neither can be read. Read at most once a
    second (a survey asks at every solve)."""
    return _available_memory_mb(int(time.monotonic()))


@functools.lru_cache(maxsize=1)
def _available_memory_mb(second: int) -> float | None:
    """:func:`available_memory_mb` as read in this ``second`` (the cache's key)."""
    try:
        with Path("/proc/meminfo").open() as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return None


def default_memory_mb(workers: int = 1) -> int:
    """The table memory a solve gets unless told: :data:`MEMORY_SHARE` of the memory available
    now, split among ``workers`` solving at once, within :data:`MIN_MEMORY_MB`..
    :data:`MAX_MEMORY_MB` (the least when the available memory cannot be read)."""
    workers = checked_limit("workers", workers, integer=True)
    available = available_memory_mb()
    if available is None:
        return MIN_MEMORY_MB
    return int(min(MAX_MEMORY_MB, max(MIN_MEMORY_MB, available * MEMORY_SHARE / workers)))


def checked_limit(name: str, value: float | None, integer: bool = False) -> float | None:
    """``value`` if it is ``None`` or a positive finite number (a whole one with ``integer``),
    else :class:`InputError`."""
    if value is None:
        return None
    try:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError
        number = operator.index(value) if integer else float(value)
    except TypeError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        kind = "a positive whole number" if integer else "a positive finite number"
        raise InputError(f"{name} must be {kind}, got {value!r}")
    return number
