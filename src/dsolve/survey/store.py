"""A survey directory: the manifest, the chunk files, and reading them back checked.

A survey directory holds ``_manifest.json`` (the job, its settings, the deal convention, limits,
chunk size, dsolve version, seed ranges asked for) and one ``chunk-<first seed>.parquet`` per
finished chunk, with a row per seed and setting (see :mod:`.jobs`); data tools read the directory
as a Parquet dataset (Arrow skips names that start with ``_`` or ``.``). Each chunk is written
under a temporary name and renamed into place, so it is complete or absent: the chunk files
present are what is done. Each chunk's footer (JSON under the key ``dsolve``) records its seeds,
when the run that wrote it started, when it was written and with how many workers, so the wall
time of a survey resumed many times is known; its pages carry checksums. Every reader checks
every chunk (footer, columns, checksums, one row per seed and setting): a damaged chunk is a
:class:`DamagedChunk` naming it, which a resumed run moves to ``_damaged/``.
Directories of format 1 (``manifest.json``, footers of Python literals, no ``limit`` column; solves
only) are read as they are and upgraded by the next run that writes to them.
"""
from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .. import __version__
from ..errors import InputError
from .jobs import Job, job_of
from .options import Limits

MANIFEST = "_manifest.json"
LEGACY_MANIFEST = "manifest.json"  # format 1
LOCK = ".lock"
DAMAGED = "_damaged"  # where a run moves damaged chunks, out of the dataset's way
FORMAT = 2
READABLE_FORMATS = (1, 2)
_CHUNK_RE = re.compile(r"^chunk-(\d+)\.parquet$")
_META = b"dsolve"
_LEGACY_FIRST, _LEGACY_STOP = b"dsolve.first", b"dsolve.stop"  # format 1: one key each, Python literals
_LEGACY_RUN, _LEGACY_WRITTEN, _LEGACY_WORKERS = b"dsolve.run_started", b"dsolve.written", b"dsolve.workers"
_LEGACY_EARLIER = b"dsolve.earlier_writes"


@dataclass(frozen=True)
class Manifest:
    """What a survey directory is a survey of: a job (:mod:`.jobs`) under its settings."""

    settings: tuple[str, ...]  # rule sets for Klondike jobs, seat pairings for Crapette
    convention: str
    limits: Limits
    chunk_size: int
    seeds: tuple[tuple[int, int], ...]  # seed ranges asked for, inclusive, merged
    retries: tuple[Limits, ...] = ()  # limits of each retry of the unknown rows, in order
    dsolve_version: str = __version__
    format: int = FORMAT
    job: str = "solve"
    params: tuple[tuple[str, Any], ...] = ()  # the job's own options, e.g. a grading's plays

    @property
    def kind(self) -> Job:
        """The job this survey runs."""
        return job_of(self.job)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["params"] = dict(self.params)
        return json.dumps(data, indent=2) + "\n"

    def describe(self, rows: int) -> str:
        """One line about the survey, which has ``rows`` rows so far."""
        asked = ", ".join(f"{a}-{b}" for a, b in self.seeds)
        total = sum(b - a + 1 for a, b in self.seeds)
        retried = "".join(f"; unknowns retried with {limits}" for limits in self.retries)
        limits = f"; limits {self.limits}" if self.kind.limited else ""
        return (f"{self.convention} deals: {rows // len(self.settings)} of {total} {self.kind.unit}s ({asked}) "
                f"{self.kind.done}{limits}{retried}; dsolve {self.dsolve_version}")

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        """Read a manifest; one written before jobs (``rules``, and ``grading`` for a grading
        survey) is read as a solve or grade job."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        grading = data.get("grading")
        params = data.get("params", grading) or {}
        manifest = cls(
            settings=tuple(data["settings"] if "settings" in data else data["rules"]),
            convention=data["convention"], limits=Limits(**data["limits"]),
            chunk_size=int(data["chunk_size"]), seeds=tuple((int(a), int(b)) for a, b in data["seeds"]),
            retries=tuple(Limits(**limits) for limits in data.get("retries", ())),
            dsolve_version=data["dsolve_version"], format=int(data["format"]),
            job=data.get("job", "grade" if grading else "solve"),
            params=tuple(sorted((str(k), v) for k, v in params.items())),
        )
        if not (manifest.settings and all(isinstance(r, str) for r in manifest.settings)
                and isinstance(manifest.convention, str) and isinstance(manifest.dsolve_version, str)
                and isinstance(manifest.job, str) and manifest.chunk_size > 0
                and all(0 <= a <= b for a, b in manifest.seeds)):
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
        return self.describe()

    def describe(self, unit: str = "seed") -> str:
        """The runs' wall time and seeds per second, a seed named ``unit`` (what the seeds number)."""
        if not self.runs:
            return "wall time not recorded"
        rate = f", {self.seeds / self.seconds:.4g} {unit}s/s" if self.seconds > 0 else ""
        text = (f"wall time {self.seconds / 3600:.2f} h in {self.runs} run{'s' * (self.runs > 1)} "
                f"(each from its start to its last chunk){rate}")
        return text + (f"; not recorded for {self.untimed_seeds} seeds" if self.untimed_seeds else "")


# -- the survey directory ------------------------------------------------------------------------

def chunk_path(out: Path, first: int) -> Path:
    return out / f"chunk-{first:09d}.parquet"


@contextmanager
def atomic(path: Path) -> Iterator[BinaryIO]:
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
    with atomic(path) as f:
        pq.write_table(table.replace_schema_metadata(chunk.footer()), f, write_page_checksum=True)
    return path


def write_chunk(out: Path, seeds: range, table: pa.Table, run_started: float, workers: int,
                earlier: tuple[tuple[float, float], ...] = ()) -> Path:
    """Write the rows of ``seeds`` as one chunk file, atomically, stamped with the start of the run
    writing it, the time now, the run's worker count and the ``earlier`` writes it replaces."""
    return _write_chunk_file(out, Chunk(seeds, run_started, time.time(), workers, earlier), table)


def chunk_files(out: Path) -> list[Path]:
    return sorted(p for p in Path(out).iterdir() if _CHUNK_RE.match(p.name))


def read_chunk(path: Path, job: Job, settings: Sequence[str]) -> tuple[Chunk, pa.Table, bool]:
    """A chunk file of a ``job`` survey checked whole: its footer, its columns, its pages'
    checksums, and one row per seed of its range and setting of ``settings``. Returns the chunk,
    its rows (a format-1 chunk with null columns for those it lacks) and whether it is of format
    1; :class:`DamagedChunk` otherwise."""
    try:
        parquet = pq.ParquetFile(path, page_checksum_verification=True)
        schema = parquet.schema_arrow
        chunk, legacy = Chunk.from_footer(schema.metadata or {})
        if chunk.seeds.start != int(_CHUNK_RE.match(path.name)[1]) or not chunk.seeds:
            raise ValueError(f"its footer gives seeds {chunk.seeds.start}-{chunk.seeds.stop - 1}")
        expected = job.legacy if legacy else job.schema
        former = not legacy and job.former is not None and schema.remove_metadata().equals(job.former)
        if not former and (expected is None or not schema.remove_metadata().equals(expected)):
            raise ValueError(f"its columns ({', '.join(f'{f.name}: {f.type}' for f in schema)}) are not a "
                             f"{job.name} survey's")
        table = parquet.read().replace_schema_metadata(None)
        if former:
            table = job.upgrade(table)
        _check_rows(table, chunk.seeds, job, settings)
        job.valid(table)
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError) as e:
        raise DamagedChunk(path, (str(e).strip().splitlines() or [type(e).__name__])[0]) from None
    if legacy:
        for field in job.schema:
            if field.name not in table.column_names:
                table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        table = table.select(job.schema.names)
    return chunk, table, legacy


def _check_rows(table: pa.Table, seeds: range, job: Job, settings: Sequence[str]) -> None:
    """ValueError unless ``table`` has one row per seed of ``seeds`` and setting of ``settings``
    (in the job's key column)."""
    expected = len(seeds) * len(settings)
    setting = pc.index_in(table[job.key].cast(pa.string()), value_set=pa.array(settings, pa.string()))
    index = pc.add(pc.multiply(pc.subtract(table["seed"], seeds.start), len(settings)), setting)
    bounds = pc.min_max(index).as_py()
    if (table.num_rows != expected or setting.null_count or bounds["min"] < 0 or bounds["max"] >= expected
            or pc.count_distinct(index).as_py() != expected):
        raise ValueError(f"its {table.num_rows} rows are not one per seed {seeds.start}-{seeds.stop - 1} "
                         f"under each of the survey's {len(settings)} {job.setting_name}")


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


def write_manifest(out: Path, manifest: Manifest) -> None:
    """Write ``_manifest.json`` (of this format) atomically; a format-1 ``manifest.json`` goes."""
    with atomic(out / MANIFEST) as f:
        f.write(dataclasses.replace(manifest, format=FORMAT).to_json().encode())
    (out / LEGACY_MANIFEST).unlink(missing_ok=True)


def rows_of(tables: Sequence[pa.Table], schema: pa.Schema) -> pa.Table:
    """The rows of several chunks as one table (``schema``'s, if there are none)."""
    return pa.concat_tables(tables).unify_dictionaries() if tables else schema.empty_table()


def open_survey(out: str | os.PathLike) -> Survey:
    """Read the survey in ``out``, checking every chunk (:func:`read_chunk`); InputError naming
    the first damaged chunk, or the manifest if it is damaged."""
    out = Path(out)
    manifest = read_manifest(out)
    chunks, tables = [], []
    for path in chunk_files(out):
        chunk, table, _ = read_chunk(path, manifest.kind, manifest.settings)
        chunks.append(chunk)
        tables.append(table)
    return Survey(manifest, tuple(chunks), rows_of(tables, manifest.kind.schema))


def load(out: str | os.PathLike) -> tuple[Manifest, pa.Table]:
    """A survey's manifest and all its rows."""
    survey = open_survey(out)
    return survey.manifest, survey.rows


def move_aside(out: Path, damage: DamagedChunk) -> DamagedChunk:
    """Move a damaged chunk into ``_damaged/`` (under a free name); the damage, with its new path."""
    folder = out / DAMAGED
    folder.mkdir(exist_ok=True)
    target, n = folder / damage.path.name, 1
    while target.exists():
        n += 1
        target = folder / f"{damage.path.stem}-{n}{damage.path.suffix}"
    damage.path.rename(target)
    return DamagedChunk(target, damage.reason)


def sound_chunks(out: Path, manifest: Manifest, set_aside: bool) -> tuple[list[tuple[Chunk, pa.Table]],
                                                                           list[DamagedChunk]]:
    """For a run holding the lock: every chunk of ``out`` checked, those of format 1 rewritten in
    this format (same rows, null columns for those they lack, a JSON footer). A damaged chunk is moved to
    ``_damaged/`` if ``set_aside`` (and listed), else raised."""
    sound, damaged = [], []
    for path in chunk_files(out):
        try:
            chunk, table, legacy = read_chunk(path, manifest.kind, manifest.settings)
        except DamagedChunk as damage:
            if not set_aside:
                raise
            damaged.append(move_aside(out, damage))
            continue
        if legacy:
            _write_chunk_file(out, chunk, table)
        sound.append((chunk, table))
    return sound, damaged


def merge(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return tuple((a, b) for a, b in merged)


def reconcile(out: Path, wanted: Manifest, limits_given: bool) -> Manifest:
    """The manifest to write: ``wanted``, or the one in ``out`` extended by the asked seeds (with
    its own limits unless ``limits_given``). Refuses (InputError) a directory surveyed with another
    job, settings, convention, limits, options or version."""
    if _manifest_path(out) is None:
        if any(p.name != LOCK for p in out.iterdir()):
            raise InputError(f"{out} is not empty and is not a survey directory (no {MANIFEST})")
        return wanted
    have = read_manifest(out)
    for what, theirs, ours in (
        ("job", have.job, wanted.job),
        ("deal convention", have.convention, wanted.convention),
        (have.kind.setting_name, "; ".join(sorted(have.settings)), "; ".join(sorted(wanted.settings))),
        ("limits", str(have.limits), str(wanted.limits if limits_given else have.limits)),
        ("options", str(dict(have.params)), str(dict(wanted.params))),
        ("dsolve version", have.dsolve_version, wanted.dsolve_version),
    ):
        if theirs != ours:
            raise InputError(f"{out} holds a survey with {what} {theirs}, not {ours}: "
                             "surveys are not mixed, use another directory")
    return dataclasses.replace(have, seeds=merge([*have.seeds, *wanted.seeds]))


@contextmanager
def claim(out: Path) -> Iterator[None]:
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
