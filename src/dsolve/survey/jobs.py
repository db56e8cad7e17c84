"""What a survey computes, for any game: a job makes one row per seed and setting.

A survey is a job run over a seed range under one or more settings (Klondike rule sets, Crapette
seat pairings, ...): chunk by chunk, each chunk's rows made by a worker. The store, the executors
and the run and retry logic (:mod:`.store`, :mod:`.executors`, :mod:`.run`) know nothing else of
the game; a game offers a :class:`Job` and names it in :data:`JOBS`.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pyarrow as pa

from ..errors import InputError
from .options import Limits


@dataclass(frozen=True)
class Task:
    """One chunk for a worker: seeds ``first`` up to ``stop`` (exclusive) under each setting, or
    for a retry only the (seed, setting) ``rows``; small to pickle."""

    job: str
    convention: str
    first: int
    stop: int
    settings: tuple[str, ...]
    limits: Limits
    rows: tuple[tuple[int, str], ...] = ()
    params: tuple[tuple[str, Any], ...] = ()  # the job's own options (see Job)

    def pairs(self) -> Sequence[tuple[int, str]]:
        """The (seed, setting) pairs to make a row of: ``rows``, else every seed under every
        setting, seed-major."""
        return self.rows or [(seed, s) for seed in range(self.first, self.stop) for s in self.settings]


class Tally(Protocol):
    """Running counts a progress display shows while a survey runs."""

    def add(self, table: pa.Table) -> None: ...
    def __str__(self) -> str: ...


@dataclass(frozen=True)
class Job:
    """A kind of survey.

    ``key``: the column that, with ``seed``, names a row (one row per seed and setting), and
    ``setting_name`` what its settings are, for messages; ``convention``: how its seeds number
    deals unless told otherwise; ``schema``: a chunk's columns, ``seed``
    first; ``work``: a chunk's rows (run in a worker: a module-level function); ``check``: refuse a
    convention, a seed range or settings (InputError) before anything runs; ``tally``: the counts
    a progress display shows, over the settings; ``valid``: ValueError if a chunk's rows hold a
    value the job never writes; ``done``: what was done to a seed, for :meth:`Manifest.describe`;
    ``legacy``: the columns of chunks of format 1, if the job had any; ``former``: the columns
    of chunks written before a column changed, and ``upgrade`` their rows in today's columns;
    ``retries``: whether unknown
    rows may be made again under larger limits; ``limited``: whether its work takes per-solve
    :class:`Limits` (a job without, such as Crapette rounds, refuses them and records none);
    ``unit``: what its seeds number, for messages (a race survey's are pairs of seeds), and
    ``doing`` what a worker does to one, for the progress display."""

    name: str
    key: str
    setting_name: str
    convention: str
    schema: pa.Schema
    work: Callable[[Task], pa.Table]
    check: Callable[[str, range, Sequence[str]], None]
    tally: Callable[[Sequence[str]], Tally]
    valid: Callable[[pa.Table], None] = lambda table: None
    done: str = "solved"
    legacy: pa.Schema | None = None
    former: pa.Schema | None = None
    upgrade: Callable[[pa.Table], pa.Table] = lambda table: table
    retries: bool = False
    limited: bool = True
    unit: str = "seed"
    doing: str = "solving"


# Each job lives with its game; named here so that reading a survey loads no game it does not need.
JOBS = {
    "solve": ("dsolve.klondike.rows", "SOLVE"),  # Klondike: verdict, solution length, effort
    "grade": ("dsolve.players.grade", "GRADE"),  # Klondike for race tables: a solve and the players' grade
    "crapette": ("dsolve.crapette.rows", "CRAPETTE"),  # Crapette rounds: a row per seed and seat pairing
    "race": ("dsolve.races.rows", "RACE"),  # double solitaire: a row per pair of seeds and race setting
}


def job_of(name: str) -> Job:
    """The job called ``name``; InputError if there is none."""
    if name not in JOBS:
        raise InputError(f"unknown survey job {name!r} (jobs: {', '.join(JOBS)})")
    module, attribute = JOBS[name]
    return getattr(importlib.import_module(module), attribute)


def work(task: Task) -> pa.Table:
    """Make a chunk's rows (what a worker runs)."""
    return job_of(task.job).work(task)
