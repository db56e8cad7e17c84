"""Winnability surveys: solve a seed range under several rule sets, chunk by chunk, into Parquet.

A survey directory holds ``_manifest.json`` (rule sets, deal convention, limits, chunk size,
dsolve version, seed ranges asked for) and one ``chunk-<first seed>.parquet`` per finished chunk,
with a row per seed and rule set; data tools read the directory as a Parquet dataset (Arrow skips
names that start with ``_`` or ``.``). Workers (local processes or Dask tasks) solve whole chunks
and return them; the parent writes each under a temporary name and renames it into place, so a
chunk is complete or absent. The chunk files present are what is done: a rerun solves only the
rest. Each chunk's footer (JSON under the key ``dsolve``) records its seeds, when the run that
wrote it started, when it was written and with how many workers, so the wall time of a survey
resumed many times is known; its pages carry checksums.
Every reader checks every chunk (footer, columns, checksums, one row per seed and rule set): a
damaged chunk is an :class:`InputError` naming it, and a resumed run moves it to ``_damaged/`` and
solves its seeds again.
A retry (:func:`retry_unknown`) solves the unknown rows again with larger limits and rewrites
their chunks the same way; the manifest lists the limits of each retry.
Directories of format 1 (``manifest.json``, footers of Python literals, no ``limit`` column) are
read as they are and upgraded by the next run that writes to them.
"""
from __future__ import annotations

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
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import __version__, deals
from .cards import full_shape
from .deal import Deal
from .errors import InputError
from .limits import checked_limit
from .progress import DEFAULT_LOG_EVERY, Progress, Tally
from .result import UNKNOWN, VERDICTS, WINNABLE
from .rules import Rules

MANIFEST = "_manifest.json"
LEGACY_MANIFEST = "manifest.json"  # format 1
LOCK = ".lock"
DAMAGED = "_damaged"  # where a run moves damaged chunks, out of the dataset's way
FORMAT = 2
READABLE_FORMATS = (1, 2)
DEFAULT_CHUNK_SOLVES = 200  # solves (seeds x rule sets) per chunk of a new survey: seconds to a minute
DEFAULT_TIMEOUT = 60.0  # seconds per solve of a survey, unless told otherwise
SCHEDULER_TIMEOUT = 10.0  # seconds to reach a Dask scheduler
TICK = 1.0  # seconds between looks at the workers while waiting for chunks
LOG_EVERY_ENV = "DSOLVE_PROGRESS_EVERY"  # seconds between progress lines when stderr is not a terminal
_CHUNK_RE = re.compile(r"^chunk-(\d+)\.parquet$")
_META = b"dsolve"
_LEGACY_FIRST, _LEGACY_STOP = b"dsolve.first", b"dsolve.stop"  # format 1: one key each, Python literals
_LEGACY_RUN, _LEGACY_WRITTEN, _LEGACY_WORKERS = b"dsolve.run_started", b"dsolve.written", b"dsolve.workers"
_LEGACY_EARLIER = b"dsolve.earlier_writes"

SCHEMA = pa.schema([
    ("seed", pa.int64()),
    ("rules", pa.dictionary(pa.int32(), pa.string())),
    ("verdict", pa.dictionary(pa.int32(), pa.string())),
    ("length", pa.int32()),  # moves of the solution; null unless winnable
    ("nodes", pa.int64()),
    ("seconds", pa.float64()),
    ("limit", pa.string()),  # the budget that ran out (Result.limit); null unless unknown
])
LEGACY_SCHEMA = SCHEMA.remove(SCHEMA.get_field_index("limit"))  # chunks of format 1


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


def schema_of(grading: Sequence[tuple[str, int]]) -> pa.Schema:
    """The columns of a survey's chunks: :data:`SCHEMA`, and for a grading survey (``grading``:
    the settings of :func:`dsolve.players.grade.grading_options`) the grade's columns after them."""
    if not grading:
        return SCHEMA
    from .players.grade import GRADE_COLUMNS

    return pa.schema([*SCHEMA, *GRADE_COLUMNS])


@dataclass(frozen=True)
class Task:
    """One chunk for a worker: seeds ``first`` up to ``stop`` (exclusive) under each rule set, or
    for a retry only the (seed, rule set) ``rows``; with ``grading``, each deal is graded (see
    :func:`schema_of`); small to pickle."""

    convention: str
    first: int
    stop: int
    rules: tuple[str, ...]
    limits: Limits
    rows: tuple[tuple[int, str], ...] = ()
    grading: tuple[tuple[str, int], ...] = ()


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
    grading: tuple[tuple[str, int], ...] = ()  # a grading survey's settings (see schema_of)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["grading"] = dict(self.grading) or None
        return json.dumps(data, indent=2) + "\n"

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
        manifest = cls(
            rules=tuple(data["rules"]), convention=data["convention"], limits=Limits(**data["limits"]),
            chunk_size=int(data["chunk_size"]), seeds=tuple((int(a), int(b)) for a, b in data["seeds"]),
            retries=tuple(Limits(**limits) for limits in data.get("retries", ())),
            dsolve_version=data["dsolve_version"], format=int(data["format"]),
            grading=tuple(sorted((str(k), int(v)) for k, v in (data.get("grading") or {}).items())),
        )
        if not (manifest.rules and all(isinstance(r, str) for r in manifest.rules)
                and isinstance(manifest.convention, str) and isinstance(manifest.dsolve_version, str)
                and manifest.chunk_size > 0 and all(0 <= a <= b for a, b in manifest.seeds)):
            raise ValueError("a field has the wrong type or value")
        return manifest


@dataclass(frozen=True)
class Chunk:
    """A finished chunk file: its seeds, and (``None`` if an older dsolve wrote it) when the
    run that wrote it started, when it was written (Unix times) and the run's worker count."""

    seeds: range
    run_started: float | None = None
    written: float | None = None
    workers: int | None = None
    earlier: tuple[tuple[float, float], ...] = ()  # (run started, written) of writes it replaced

    def footer(self) -> dict[bytes, bytes]:
        """The chunk as Parquet key-value metadata: JSON under the key ``dsolve``."""
        return {_META: json.dumps({
            "first": self.seeds.start, "stop": self.seeds.stop, "run_started": self.run_started,
            "written": self.written, "workers": self.workers, "earlier": [list(w) for w in self.earlier],
        }).encode()}

    @classmethod
    def from_footer(cls, meta: dict[bytes, bytes]) -> tuple["Chunk", bool]:
        """The chunk a Parquet footer describes, and whether it is of format 1; ValueError if none."""
        if _META in meta:
            data = json.loads(meta[_META])
            chunk = cls(range(int(data["first"]), int(data["stop"])), _number(data["run_started"]),
                        _number(data["written"]), None if data["workers"] is None else int(data["workers"]),
                        tuple((float(a), float(b)) for a, b in data["earlier"]))
            return chunk, False
        if _LEGACY_FIRST in meta and _LEGACY_STOP in meta:
            return cls(range(int(meta[_LEGACY_FIRST]), int(meta[_LEGACY_STOP])),
                       *(float(meta[key]) if key in meta else None for key in (_LEGACY_RUN, _LEGACY_WRITTEN)),
                       int(meta[_LEGACY_WORKERS]) if _LEGACY_WORKERS in meta else None,
                       _legacy_pairs(meta.get(_LEGACY_EARLIER, b"()").decode())), True
        raise ValueError("no dsolve footer")


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


_PAIR = r"\(\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\)"


def _legacy_pairs(text: str) -> tuple[tuple[float, float], ...]:
    """Float pairs written by format 1 as the ``repr`` of a tuple, e.g. ``((1.0, 2.0),)``."""
    if not re.fullmatch(rf"\(\s*(?:{_PAIR}\s*,\s*)*(?:{_PAIR}\s*)?\)", text):
        raise ValueError(f"bad earlier writes {text!r}")
    return tuple((float(a), float(b)) for a, b in re.findall(_PAIR, text))


class DamagedChunk(InputError):
    """A chunk file that cannot be read back whole as the rows its name promises."""

    def __init__(self, path: Path, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"damaged survey chunk {path}: {reason}")


@dataclass(frozen=True)
class Survey:
    """A survey directory as read and checked: its manifest, its chunks and all their rows."""

    manifest: Manifest
    chunks: tuple[Chunk, ...]
    rows: pa.Table


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
    """What a run did: seeds of the asked range, how many were already done, chunks written, and
    the damaged chunks it moved to ``_damaged/`` (where each went) and solved again."""

    out: Path
    seeds: int
    seeds_done_before: int
    chunks_written: int
    set_aside: tuple[DamagedChunk, ...] = ()


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


# -- workers -------------------------------------------------------------------------------------

class _RunningSeeds:
    """The seed each local worker is solving and since when (Unix time): shared memory that each
    worker writes in its own slot and the parent reads."""

    IDLE = -1

    def __init__(self, workers: int, context: Any):
        self.seeds = context.RawArray("q", [self.IDLE] * workers)
        self.since = context.RawArray("d", workers)
        self.claimed = context.Value("i", 0)

    def claim(self) -> int:
        """A slot of its own for the calling worker."""
        with self.claimed.get_lock():
            slot = self.claimed.value
            self.claimed.value += 1
        return slot % len(self.seeds)

    def mark(self, slot: int, seed: int) -> None:
        self.since[slot] = time.time()
        self.seeds[slot] = seed

    def snapshot(self) -> list[tuple[int, float]]:
        """(seed, seconds so far) of each solve running now."""
        now = time.time()
        return [(seed, now - since) for seed, since in zip(self.seeds[:], self.since[:]) if seed != self.IDLE]


_WORKER_SLOT: tuple[_RunningSeeds, int] | None = None  # in a local worker: where it says what it solves


def _mark_running(seed: int) -> None:
    if _WORKER_SLOT is not None:
        _WORKER_SLOT[0].mark(_WORKER_SLOT[1], seed)


def solve_chunk(task: Task) -> pa.Table:
    """Solve a chunk's rows (every seed under every rule set, seed-major, unless ``task.rows``)."""
    from . import api  # the native solver: loaded by workers, not by readers of surveys

    rows = task.rows or [(seed, text) for seed in range(task.first, task.stop) for text in task.rules]
    rules = {text: Rules.parse(text) for text in task.rules}
    # Without a memory limit the local workers share the default; a Dask worker takes it whole.
    workers = len(_WORKER_SLOT[0].seeds) if _WORKER_SLOT is not None else 1
    memory_mb = task.limits.memory_mb or api.default_memory_mb(workers)
    schema = schema_of(task.grading)
    columns: dict[str, list] = {name: [] for name in schema.names}
    seed_deals: dict[int, Deal] = {}     # the seed's deal by decks (rule sets may differ)
    deal_seed = None
    for seed, text in rows:
        if seed != deal_seed:
            seed_deals, deal_seed = {}, seed
        decks = rules[text].decks
        if decks not in seed_deals:
            seed_deals[decks] = deals.make_deal(task.convention, seed, full_shape(decks))
        deal = seed_deals[decks]
        _mark_running(seed)
        limits = {"max_nodes": task.limits.max_nodes, "timeout": task.limits.timeout, "memory_mb": memory_mb}
        if task.grading:
            from .players.grade import grade_for_survey

            graded = grade_for_survey(deal, rules[text], dict(task.grading), **limits)
            for name in schema.names[len(SCHEMA):]:
                columns[name].append(getattr(graded, name))
            verdict, length, nodes, seconds, limit = (graded.verdict, graded.moves, graded.nodes,
                                                      graded.seconds, graded.limit)
        else:
            result = api.solve(deal, rules[text], **limits)
            verdict, length, nodes, seconds, limit = (result.verdict, len(result.moves), result.nodes,
                                                      result.seconds, result.limit)
        columns["seed"].append(seed)
        columns["rules"].append(text)
        columns["verdict"].append(verdict)
        columns["length"].append(length if verdict == WINNABLE else None)
        columns["nodes"].append(nodes)
        columns["seconds"].append(seconds)
        columns["limit"].append(limit if verdict == UNKNOWN else None)
    _mark_running(_RunningSeeds.IDLE)
    return pa.Table.from_pydict(columns, schema=schema)


def _init_worker(parent: int, running: _RunningSeeds) -> None:
    """Local workers leave Ctrl-C to the parent, die when it terminates them, and die with it
    (Linux) rather than linger; each takes a slot to say which seed it solves."""
    global _WORKER_SLOT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # forked with the parent's handler, which would not die
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)
    _WORKER_SLOT = running, running.claim()


@dataclass(frozen=True)
class _Pool:
    """Where chunks are solved: an executor, its worker count, and for local workers which seed
    each is solving (Dask tasks say nothing until they end)."""

    executor: Executor
    workers: int
    running: _RunningSeeds | None = None


@contextmanager
def _local_pool(jobs: int | None) -> Iterator[_Pool]:
    workers = jobs or os.cpu_count() or 1
    # fork: quick to start, and workers share the parent's imports.
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    running = _RunningSeeds(workers, context)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                               initargs=(os.getpid(), running))
    try:
        yield _Pool(pool, workers, running)
    except BaseException:
        for process in list(pool._processes.values()):  # no public way before Python 3.14
            process.terminate()  # the chunks in flight are lost, by design
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _dask_pool(address: str) -> Iterator[_Pool]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("a Dask scheduler needs Dask: pip install 'dsolve[dask]'") from None

    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    executor = client.get_executor(pure=False)
    try:
        yield _Pool(executor, max(1, sum(client.nthreads().values())))
    except BaseException:
        executor.shutdown(wait=False)  # cancels what is queued or running
        raise
    finally:
        client.close()


def _pool(jobs: int | None, scheduler: str | None) -> Any:
    return _dask_pool(scheduler) if scheduler else _local_pool(jobs)


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


def _write_chunk_file(out: Path, chunk: Chunk, table: pa.Table) -> Path:
    path = chunk_path(out, chunk.seeds.start)
    with _atomic(path) as f:
        pq.write_table(table.replace_schema_metadata(chunk.footer()), f, write_page_checksum=True)
    return path


def write_chunk(out: Path, seeds: range, table: pa.Table, run_started: float, workers: int,
                earlier: tuple[tuple[float, float], ...] = ()) -> Path:
    """Write the rows of ``seeds`` as one chunk file, atomically, stamped with the start of the run
    writing it, the time now, the run's worker count and the ``earlier`` writes it replaces."""
    return _write_chunk_file(out, Chunk(seeds, run_started, time.time(), workers, earlier), table)


def chunk_files(out: Path) -> list[Path]:
    return sorted(p for p in Path(out).iterdir() if _CHUNK_RE.match(p.name))


def read_chunk(path: Path, rules: Sequence[str], columns: pa.Schema = SCHEMA) -> tuple[Chunk, pa.Table, bool]:
    """A chunk file checked whole: its footer, its columns, its pages' checksums, and one row per
    seed of its range and rule set of ``rules`` (``columns``: the survey's). Returns the chunk, its rows (with a null ``limit``
    column if it is of format 1) and whether it is of format 1; :class:`DamagedChunk` otherwise."""
    try:
        parquet = pq.ParquetFile(path, page_checksum_verification=True)
        schema = parquet.schema_arrow
        chunk, legacy = Chunk.from_footer(schema.metadata or {})
        if chunk.seeds.start != int(_CHUNK_RE.match(path.name)[1]) or not chunk.seeds:
            raise ValueError(f"its footer gives seeds {chunk.seeds.start}-{chunk.seeds.stop - 1}")
        expected = LEGACY_SCHEMA if legacy else columns
        if not schema.remove_metadata().equals(expected):
            raise ValueError(f"its columns ({', '.join(f'{f.name}: {f.type}' for f in schema)}) are not a "
                             "survey chunk's")
        table = parquet.read().replace_schema_metadata(None)
        _check_rows(table, chunk.seeds, rules)
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError) as e:
        raise DamagedChunk(path, (str(e).strip().splitlines() or [type(e).__name__])[0]) from None
    if legacy:
        table = table.append_column(SCHEMA.field("limit"), pa.nulls(table.num_rows, pa.string()))
    return chunk, table, legacy


def _check_rows(table: pa.Table, seeds: range, rules: Sequence[str]) -> None:
    """ValueError unless ``table`` has one row per seed of ``seeds`` and rule set of ``rules``, and
    only known verdicts."""
    expected = len(seeds) * len(rules)
    rule = pc.index_in(table["rules"].cast(pa.string()), value_set=pa.array(rules, pa.string()))
    key = pc.add(pc.multiply(pc.subtract(table["seed"], seeds.start), len(rules)), rule)
    verdict = pc.index_in(table["verdict"].cast(pa.string()), value_set=pa.array(VERDICTS))
    bounds = pc.min_max(key).as_py()
    if (table.num_rows != expected or rule.null_count or verdict.null_count
            or bounds["min"] < 0 or bounds["max"] >= expected or pc.count_distinct(key).as_py() != expected):
        raise ValueError(f"its {table.num_rows} rows are not one per seed {seeds.start}-{seeds.stop - 1} "
                         f"and rule set of the survey's {len(rules)}")


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


def _manifest_path(out: Path) -> Path | None:
    """The manifest of ``out``: ``_manifest.json``, or ``manifest.json`` in a format-1 directory."""
    return next((path for path in (out / MANIFEST, out / LEGACY_MANIFEST) if path.exists()), None)


def read_manifest(out: Path) -> Manifest:
    """The manifest of the survey in ``out``; InputError if there is none or it is damaged."""
    path = _manifest_path(Path(out))
    if path is None:
        raise InputError(f"{out} is not a survey directory (no {MANIFEST})")
    try:
        manifest = Manifest.from_json(path.read_text())
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(f"damaged survey manifest {path}: {e}") from None
    if manifest.format not in READABLE_FORMATS:
        raise InputError(f"{path} is in survey format {manifest.format}; this dsolve reads formats "
                         f"{', '.join(map(str, READABLE_FORMATS))}")
    return manifest


def _write_manifest(out: Path, manifest: Manifest) -> None:
    """Write ``_manifest.json`` (of this format) atomically; a format-1 ``manifest.json`` goes."""
    with _atomic(out / MANIFEST) as f:
        f.write(dataclasses.replace(manifest, format=FORMAT).to_json().encode())
    (out / LEGACY_MANIFEST).unlink(missing_ok=True)


def _rows_of(tables: Sequence[pa.Table], schema: pa.Schema = SCHEMA) -> pa.Table:
    return pa.concat_tables(tables).unify_dictionaries() if tables else schema.empty_table()


def open_survey(out: str | os.PathLike) -> Survey:
    """Read the survey in ``out``, checking every chunk (:func:`read_chunk`); InputError naming
    the first damaged chunk, or the manifest if it is damaged."""
    out = Path(out)
    manifest = read_manifest(out)
    chunks, tables = [], []
    for path in chunk_files(out):
        chunk, table, _ = read_chunk(path, manifest.rules, schema_of(manifest.grading))
        chunks.append(chunk)
        tables.append(table)
    return Survey(manifest, tuple(chunks), _rows_of(tables, schema_of(manifest.grading)))


def load(out: str | os.PathLike) -> tuple[Manifest, pa.Table]:
    """A survey's manifest and all its rows."""
    survey = open_survey(out)
    return survey.manifest, survey.rows


def _set_aside(out: Path, damage: DamagedChunk) -> DamagedChunk:
    """Move a damaged chunk into ``_damaged/`` (under a free name); the damage, with its new path."""
    folder = out / DAMAGED
    folder.mkdir(exist_ok=True)
    target, n = folder / damage.path.name, 1
    while target.exists():
        n += 1
        target = folder / f"{damage.path.stem}-{n}{damage.path.suffix}"
    damage.path.rename(target)
    return DamagedChunk(target, damage.reason)


def _sound_chunks(out: Path, manifest: Manifest, set_aside: bool) -> tuple[list[tuple[Chunk, pa.Table]],
                                                                           list[DamagedChunk]]:
    """For a run holding the lock: every chunk of ``out`` checked, those of format 1 rewritten in
    this format (same rows, a null ``limit`` column, a JSON footer). A damaged chunk is moved to
    ``_damaged/`` if ``set_aside`` (and listed), else raised."""
    sound, damaged = [], []
    for path in chunk_files(out):
        try:
            chunk, table, legacy = read_chunk(path, manifest.rules, schema_of(manifest.grading))
        except DamagedChunk as damage:
            if not set_aside:
                raise
            damaged.append(_set_aside(out, damage))
            continue
        if legacy:
            _write_chunk_file(out, chunk, table)
        sound.append((chunk, table))
    return sound, damaged


def _merge(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return tuple((a, b) for a, b in merged)


def _reconcile(out: Path, wanted: Manifest, limits_given: bool) -> Manifest:
    """The manifest to write: ``wanted``, or the one in ``out`` extended by the asked seeds (with
    its own limits unless ``limits_given``). Refuses (InputError) a directory surveyed with other
    rules, convention, limits or version."""
    if _manifest_path(out) is None:
        if any(p.name != LOCK for p in out.iterdir()):
            raise InputError(f"{out} is not empty and is not a survey directory (no {MANIFEST})")
        return wanted
    have = read_manifest(out)
    for what, theirs, ours in (
        ("deal convention", have.convention, wanted.convention),
        ("rule sets", "; ".join(sorted(have.rules)), "; ".join(sorted(wanted.rules))),
        ("limits", str(have.limits), str(wanted.limits if limits_given else have.limits)),
        ("grading", str(dict(have.grading)), str(dict(wanted.grading))),
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

def _drive(executor: Executor, window: int, tasks: Iterator[Task],
           on_result: Callable[[Task, pa.Table], None],
           on_tick: Callable[[list[tuple[Task, float]]], None]) -> None:
    """Keep up to ``window`` chunks in flight; hand each finished one to ``on_result``, and at
    least every :data:`TICK` seconds the chunks in flight with their seconds since submitted to
    ``on_tick``."""
    pending: dict[Future, tuple[Task, float]] = {}
    while True:
        for task in tasks:
            pending[executor.submit(solve_chunk, task)] = task, time.monotonic()
            if len(pending) >= window:
                break
        if not pending:
            return
        finished_now, _ = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
        for future in finished_now:
            on_result(pending.pop(future)[0], future.result())
        now = time.monotonic()
        on_tick([(task, now - submitted) for task, submitted in pending.values()])


def _running_now(pool: _Pool, in_flight: list[tuple[Task, float]]) -> tuple[str, list[tuple[str, float]]]:
    """What is being solved, for the progress display: the seed each local worker is on, or the
    chunks a Dask cluster holds (queued or running: it does not say which)."""
    if pool.running is not None:
        return "solving", [(f"seed {seed}", seconds) for seed, seconds in pool.running.snapshot()]
    return "in flight", [(f"chunk {task.first}-{task.stop - 1}", seconds) for task, seconds in in_flight]


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
    convention: str = deals.DEFAULT_CONVENTION,
    limits: Limits | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    progress: bool = False,
    grading: dict[str, int] | None = None,
) -> SurveyRun:
    """Survey ``seeds`` under each rule set into ``out``, skipping chunks already there.

    ``limits``: per solve; ``None`` takes those of the survey in ``out``, or :data:`DEFAULT_LIMITS`
    (:data:`DEFAULT_TIMEOUT` seconds, nothing else) for a new one. Local worker processes
    (``jobs``, default all cores) or the Dask scheduler at ``scheduler``. ``chunk_size`` (default:
    :data:`DEFAULT_CHUNK_SOLVES` solves' worth) applies to a new directory; an existing one keeps
    its own. ``grading`` (see :func:`schema_of`) grades each deal too. Damaged chunks are moved to ``_damaged/`` and their seeds solved again; a format-1
    directory is upgraded. ``progress``: on stderr, a progress bar if it is a terminal, else a line
    every :func:`log_every` seconds. Ctrl-C or SIGTERM raise KeyboardInterrupt
    after stopping the workers; every chunk written so far stays.
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
    wanted = Manifest(texts, convention, limits or DEFAULT_LIMITS, chunk_size, ((seeds[0], seeds[-1]),),
                      grading=tuple(sorted((grading or {}).items())))
    with _claim(out):
        manifest = _reconcile(out, wanted, limits is not None)
        sound, damaged = _sound_chunks(out, manifest, set_aside=True)
        todo = plan(seeds, [chunk.seeds for chunk, _ in sound], manifest.chunk_size)
        tally = Tally(manifest.rules)
        for chunk, table in sound:  # the progress counts the whole range asked
            if chunk.seeds.start < seeds.stop and seeds.start < chunk.seeds.stop:
                tally.add(table.filter((pc.field("seed") >= seeds.start) & (pc.field("seed") < seeds.stop)))
        with _pool(jobs, scheduler) as pool:
            _write_manifest(out, manifest)
            remaining = sum(len(c) for c in todo)
            tasks = (Task(convention, c.start, c.stop, manifest.rules, manifest.limits,
                          grading=manifest.grading) for c in todo)
            with Progress("survey", len(seeds), len(seeds) - remaining, "seed", progress,
                          lambda: str(tally), every=log_every()) as shown, \
                    _sigterm_as_interrupt():

                def on_result(task: Task, table: pa.Table) -> None:
                    write_chunk(out, range(task.first, task.stop), table, started, pool.workers)
                    tally.add(table)
                    shown.update(task.stop - task.first)

                _drive(pool.executor, 2 * pool.workers, tasks, on_result,
                       lambda in_flight: shown.tick(*_running_now(pool, in_flight)))
    return SurveyRun(out, len(seeds), len(seeds) - remaining, len(todo), tuple(damaged))


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
        for name in ("verdict", "length", "limit"):
            columns[name][i] = fresh[name][j]
        for name in ("nodes", "seconds"):
            columns[name][i] += fresh[name][j]
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def retry_unknown(
    out: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> RetryRun:
    """Solve every unknown row of the survey in ``out`` again under ``limits`` (meant to be larger
    than the survey's), rewriting each chunk that has one atomically, stamped with this run so
    that its wall time counts. A row's nodes and seconds add up over its tries. The manifest
    records the retry's limits; Ctrl-C or SIGTERM stop it as they stop :func:`run_survey`, and
    a rerun retries the rows still unknown. A damaged chunk stops it (InputError): resume the
    survey first, which solves that chunk's seeds again.
    """
    started, out = time.time(), Path(out)
    with _claim(out):
        manifest = read_manifest(out)
        if manifest.grading:
            raise InputError(f"{out} holds a grading survey: its unknown rows are not retried")
        if manifest.dsolve_version != __version__:
            raise InputError(f"{out} holds a survey with dsolve version {manifest.dsolve_version}, not "
                             f"{__version__}: surveys are not mixed")
        try:
            sound, _ = _sound_chunks(out, manifest, set_aside=False)
        except DamagedChunk as damage:
            raise InputError(f"{damage}; run the survey again ('dsolve survey --seeds ... --out {out}', "
                             "which moves it aside and solves its seeds again) before retrying") from None
        todo, before = [], {}
        for chunk, table in sound:
            before[chunk.seeds.start] = chunk, table
            rows = tuple((seed, rules) for seed, rules, verdict in zip(
                *(table[name].to_pylist() for name in ("seed", "rules", "verdict"))) if verdict == UNKNOWN)
            if rows:
                todo.append(Task(manifest.convention, chunk.seeds.start, chunk.seeds.stop, manifest.rules,
                                 limits, rows))
        total = sum(len(task.rows) for task in todo)
        if manifest.format != FORMAT:
            _write_manifest(out, manifest)
        if not todo:
            return RetryRun(out, 0, 0, 0)
        if manifest.retries[-1:] != (limits,):
            manifest = dataclasses.replace(manifest, retries=(*manifest.retries, limits))
        still_unknown = 0
        with _pool(jobs, scheduler) as pool:
            _write_manifest(out, manifest)
            with Progress("retry", total, 0, "solve", progress, lambda: f"still unknown {still_unknown}",
                          every=log_every()) as shown, _sigterm_as_interrupt():

                def on_result(retry: Task, table: pa.Table) -> None:
                    nonlocal still_unknown
                    chunk, old = before[retry.first]
                    earlier = chunk.earlier
                    if chunk.run_started is not None and chunk.written is not None:
                        earlier += ((chunk.run_started, chunk.written),)
                    write_chunk(out, chunk.seeds, _replace_rows(old, table), started, pool.workers, earlier)
                    still_unknown += table["verdict"].to_pylist().count(UNKNOWN)
                    shown.update(len(retry.rows))

                _drive(pool.executor, 2 * pool.workers, iter(todo), on_result,
                       lambda in_flight: shown.tick(*_running_now(pool, in_flight)))
    return RetryRun(out, total, still_unknown, len(todo))
