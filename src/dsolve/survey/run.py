"""Running a survey: plan the chunks not done, work them on the executors, write each as it
comes, show progress; resume after any stop; retry the unknown rows under larger limits."""
from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__
from ..errors import InputError
from .executors import drive, open_pool, running_now
from .jobs import Task, job_of
from .options import DEFAULT_LIMITS, Limits, log_every
from .progress import Progress
from .store import (FORMAT, DamagedChunk, Manifest, claim, plan, read_manifest, reconcile, sound_chunks,
                    write_chunk, write_manifest)

DEFAULT_CHUNK_ROWS = 200  # rows (seeds x settings) per chunk of a new survey: seconds to a minute of solves
UNKNOWN = "unknown"  # the verdict of a row a retry makes again


@dataclass(frozen=True)
class RetryRun:
    """What a retry did: unknown rows made again, how many are still unknown, chunks rewritten."""

    out: Path
    rows: int
    still_unknown: int
    chunks_written: int


@dataclass(frozen=True)
class SurveyRun:
    """What a run did: seeds of the asked range, how many were already done, chunks written, and
    the damaged chunks it moved to ``_damaged/`` (where each went) and made again."""

    out: Path
    seeds: int
    seeds_done_before: int
    chunks_written: int
    set_aside: tuple[DamagedChunk, ...] = ()



@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Let SIGTERM stop a run the way Ctrl-C does (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

def run_survey(
    out: str | os.PathLike,
    seeds: range,
    settings: Sequence[Any],
    convention: str | None = None,
    limits: Limits | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool = False,
    job: str = "solve",
    params: dict[str, Any] | None = None,
) -> SurveyRun:
    """Survey ``seeds`` under each setting (its ``str``: for the default job, a Klondike rule set)
    into ``out``, skipping chunks already there; ``job`` names what is made of each (:data:`JOBS
    <dsolve.survey.jobs.JOBS>`: ``solve``, ``grade``, ...), ``params`` its own options.

    ``convention``: how seeds number deals (default: the job's). ``limits``: per solve; ``None``
    takes those of the survey in ``out``, or :data:`DEFAULT_LIMITS` (:data:`DEFAULT_TIMEOUT`
    seconds, nothing else) for a new one; none for a job that is not ``limited``. Local worker
    processes (``jobs``, default all cores) or the Dask scheduler at ``scheduler``. ``chunk_size`` (default: :data:`DEFAULT_CHUNK_ROWS` rows'
    worth) applies to a new directory; an existing one keeps its own. Damaged chunks are moved to
    ``_damaged/`` and their seeds made again; a format-1 directory is upgraded. ``progress``: on
    stderr, a progress bar if it is a terminal, else a line every :func:`log_every` seconds.
    Ctrl-C or SIGTERM raise KeyboardInterrupt after stopping the workers; every chunk written so
    far stays.
    """
    started, out, kind = time.time(), Path(out), job_of(job)
    if len(seeds) == 0:
        raise InputError("no seeds to survey")
    if not settings:
        raise InputError(f"no {kind.setting_name} to survey")
    if chunk_size is not None and chunk_size < 1:
        raise InputError(f"chunk size must be positive, got {chunk_size}")
    if seeds[-1] >= 2**63:
        raise InputError(f"seeds must be below 2**63 to be stored, got {seeds[-1]}")
    if limits is not None and not kind.limited:
        raise InputError(f"a {job} survey takes no limits")
    convention = convention or kind.convention
    texts = tuple(dict.fromkeys(str(s) for s in settings))
    kind.check(convention, seeds, texts)  # e.g. an unknown convention or a seed out of its range: fail now
    chunk_size = chunk_size or max(1, DEFAULT_CHUNK_ROWS // len(texts))
    limits_wanted = limits or (DEFAULT_LIMITS if kind.limited else Limits())
    wanted = Manifest(texts, convention, limits_wanted, chunk_size, ((seeds[0], seeds[-1]),),
                      job=job, params=tuple(sorted((params or {}).items())))
    with claim(out):
        manifest = reconcile(out, wanted, limits is not None)
        sound, damaged = sound_chunks(out, manifest, set_aside=True)
        todo = plan(seeds, [chunk.seeds for chunk, _ in sound], manifest.chunk_size)
        tally = kind.tally(manifest.settings)
        for chunk, table in sound:  # the progress counts the whole range asked
            if chunk.seeds.start < seeds.stop and seeds.start < chunk.seeds.stop:
                tally.add(table.filter((pc.field("seed") >= seeds.start) & (pc.field("seed") < seeds.stop)))
        with open_pool(jobs, scheduler) as pool:
            write_manifest(out, manifest)
            remaining = sum(len(c) for c in todo)
            tasks = (Task(job, convention, c.start, c.stop, manifest.settings, manifest.limits,
                          params=manifest.params) for c in todo)
            with Progress("survey", len(seeds), len(seeds) - remaining, kind.unit, progress,
                          lambda: str(tally), every=log_every()) as shown, \
                    _sigterm_as_interrupt():

                def on_result(task: Task, table: pa.Table) -> None:
                    write_chunk(out, range(task.first, task.stop), table, started, pool.workers)
                    tally.add(table)
                    shown.update(task.stop - task.first)

                drive(pool.executor, 2 * pool.workers, tasks, on_result,
                      lambda in_flight: shown.tick(*running_now(pool, in_flight, kind.doing, kind.unit)))
    return SurveyRun(out, len(seeds), len(seeds) - remaining, len(todo), tuple(damaged))


def _replace_rows(old: pa.Table, new: pa.Table, key: str) -> pa.Table:
    """``old`` with the rows of ``new`` in place of those of the same (seed, ``key``); ``nodes``
    and ``seconds`` add up over the tries."""
    redone = {pair: i for i, pair in enumerate(zip(new["seed"].to_pylist(), new[key].to_pylist()))}
    columns = {name: old[name].to_pylist() for name in old.column_names}
    fresh = {name: new[name].to_pylist() for name in new.column_names}
    for i, pair in enumerate(zip(columns["seed"], columns[key])):
        j = redone.get(pair)
        if j is None:
            continue
        for name in columns:
            added = name in ("nodes", "seconds")  # effort adds up over the tries; the rest is the new try's
            columns[name][i] = columns[name][i] + fresh[name][j] if added else fresh[name][j]
    return pa.Table.from_pydict(columns, schema=old.schema)


def retry_unknown(
    out: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> RetryRun:
    """Make every unknown row (``verdict`` unknown) of the survey in ``out`` again under ``limits`` (meant to be larger
    than the survey's), rewriting each chunk that has one atomically, stamped with this run so
    that its wall time counts. A row's nodes and seconds add up over its tries. The manifest
    records the retry's limits; Ctrl-C or SIGTERM stop it as they stop :func:`run_survey`, and
    a rerun retries the rows still unknown. A damaged chunk stops it (InputError): resume the
    survey first, which solves that chunk's seeds again. Only jobs that retry (solves, grades) are retried.
    """
    started, out = time.time(), Path(out)
    with claim(out):
        manifest = read_manifest(out)
        kind = manifest.kind
        if not kind.retries:
            raise InputError(f"{out} holds a {kind.name} survey: its unknown rows are not retried")
        if manifest.dsolve_version != __version__:
            raise InputError(f"{out} holds a survey with dsolve version {manifest.dsolve_version}, not "
                             f"{__version__}: surveys are not mixed")
        try:
            sound, _ = sound_chunks(out, manifest, set_aside=False)
        except DamagedChunk as damage:
            raise InputError(f"{damage}; run the survey again ('dsolve survey --seeds ... --out {out}', "
                             "which moves it aside and solves its seeds again) before retrying") from None
        todo, before = [], {}
        for chunk, table in sound:
            before[chunk.seeds.start] = chunk, table
            rows = tuple((seed, setting) for seed, setting, verdict in zip(
                *(table[name].to_pylist() for name in ("seed", kind.key, "verdict"))) if verdict == UNKNOWN)
            if rows:
                todo.append(Task(manifest.job, manifest.convention, chunk.seeds.start, chunk.seeds.stop,
                                 manifest.settings, limits, rows, manifest.params))
        total = sum(len(task.rows) for task in todo)
        if manifest.format != FORMAT:
            write_manifest(out, manifest)
        if not todo:
            return RetryRun(out, 0, 0, 0)
        if manifest.retries[-1:] != (limits,):
            manifest = dataclasses.replace(manifest, retries=(*manifest.retries, limits))
        still_unknown = 0
        with open_pool(jobs, scheduler) as pool:
            write_manifest(out, manifest)
            with Progress("retry", total, 0, "solve", progress, lambda: f"still unknown {still_unknown}",
                          every=log_every()) as shown, _sigterm_as_interrupt():

                def on_result(retry: Task, table: pa.Table) -> None:
                    nonlocal still_unknown
                    chunk, old = before[retry.first]
                    earlier = chunk.earlier
                    if chunk.run_started is not None and chunk.written is not None:
                        earlier += ((chunk.run_started, chunk.written),)
                    write_chunk(out, chunk.seeds, _replace_rows(old, table, kind.key), started, pool.workers, earlier)
                    still_unknown += table["verdict"].to_pylist().count(UNKNOWN)
                    shown.update(len(retry.rows))

                drive(pool.executor, 2 * pool.workers, iter(todo), on_result,
                      lambda in_flight: shown.tick(*running_now(pool, in_flight)))
    return RetryRun(out, total, still_unknown, len(todo))