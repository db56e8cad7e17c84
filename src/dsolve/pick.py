"""Picking seeds for race tables: grade a seed range (a grading survey) and write the seeds that
qualify, with their grades, to a CSV or Parquet file a game site can load.

The grades are kept in a survey directory beside the output (``FILE.grades/``), so a killed run
resumes where it stopped and a rerun of the same command writes the same file. Only seeds the core
proved winnable are ever listed. ``pairs`` matches the picked seeds two by two for two-deck tables
(each seat its own deck): sorted by their grades (hidden win rate, then careless win rate, then
solution length), neighbours are paired, and each pair says how far apart its hidden win rates are;
raced at double solitaire (a race survey beside the output, ``FILE.races/``, resumable as the
grades are), the pairs whose measured imbalance is clearly not zero are dropped.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .errors import InputError
from .players.grade import EASY, HARD, MEDIUM
from .klondike.result import WINNABLE
from .races.race import RaceSetup
from .races.rows import open_races, setting_text, survey as race_survey
from .rules import Rules
from .survey import Limits, open_survey, run_survey
from .survey.store import atomic

PICKABLE = (EASY, MEDIUM, HARD)
CHUNK_SEEDS = 10  # seeds per chunk: a grade takes seconds, not milliseconds
FORMATS = {".csv": "csv", ".parquet": "parquet"}
COLUMNS = ("seed", "rules", "convention", "verdict", "length", "difficulty", "hidden_win_rate",
           "hidden_low", "hidden_high", "hidden_plays", "careless_win_rate", "careless_low",
           "careless_high", "careless_plays", "traps", "mean_moves")


@dataclass(frozen=True)
class Picked:
    """What a pick wrote: the output file, the grades' directory, how many seeds were graded,
    proven winnable and qualified, the rows written, and a seed left without a pair."""

    out: Path
    store: Path
    graded: int
    winnable: int
    qualified: int
    rows: tuple[dict, ...]
    unpaired: int | None = None


def store_of(out: Path) -> Path:
    """The survey directory that keeps the grades behind ``out``."""
    return out.with_name(out.name + ".grades")


def races_of(out: Path) -> Path:
    """The survey directory that keeps the races of the pairs behind ``out``."""
    return out.with_name(out.name + ".races")


def select(rows: Sequence[dict], count: int | None = None, difficulty: str | None = None,
           min_hidden_win_rate: float = 0.0) -> list[dict]:
    """The rows proven winnable in the ``difficulty`` band (any of easy, medium, hard if None)
    whose hidden win rate is at least ``min_hidden_win_rate``, by seed, the first ``count``."""
    bands = (difficulty,) if difficulty else PICKABLE
    chosen = sorted((r for r in rows if r["verdict"] == WINNABLE and r["difficulty"] in bands
                     and r["hidden_win_rate"] >= min_hidden_win_rate), key=lambda r: r["seed"])
    return chosen[:count] if count is not None else chosen


def pair_up(rows: Sequence[dict]) -> tuple[list[dict], int | None]:
    """Rows matched two by two on their grades, each with ``pair`` (1, 2, ...) and ``pair_gap``
    (the difference of the two hidden win rates); the seed left over from an odd count."""
    order = sorted(rows, key=lambda r: (r["hidden_win_rate"], r["careless_win_rate"], r["length"], r["seed"]))
    out = []
    for number, (a, b) in enumerate(zip(order[::2], order[1::2]), 1):
        gap = round(abs(a["hidden_win_rate"] - b["hidden_win_rate"]), 4)
        out += [{**a, "pair": number, "pair_gap": gap}, {**b, "pair": number, "pair_gap": gap}]
    return out, order[-1]["seed"] if len(order) % 2 else None


def race_pairs(rows: Sequence[dict], setup: RaceSetup, plays: int, store: Path, jobs: int | None = None,
               scheduler: str | None = None, progress: bool = False) -> list[dict]:
    """Race each pair of :func:`pair_up`'s rows (``plays`` races in duplicate format, see
    :mod:`dsolve.races.race`) and keep the pairs whose imbalance interval holds zero, each row with
    the pair's ``imbalance`` (the first seed's win share less the second's) and its interval.

    The races are a race survey of the listed pairs in the directory ``store``
    (:func:`dsolve.races.rows.survey`), so a killed run resumes with the pairs raced so far."""
    pairs = list(zip(rows[::2], rows[1::2]))
    if not pairs:
        return []
    listed = [(a["seed"], b["seed"]) for a, b in pairs]
    race_survey(store, range(1, len(listed) + 1), setup, plays, listed, jobs, scheduler, progress=progress)
    setting = setting_text(setup, plays)
    raced = {r["seed"]: r for r in open_races(store).rows.to_pylist() if r["setting"] == setting}
    kept = []
    for k, (a, b) in enumerate(pairs, 1):
        row = raced[k]
        if row["imbalance_low"] <= 0 <= row["imbalance_high"]:
            measured = {c: row[c] for c in ("imbalance", "imbalance_low", "imbalance_high")}
            kept += [{**a, **measured}, {**b, **measured}]
    return kept


def write_rows(rows: Sequence[dict], out: Path, columns: Sequence[str]) -> None:
    """Write ``rows`` (only ``columns``) to ``out``, CSV or Parquet by its suffix, atomically."""
    table = pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows]) if rows else \
        pa.table({c: pa.array([], pa.string()) for c in columns})
    with atomic(out) as f:
        if FORMATS[out.suffix.lower()] == "csv":
            pacsv.write_csv(table, f)
        else:
            pq.write_table(table, f)


def read_pairs(path: Path) -> tuple[str, list[tuple[int, int]]]:
    """The seed convention and the pairs of seeds listed in a file :func:`pick` wrote with
    ``pairs`` (CSV or Parquet; two rows per ``pair`` number, in the file's order); InputError if
    it cannot be read or lists no such pairs."""
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"a pairs file ends in .csv or .parquet, got {path.name!r}")
    try:
        table = pacsv.read_csv(path) if FORMATS[path.suffix.lower()] == "csv" else pq.read_table(path)
    except (OSError, pa.ArrowException) as err:
        raise InputError(f"cannot read pairs from {path}: {err}") from None
    if not {"seed", "pair"} <= set(table.column_names):
        raise InputError(f"{path} lists no pairs (no seed and pair columns: write it with 'dsolve pick --pairs')")
    by_pair: dict[int, list[int]] = {}
    for seed, number in zip(table["seed"].to_pylist(), table["pair"].to_pylist()):
        if not isinstance(seed, int) or not isinstance(number, int):
            raise InputError(f"{path}: pair {number!r} has a seed {seed!r} that is not a whole number")
        by_pair.setdefault(number, []).append(seed)
    conventions = set(table["convention"].to_pylist()) if "convention" in table.column_names else {"solvitaire"}
    if len(conventions) != 1 or not isinstance(next(iter(conventions)), str):
        raise InputError(f"{path} mixes seed conventions: {sorted(map(str, conventions))}")
    for number, seeds in by_pair.items():
        if len(seeds) != 2:
            raise InputError(f"{path}: pair {number} has {len(seeds)} seeds, not 2")
    if not by_pair:
        raise InputError(f"{path} lists no pairs")
    return conventions.pop(), [(a, b) for a, b in by_pair.values()]


def pick(out: str | os.PathLike, seeds: range, rules: Rules, *, convention: str = "solvitaire",
         limits: Limits | None = None, grading: dict[str, int], count: int | None = None,
         difficulty: str | None = None, min_hidden_win_rate: float = 0.0, pairs: bool = False,
         pair_races: RaceSetup | None = None, pair_plays: int = 20,
         jobs: int | None = None, scheduler: str | None = None, progress: bool = False) -> Picked:
    """Grade ``seeds`` under ``rules`` (a resumable grading survey in :func:`store_of` ``out``,
    with ``grading`` from :func:`dsolve.players.grade.grading_options`) and write the qualifying
    seeds to ``out`` (see :func:`select`, :func:`pair_up`; with ``pair_races``, each pair is raced
    ``pair_plays`` times with that setup, dealt by ``convention``, in :func:`races_of` ``out``, and
    kept as :func:`race_pairs` says)."""
    out = Path(out)
    if out.suffix.lower() not in FORMATS:
        raise InputError(f"--out must end in .csv or .parquet, got {out.name!r}")
    if difficulty is not None and difficulty not in PICKABLE:
        raise InputError(f"difficulty must be one of {', '.join(PICKABLE)}, got {difficulty!r}")
    if not 0.0 <= min_hidden_win_rate <= 1.0:
        raise InputError(f"the minimum hidden win rate must be 0..1, got {min_hidden_win_rate}")
    if count is not None and count < 1:
        raise InputError(f"count must be positive, got {count}")
    store = store_of(out)
    run_survey(store, seeds, [rules], convention, limits, jobs, scheduler, CHUNK_SEEDS, progress, "grade", grading)
    table = open_survey(store).rows
    graded = [r for r in table.to_pylist() if seeds.start <= r["seed"] < seeds.stop and r["rules"] == str(rules)]
    for row in graded:
        row["convention"] = convention
    chosen = select(graded, count, difficulty, min_hidden_win_rate)
    columns: tuple[str, ...] = COLUMNS
    unpaired = None
    if pairs:
        chosen, unpaired = pair_up(chosen)
        columns += ("pair", "pair_gap")
        if pair_races is not None:
            chosen = race_pairs(chosen, dataclasses.replace(pair_races, convention=convention), pair_plays,
                                races_of(out), jobs, scheduler, progress)
            columns += ("imbalance", "imbalance_low", "imbalance_high")
    write_rows(chosen, out, columns)
    return Picked(out, store, len(graded), sum(r["verdict"] == WINNABLE for r in graded),
                  len(select(graded, None, difficulty, min_hidden_win_rate)), tuple(chosen), unpaired)
