"""The Crapette survey: a row per round seed and seat pairing (the ``crapette`` job of
:mod:`dsolve.survey.jobs`); its settings are the pairings (``"greedy,random"``: seat A, seat B),
its params the rules options."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..survey.executors import RunningSeeds, mark_running
from ..survey.jobs import Job, Task
from ..survey.run import SurveyRun, run_survey
from ..survey.store import Survey, open_survey, read_manifest
from .game import check_seed
from .rounds import parse_players, play_rounds, seatings
from .rules import Options
from .stats import counted, summarize

CONVENTION = "crapette"  # random.Random(seed) shuffles seat A's deck, then seat B's (game.deal)
ENDS = ("out", "stalemate", "turn limit")
_NAME = pa.dictionary(pa.int32(), pa.string())
SCHEMA = pa.schema([
    ("seed", pa.int64()),
    ("players", _NAME),  # the pairing: "greedy,random" (seat A, seat B)
    ("player_a", _NAME), ("player_b", _NAME),
    ("first_player", pa.int8()),  # the seat that started: 0 (A) or 1 (B)
    ("winner", pa.int8()),  # the seat that went out, -1 if none did
    ("end", _NAME),  # out, stalemate, turn limit
    ("points_a", pa.int32()), ("points_b", pa.int32()),
    ("left_a", pa.int32()), ("left_b", pa.int32()),  # cards left as the score counts them
    ("moves", pa.int32()), ("turns", pa.int32()),
    ("foundation", pa.int32()),  # cards on the foundations at the end
])


def pairing_name(players: tuple[str, str]) -> str:
    """A pairing as a setting: ``"greedy,random"``."""
    return ",".join(players)


def survey_pairings(players: str) -> list[str]:
    """The settings a survey of ``--players`` text plays (:func:`seatings`); InputError for an
    unknown player."""
    return [pairing_name(pair) for pair in seatings(parse_players(players))]


def survey_params(options: Options) -> dict[str, str]:
    """The rules options as a survey records them (its ``params``)."""
    return {"rules": str(options)}


def options_of(params: Sequence[tuple[str, str]] | dict[str, str]) -> Options:
    """The rules options a survey recorded (:func:`survey_params`; :meth:`Options.recorded`)."""
    return Options.recorded(dict(params).get("rules", ""))


def check(convention: str, seeds: range, pairings: Sequence[str]) -> None:
    """InputError for a convention other than Crapette's, a bad seed or an unknown player."""
    if convention != CONVENTION:
        raise InputError(f"crapette rounds are dealt by the {CONVENTION!r} convention, not {convention!r}")
    for seed in (seeds[0], seeds[-1]):
        check_seed(seed)
    for text in pairings:
        if pairing_name(parse_players(text)) != text:
            raise InputError(f"bad pairing {text!r} (expected A,B, e.g. greedy,random)")


def valid(table: pa.Table) -> None:
    """ValueError if a row holds an end, seat or pairing the job never writes."""
    if pc.index_in(table["end"].cast(pa.string()), value_set=pa.array(ENDS)).null_count:
        raise ValueError("a row holds an unknown end")
    if not pc.all(pc.is_in(table["first_player"], value_set=pa.array([0, 1], pa.int8()))).as_py() \
            or not pc.all(pc.is_in(table["winner"], value_set=pa.array([-1, 0, 1], pa.int8()))).as_py():
        raise ValueError("a row holds an unknown seat")
    pairs = pc.binary_join_element_wise(table["player_a"].cast(pa.string()), table["player_b"].cast(pa.string()), ",")
    if not pc.all(pc.equal(pairs, table["players"].cast(pa.string()))).as_py():
        raise ValueError("a row's players are not its pairing")


def play_chunk(task: Task) -> pa.Table:
    """Play a chunk's rounds (every seed under every pairing, seed-major)."""
    options = options_of(task.params)
    rows = []
    for seed, text in task.pairs():
        mark_running(seed)
        rows += [{"players": text, **row} for row in play_rounds([seed], [parse_players(text)], options)]
    mark_running(RunningSeeds.IDLE)
    return pa.Table.from_pylist(rows, schema=SCHEMA)


class Tally:
    """Running counts for the progress display: rounds, the first player's wins, stalemates."""

    def __init__(self, pairings: Sequence[str]):
        self.rounds = self.first_wins = self.stalemates = 0

    def add(self, table: pa.Table) -> None:
        winner, first = table["winner"], table["first_player"]
        self.rounds += table.num_rows
        self.first_wins += pc.sum(pc.equal(winner, first)).as_py() or 0
        self.stalemates += pc.sum(pc.equal(winner, -1)).as_py() or 0

    def __str__(self) -> str:
        share = 100 * self.first_wins / self.rounds if self.rounds else 0.0
        return f"{counted(self.rounds, 'round')}, first player wins {share:.1f} %, stalemates {self.stalemates}"


CRAPETTE = Job("crapette", "players", "pairings", CONVENTION, SCHEMA, play_chunk, check, Tally, valid,
               done="played", limited=False, doing="playing")


def survey(out: str | os.PathLike, seeds: range, players: str, options: Options = Options(),
           jobs: int | None = None, scheduler: str | None = None, chunk_size: int | None = None,
           progress: bool = False) -> SurveyRun:
    """Play ``seeds`` under the seatings of ``players`` (``"greedy,random"``; both seat orders
    when they differ) with ``options`` into the survey directory ``out``: resumable, on local
    workers or a Dask scheduler (:func:`dsolve.survey.run_survey`)."""
    return run_survey(out, seeds, survey_pairings(players), CONVENTION, None, jobs, scheduler, chunk_size,
                      progress, job=CRAPETTE.name, params=survey_params(options))


def open_rounds(out: str | os.PathLike) -> tuple[Survey, Options]:
    """The Crapette survey in ``out``, every chunk checked, and its rules options; InputError if
    it is damaged or holds another job's survey."""
    job = read_manifest(Path(out)).job
    if job != CRAPETTE.name:
        raise InputError(f"{out} holds a {job} survey, not a crapette survey")
    found = open_survey(out)
    return found, options_of(found.manifest.params)


def summarize_survey(out: str | os.PathLike) -> tuple[Survey, dict]:
    """The Crapette survey in ``out`` (:func:`open_rounds`) and the summary of its rows
    (:func:`dsolve.crapette.stats.summarize`, matches to the target its rules options set)."""
    found, options = open_rounds(out)
    return found, summarize(found.rows.to_pylist(), options.target)
