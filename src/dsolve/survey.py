"""Winnability surveys: solve a seed range under several rule sets, chunk by chunk, into Parquet.

A survey directory holds ``manifest.json`` (rule sets, deal convention, limits, chunk size,
dsolve version, seed ranges asked for) and one ``chunk-<first seed>.parquet`` per finished chunk,
with a row per seed and rule set. Workers (local processes or Dask tasks) solve whole chunks and
return them; the parent writes each under a temporary name and renames it into place, so a chunk
is complete or absent. The chunk files present are what is done: a rerun solves only the rest.
Each chunk's footer also records its seeds, when the run that wrote it started, when it was
written and with how many workers, so the wall time of a survey resumed many times is known.
A retry (:func:`retry_unknown`) solves the unknown rows again with larger limits and rewrites
their chunks the same way; the manifest lists the limits of each retry.
"""
from __future__ import annotations

import ast
import dataclasses
import fcntl
import json
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from tqdm import tqdm

from . import __version__, deals
from .errors import InputError
from .result import UNKNOWN, WINNABLE
from .rules import Rules
from .stats import WinRange

MANIFEST = "manifest.json"
LOCK = ".lock"
FORMAT = 1
DEFAULT_CHUNK_SOLVES = 200  # solves (seeds x rule sets) per chunk of a new survey: seconds to a minute
SCHEDULER_TIMEOUT = 10.0  # seconds to reach a Dask scheduler
_CHUNK_RE = re.compile(r"^chunk-(\d+)\.parquet$")
_META_FIRST, _META_STOP = b"dsolve.first", b"dsolve.stop"
_META_RUN, _META_WRITTEN, _META_WORKERS = b"dsolve.run_started", b"dsolve.written", b"dsolve.workers"
_META_EARLIER = b"dsolve.earlier_writes"  # (run started, written) of the writes a retry replaced

SCHEMA = pa.schema([
    ("seed", pa.int64()),
    ("rules", pa.dictionary(pa.int32(), pa.string())),
    ("verdict", pa.dictionary(pa.int32(), pa.string())),
    ("length", pa.int32()),  # moves of the solution; null unless winnable
    ("nodes", pa.int64()),
    ("seconds", pa.float64()),
])


@dataclass(frozen=True)
class Limits:
    """Per-solve budgets (``None``: no limit)."""

    max_nodes: int | None = None
    timeout: float | None = None
    memory_mb: int | None = None

    def __str__(self) -> str:
        return ", ".join(f"{k}={'none' if v is None else v}" for k, v in dataclasses.asdict(self).items())


@dataclass(frozen=True)
class Task:
    """One chunk for a worker: seeds ``first`` up to ``stop`` (exclusive) under each rule set, or
    for a retry only the (seed, rule set) ``rows``; small to pickle."""

    convention: str
    first: int
    stop: int
    rules: tuple[str, ...]
    limits: Limits
    rows: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Manifest:
    """What a survey directory is a survey of."""

    rules: tuple[str, ...]
    convention: str
    limits: Limits
    chunk_size: int
    seeds: tuple[tuple[int, int], ...]  # seed ranges asked for, inclusive, merged
    retries: tuple[Limits, ...] = ()  # limits of each retry of the unknown rows, in order
    dsolve_version: str = __version__
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2) + "\n"

    def describe(self, rows: int) -> str:
        """One line about the survey, which has ``rows`` rows so far."""
        asked = ", ".join(f"{a}-{b}" for a, b in self.seeds)
        total = sum(b - a + 1 for a, b in self.seeds)
        retried = "".join(f"; unknowns retried with {limits}" for limits in self.retries)
        return (f"{self.convention} deals: {rows // len(self.rules)} of {total} seeds ({asked}) solved; "
                f"limits {self.limits}{retried}; dsolve {self.dsolve_version}")

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        data = json.loads(text)
        return cls(
            rules=tuple(data["rules"]), convention=data["convention"], limits=Limits(**data["limits"]),
            chunk_size=int(data["chunk_size"]), seeds=tuple(tuple(r) for r in data["seeds"]),
            retries=tuple(Limits(**limits) for limits in data.get("retries", ())),
            dsolve_version=data["dsolve_version"], format=int(data["format"]),
        )


@dataclass(frozen=True)
class Chunk:
    """A finished chunk file: its seeds, and (``None`` if an older dsolve wrote it) when the
    run that wrote it started, when it was written (Unix times) and the run's worker count."""

    seeds: range
    run_started: float | None = None
    written: float | None = None
    workers: int | None = None
    earlier: tuple[tuple[float, float], ...] = ()  # (run started, written) of writes it replaced


@dataclass(frozen=True)
class RunTime:
    """The runs that wrote a survey's chunks: each run's wall time is from its start to its last
    chunk (work in flight when a run was stopped is redone, and counted, by a later run). A chunk
    rewritten by a retry still ends its first run where it did; its seeds count in the last."""

    runs: int
    seconds: float  # wall time, summed over the runs
    seeds: int  # seeds in the chunks of these runs
    untimed_seeds: int  # seeds in chunks written without times

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> "RunTime":
        last: dict[float, float] = {}
        seeds = untimed = 0
        for c in chunks:
            if c.run_started is None or c.written is None:
                untimed += len(c.seeds)
                continue
            for start, written in (*c.earlier, (c.run_started, c.written)):
                last[start] = max(last.get(start, written), written)
            seeds += len(c.seeds)
        return cls(len(last), sum(end - start for start, end in last.items()), seeds, untimed)

    def __str__(self) -> str:
        if not self.runs:
            return "wall time not recorded"
        rate = f", {self.seeds / self.seconds:.4g} seeds/s" if self.seconds > 0 else ""
        text = (f"wall time {self.seconds / 3600:.2f} h in {self.runs} run{'s' * (self.runs > 1)} "
                f"(each from its start to its last chunk){rate}")
        return text + (f"; not recorded for {self.untimed_seeds} seeds" if self.untimed_seeds else "")


@dataclass(frozen=True)
class RetryRun:
    """What a retry did: unknown rows solved again, how many are still unknown, chunks rewritten."""

    out: Path
    rows: int
    still_unknown: int
    chunks_written: int


@dataclass(frozen=True)
class SurveyRun:
    """What a run did: seeds of the asked range, how many were already done, chunks written."""

    out: Path
    seeds: int
    seeds_done_before: int
    chunks_written: int


def parse_seeds(text: str) -> range:
    """``"1-1000000"`` (inclusive) or a single seed ``"42"``."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m or (m[2] is not None and int(m[2]) < int(m[1])):
        raise InputError(f"bad seed range {text!r} (expected FIRST-LAST, e.g. 1-1000000, or one seed)")
    first = int(m[1])
    return range(first, (int(m[2]) if m[2] is not None else first) + 1)


# -- workers -------------------------------------------------------------------------------------

def solve_chunk(task: Task) -> pa.Table:
    """Solve a chunk's rows (every seed under every rule set, seed-major, unless ``task.rows``)."""
    from . import api  # the native solver: loaded by workers, not by readers of surveys

    rows = task.rows or [(seed, text) for seed in range(task.first, task.stop) for text in task.rules]
    rules = {text: Rules.parse(text) for text in task.rules}
    columns: dict[str, list] = {name: [] for name in SCHEMA.names}
    deal, deal_seed = None, None
    for seed, text in rows:
        if seed != deal_seed:
            deal, deal_seed = deals.make_deal(task.convention, seed), seed
        result = api.solve(deal, rules[text], max_nodes=task.limits.max_nodes,
                           timeout=task.limits.timeout, memory_mb=task.limits.memory_mb)
        columns["seed"].append(seed)
        columns["rules"].append(text)
        columns["verdict"].append(result.verdict)
        columns["length"].append(len(result.moves) if result.verdict == WINNABLE else None)
        columns["nodes"].append(result.nodes)
        columns["seconds"].append(result.seconds)
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def _init_worker(parent: int) -> None:
    """Local workers leave Ctrl-C to the parent, die when it terminates them, and die with it
    (Linux) rather than linger."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # forked with the parent's handler, which would not die
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


@contextmanager
def _local_pool(jobs: int | None) -> Iterator[tuple[Executor, int]]:
    workers = jobs or os.cpu_count() or 1
    # fork: quick to start, and workers share the parent's imports.
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                               initargs=(os.getpid(),))
    try:
        yield pool, workers
    except BaseException:
        for process in list(pool._processes.values()):  # no public way before Python 3.14
            process.terminate()  # the chunks in flight are lost, by design
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _dask_pool(address: str) -> Iterator[tuple[Executor, int]]:
    from distributed import Client

    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    executor = client.get_executor(pure=False)
    try:
        yield executor, max(1, sum(client.nthreads().values()))
    except BaseException:
        executor.shutdown(wait=False)  # cancels what is queued or running
        raise
    finally:
        client.close()


# -- the survey directory ------------------------------------------------------------------------

def chunk_path(out: Path, first: int) -> Path:
    return out / f"chunk-{first:09d}.parquet"


@contextmanager
def _atomic(path: Path) -> Iterator[BinaryIO]:
    """A file written under a temporary name beside ``path``, synced, then renamed to ``path``:
    complete or absent."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        with open(temp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        temp.unlink(missing_ok=True)


def write_chunk(out: Path, seeds: range, table: pa.Table, run_started: float, workers: int,
                earlier: tuple[tuple[float, float], ...] = ()) -> Path:
    """Write the rows of ``seeds`` as one chunk file, atomically, stamped with the start of the run
    writing it, the time now, the run's worker count and the ``earlier`` writes it replaces."""
    path = chunk_path(out, seeds.start)
    meta = {_META_FIRST: seeds.start, _META_STOP: seeds.stop, _META_RUN: run_started,
            _META_WRITTEN: time.time(), _META_WORKERS: workers, _META_EARLIER: earlier}
    with _atomic(path) as f:
        pq.write_table(table.replace_schema_metadata({k: repr(v).encode() for k, v in meta.items()}), f)
    return path


def chunk_files(out: Path) -> list[Path]:
    return sorted(p for p in Path(out).iterdir() if _CHUNK_RE.match(p.name))


def finished(out: Path) -> list[Chunk]:
    """The chunk files present, from their Parquet footers."""
    chunks = []
    for path in chunk_files(out):
        meta = pq.read_schema(path).metadata or {}
        if _META_FIRST not in meta or int(meta[_META_FIRST]) != int(_CHUNK_RE.match(path.name)[1]):
            raise InputError(f"{path} is not a dsolve survey chunk")
        chunks.append(Chunk(
            range(int(meta[_META_FIRST]), int(meta[_META_STOP])),
            *(float(meta[key]) if key in meta else None for key in (_META_RUN, _META_WRITTEN)),
            int(meta[_META_WORKERS]) if _META_WORKERS in meta else None,
            tuple(tuple(map(float, w)) for w in ast.literal_eval(meta.get(_META_EARLIER, b"()").decode())),
        ))
    return chunks


def plan(seeds: range, done: Sequence[range], chunk_size: int) -> list[range]:
    """Chunks covering the seeds not ``done``, cut at multiples of ``chunk_size`` so that chunks
    of runs over different ranges line up."""
    chunks, start = [], seeds.start
    for block in sorted([*done, range(seeds.stop, seeds.stop)], key=lambda r: r.start):
        end = min(block.start, seeds.stop)
        while start < end:
            cut = min(end, (start // chunk_size + 1) * chunk_size)
            chunks.append(range(start, cut))
            start = cut
        start = max(start, block.stop)
    return chunks


def read_manifest(out: Path) -> Manifest:
    path = Path(out) / MANIFEST
    try:
        manifest = Manifest.from_json(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{out} is not a survey directory (no {MANIFEST})") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    if manifest.format != FORMAT:
        raise InputError(f"{path} is in survey format {manifest.format}; this dsolve reads format {FORMAT}")
    return manifest


def _write_manifest(out: Path, manifest: Manifest) -> None:
    with _atomic(out / MANIFEST) as f:
        f.write(manifest.to_json().encode())


def _rows(out: Path, seeds: range | None = None, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of the chunks in ``out`` (those of ``seeds`` only, if given)."""
    files = [str(p) for p in chunk_files(out)]
    if not files:
        return SCHEMA.empty_table().select(columns or SCHEMA.names)
    seed = ds.field("seed")
    where = None if seeds is None else (seed >= seeds.start) & (seed < seeds.stop)
    dataset = ds.dataset(files, schema=SCHEMA, format="parquet")
    return dataset.to_table(columns=columns, filter=where).unify_dictionaries()


def load(out: Path) -> tuple[Manifest, pa.Table]:
    """A survey's manifest and all its rows."""
    return read_manifest(out), _rows(out)


def _merge(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return tuple((a, b) for a, b in merged)


def _reconcile(out: Path, wanted: Manifest) -> Manifest:
    """The manifest to write: ``wanted``, or the one in ``out`` extended by the asked seeds.
    Refuses (InputError) a directory surveyed with other rules, convention, limits or version."""
    if not (out / MANIFEST).exists():
        if any(p.name != LOCK for p in out.iterdir()):
            raise InputError(f"{out} is not empty and is not a survey directory (no {MANIFEST})")
        return wanted
    have = read_manifest(out)
    for what, theirs, ours in (
        ("deal convention", have.convention, wanted.convention),
        ("rule sets", "; ".join(sorted(have.rules)), "; ".join(sorted(wanted.rules))),
        ("limits", str(have.limits), str(wanted.limits)),
        ("dsolve version", have.dsolve_version, wanted.dsolve_version),
    ):
        if theirs != ours:
            raise InputError(f"{out} holds a survey with {what} {theirs}, not {ours}: "
                             "surveys are not mixed, use another directory")
    return dataclasses.replace(have, seeds=_merge([*have.seeds, *wanted.seeds]))


@contextmanager
def _claim(out: Path) -> Iterator[None]:
    """Create ``out`` if needed and hold its lock for the run; clear temporary files of killed runs."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = open(out / LOCK, "a")
    except OSError as e:
        raise InputError(f"cannot write to {out}: {e.strerror or e}") from None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"{out} is in use by another survey run") from None
        for temp in out.glob(".*.tmp"):
            temp.unlink()
        yield


# -- running -------------------------------------------------------------------------------------

class _Bar(tqdm):
    monitor_interval = 0  # no monitor thread: local workers are forked


class _Tally:
    """Running counts per rule set, shown on the progress bar."""

    def __init__(self, rules: Sequence[str]):
        self.counts = {r: [0, 0, 0] for r in rules}  # n, won, unknown

    def add(self, table: pa.Table) -> None:
        for rules, verdict in zip(table["rules"].to_pylist(), table["verdict"].to_pylist()):
            c = self.counts[rules]
            c[0] += 1
            c[1] += verdict == WINNABLE
            c[2] += verdict == UNKNOWN

    def __str__(self) -> str:
        ranges = [WinRange(n, won, unknown) for n, won, unknown in self.counts.values()]
        return f"unknown {sum(r.unknown for r in ranges)}, winnable " + " | ".join(map(str, ranges))


def _drive(executor: Executor, window: int, tasks: Iterator[Task],
           on_result: Callable[[Task, pa.Table], None]) -> None:
    """Keep up to ``window`` chunks in flight; hand each finished one to ``on_result``."""
    pending: dict = {}
    while True:
        for task in tasks:
            pending[executor.submit(solve_chunk, task)] = task
            if len(pending) >= window:
                break
        if not pending:
            return
        finished_now, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished_now:
            on_result(pending.pop(future), future.result())


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
    rules: Sequence[Rules],
    convention: str = "solvitaire",
    limits: Limits = Limits(),
    jobs: int | None = None,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool = False,
) -> SurveyRun:
    """Survey ``seeds`` under each rule set into ``out``, skipping chunks already there.

    Local worker processes (``jobs``, default all cores) or the Dask scheduler at ``scheduler``.
    ``chunk_size`` (default: :data:`DEFAULT_CHUNK_SOLVES` solves' worth) applies to a new
    directory; an existing one keeps its own. ``progress``: a progress bar on stderr when it is a
    terminal. Ctrl-C or SIGTERM raise KeyboardInterrupt after stopping the workers; every chunk
    written so far stays.
    """
    started, out = time.time(), Path(out)
    if len(seeds) == 0:
        raise InputError("no seeds to survey")
    if not rules:
        raise InputError("no rule sets to survey")
    if chunk_size is not None and chunk_size < 1:
        raise InputError(f"chunk size must be positive, got {chunk_size}")
    if seeds[-1] >= 2**63:
        raise InputError(f"seeds must be below 2**63 to be stored, got {seeds[-1]}")
    for seed in (seeds[0], seeds[-1]):
        deals.make_deal(convention, seed)  # unknown convention or seed out of its range: fail now
    texts = tuple(dict.fromkeys(str(r) for r in rules))
    chunk_size = chunk_size or max(1, DEFAULT_CHUNK_SOLVES // len(texts))
    wanted = Manifest(texts, convention, limits, chunk_size, ((seeds[0], seeds[-1]),))
    with _claim(out):
        manifest = _reconcile(out, wanted)
        todo = plan(seeds, [c.seeds for c in finished(out)], manifest.chunk_size)
        tally = _Tally(manifest.rules)
        tally.add(_rows(out, seeds, ["rules", "verdict"]))  # the bar counts the whole range asked
        with (_dask_pool(scheduler) if scheduler else _local_pool(jobs)) as (executor, workers):
            _write_manifest(out, manifest)
            remaining = sum(len(c) for c in todo)
            tasks = (Task(convention, c.start, c.stop, manifest.rules, limits) for c in todo)
            with _Bar(total=len(seeds), initial=len(seeds) - remaining, unit="seed", dynamic_ncols=True,
                      disable=None if progress else True) as bar, _sigterm_as_interrupt():

                def on_result(task: Task, table: pa.Table) -> None:
                    write_chunk(out, range(task.first, task.stop), table, started, workers)
                    tally.add(table)
                    bar.set_postfix_str(str(tally), refresh=False)
                    bar.update(task.stop - task.first)

                _drive(executor, 2 * workers, tasks, on_result)
    return SurveyRun(out, len(seeds), len(seeds) - remaining, len(todo))


def _replace_rows(old: pa.Table, new: pa.Table) -> pa.Table:
    """``old`` with the rows of ``new`` in place of those of the same (seed, rule set); nodes and
    seconds add up over the tries."""
    redone = {(seed, rules): i for i, (seed, rules) in enumerate(zip(new["seed"].to_pylist(),
                                                                      new["rules"].to_pylist()))}
    columns = {name: old[name].to_pylist() for name in SCHEMA.names}
    fresh = {name: new[name].to_pylist() for name in SCHEMA.names}
    for i, key in enumerate(zip(columns["seed"], columns["rules"])):
        j = redone.get(key)
        if j is None:
            continue
        for name in ("verdict", "length"):
            columns[name][i] = fresh[name][j]
        for name in ("nodes", "seconds"):
            columns[name][i] += fresh[name][j]
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def retry_unknown(
    out: str | os.PathLike,
    limits: Limits,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> RetryRun:
    """Solve every unknown row of the survey in ``out`` again under ``limits`` (meant to be larger
    than the survey's), rewriting each chunk that has one atomically, stamped with this run so
    that its wall time counts. A row's nodes and seconds add up over its tries. The manifest
    records the retry's limits; Ctrl-C or SIGTERM stop it as they stop :func:`run_survey`, and
    a rerun retries the rows still unknown.
    """
    started, out = time.time(), Path(out)
    with _claim(out):
        manifest = read_manifest(out)
        if manifest.dsolve_version != __version__:
            raise InputError(f"{out} holds a survey with dsolve version {manifest.dsolve_version}, not "
                             f"{__version__}: surveys are not mixed")
        todo, before = [], {chunk.seeds.start: chunk for chunk in finished(out)}
        for chunk in before.values():
            table = pq.read_table(chunk_path(out, chunk.seeds.start), columns=["seed", "rules", "verdict"])
            rows = tuple((seed, rules) for seed, rules, verdict in zip(
                *(table[name].to_pylist() for name in ("seed", "rules", "verdict"))) if verdict == UNKNOWN)
            if rows:
                todo.append(Task(manifest.convention, chunk.seeds.start, chunk.seeds.stop, manifest.rules,
                                 limits, rows))
        total = sum(len(task.rows) for task in todo)
        if not todo:
            return RetryRun(out, 0, 0, 0)
        if manifest.retries[-1:] != (limits,):
            manifest = dataclasses.replace(manifest, retries=(*manifest.retries, limits))
        still_unknown = 0
        with (_dask_pool(scheduler) if scheduler else _local_pool(jobs)) as (executor, workers):
            _write_manifest(out, manifest)
            with _Bar(total=total, unit="solve", dynamic_ncols=True,
                      disable=None if progress else True) as bar, _sigterm_as_interrupt():

                def on_result(retry: Task, table: pa.Table) -> None:
                    nonlocal still_unknown
                    seeds = range(retry.first, retry.stop)
                    old = pq.read_table(chunk_path(out, retry.first), schema=SCHEMA)
                    chunk = before[retry.first]
                    earlier = chunk.earlier
                    if chunk.run_started is not None and chunk.written is not None:
                        earlier += ((chunk.run_started, chunk.written),)
                    write_chunk(out, seeds, _replace_rows(old, table), started, workers, earlier)
                    still_unknown += table["verdict"].to_pylist().count(UNKNOWN)
                    bar.update(len(retry.rows))

                _drive(executor, 2 * workers, iter(todo), on_result)
    return RetryRun(out, total, still_unknown, len(todo))
