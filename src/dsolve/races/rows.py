"""The race survey: a row per pair of seeds and setting (the ``race`` job of
:mod:`dsolve.survey.jobs`).

A survey's keys (its "seeds") are pair numbers ``k`` = 1, 2, ...: pair ``k`` races the deck of seed
``2k - 1`` against that of seed ``2k``, dealt by the survey's convention (so pair 1 is
``dsolve race 1 2``), unless the survey races *listed* pairs (those of a ``dsolve pick --pairs``
output file, :func:`dsolve.pick.read_pairs`): then pair ``k`` is the k-th pair of the list, which
the survey records in its params. A setting is what the races of a pair play:
``"locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=20"`` (the
rules: variant, draw, passes and win line; the mode, the seats' players, races per pair); the params hold the rest of the setup, the same for
every setting: think times, the hidden player's samples and positions per world, the sampling
seed. A row holds what :func:`dsolve.races.race.report` says of the pair's races.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..klondike.deals import DEFAULT_CONVENTION
from ..players.hidden import HiddenOptions
from ..survey.executors import RunningSeeds, mark_running
from ..survey.jobs import Job, Task
from ..survey.run import SurveyRun, run_survey
from ..survey.store import Survey, chunk_files, open_survey, read_manifest
from .race import RaceSetup, check_seeds, play_races, report, setup_from_options
from .timing import BLOCKED, FINISHED, MOVE_LIMIT, UNRESOLVED

CHUNK_PAIRS = 4  # pairs per chunk: a pair's races take seconds (careless players) to minutes (hidden)
_NAME = pa.dictionary(pa.int32(), pa.string())
SCHEMA = pa.schema([
    ("seed", pa.int64()),  # the pair number k
    ("setting", _NAME),  # see setting_text
    ("seed_a", pa.int64()), ("seed_b", pa.int64()),  # deck 1 (seat A in even races), deck 2
    ("plays", pa.int32()),
    ("wins_a", pa.int32()), ("wins_b", pa.int32()), ("draws", pa.int32()),
    ("imbalance", pa.float64()),  # deck 1's win share less deck 2's
    ("imbalance_low", pa.float64()), ("imbalance_high", pa.float64()),  # its 95 % interval (Newcombe)
    ("contributed_a", pa.float64()), ("contributed_b", pa.float64()),  # mean cards each deck's seat put up
    ("finishes_a", pa.int32()), ("finishes_b", pa.int32()),  # races each deck finished
    ("finish_moves_a", pa.float64()), ("finish_moves_b", pa.float64()),  # mean moves to finish (null: none)
    ("finished", pa.int32()), ("blocked", pa.int32()),  # how the races ended (timing.ENDS)
    ("unresolved", pa.int32()), ("move_limit", pa.int32()),
    ("moves", pa.int64()),  # moves made in all the pair's races
    ("bounced", pa.int64()),  # moves put back, too late for their slot
])
# Chunks written before the progress check: their races that stopped on a repeated table
# (``repetition``) ended without a block being proved, so they read as ``unresolved``.
FORMER_SCHEMA = pa.schema([("repetition", pa.int32()) if field.name == "unresolved" else field for field in SCHEMA])


def upgrade(table: pa.Table) -> pa.Table:
    """Rows of a chunk of :data:`FORMER_SCHEMA` in today's columns."""
    return table.rename_columns(["unresolved" if name == "repetition" else name for name in table.column_names])


ENDS = {FINISHED: "finished", BLOCKED: "blocked", UNRESOLVED: "unresolved", MOVE_LIMIT: "move_limit"}


def setting_text(setup: RaceSetup, plays: int) -> str:
    """The setting of ``plays`` races per pair with ``setup``'s rules, mode and players."""
    return f"{setup.rules} mode={setup.mode} players={','.join(setup.players)} plays={plays}"


def survey_params(setup: RaceSetup, pairs: Sequence[tuple[int, int]] | None = None) -> dict[str, str | int]:
    """What a survey records of ``setup`` besides its settings (its ``params``), and the listed
    ``pairs`` if it races those."""
    params: dict[str, str | int] = {
        "think": ",".join(str(t) for t in setup.clock.think), "samples": setup.hidden.samples,
        "sample_nodes": setup.hidden.max_nodes, "sampling_seed": setup.sampling_seed}
    if pairs is not None:
        params["pairs"] = " ".join(f"{a}:{b}" for a, b in pairs)
    return params


def setup_of(setting: str, params: Mapping[str, str | int],
             convention: str = DEFAULT_CONVENTION) -> tuple[RaceSetup, int]:
    """The setup and races per pair of a setting, a survey's params and its deal convention (bad
    text: InputError)."""
    bad = InputError(f"bad race setting {setting!r} (expected e.g. "
                     "'locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=20')")
    rules, _, rest = setting.partition(" ")
    variant, *rule_fields = rules.split(",")
    fields = dict(part.split("=", 1) for part in [*rule_fields, *rest.split()] if "=" in part)
    recorded = dict(fields)
    fields.setdefault("win", "first")  # settings recorded before the win line was an option
    if set(fields) != {"draw", "passes", "win", "mode", "players", "plays"}:
        raise bad
    hidden = HiddenOptions(samples=int(params.get("samples", HiddenOptions.samples)),
                           max_nodes=int(params.get("sample_nodes", HiddenOptions.max_nodes)))
    setup = setup_from_options(variant, fields["mode"], fields["draw"],
                               None if fields["passes"] == "unlimited" else fields["passes"], fields["players"],
                               str(params.get("think", "1.0,1.0")), hidden, int(params.get("sampling_seed", 0)),
                               fields["win"])
    plays = int(fields["plays"]) if fields["plays"].isdigit() else 0
    text = setting_text(setup, plays)
    if plays < 1 or (text if "win" in recorded else text.replace(",win=first", "", 1)) != setting:
        raise bad
    return dataclasses.replace(setup, convention=convention), plays


def listed_pairs(params: Mapping[str, str | int]) -> list[tuple[int, int]] | None:
    """The pairs a survey races by list (None: seeds 2k - 1 and 2k)."""
    text = params.get("pairs")
    if text is None:
        return None
    return [(int(a), int(b)) for a, b in (p.split(":") for p in str(text).split())]


def pair_seeds(k: int, listed: Sequence[tuple[int, int]] | None = None) -> tuple[int, int]:
    """The two seeds of pair ``k`` (see the module docstring)."""
    if listed is None:
        return 2 * k - 1, 2 * k
    if not 1 <= k <= len(listed):
        raise InputError(f"pair {k} is not listed (the survey races pairs 1-{len(listed)})")
    return listed[k - 1]


def pair_row(k: int, seeds: tuple[int, int], setting: str, setup: RaceSetup, plays: int) -> dict:
    """The row of pair ``k``: its races (:func:`play_races` of ``seeds``) as :func:`report` says."""
    records = play_races(seeds, setup, plays)
    rep = report(seeds, setup, records)
    a, b = rep.decks
    return {"seed": k, "setting": setting, "seed_a": a.seed, "seed_b": b.seed, "plays": rep.plays,
            "wins_a": a.wins, "wins_b": b.wins, "draws": a.draws, "imbalance": rep.imbalance,
            "imbalance_low": rep.imbalance_ci[0], "imbalance_high": rep.imbalance_ci[1],
            "contributed_a": a.contributed, "contributed_b": b.contributed,
            "finishes_a": a.finishes, "finishes_b": b.finishes,
            "finish_moves_a": a.finish_moves, "finish_moves_b": b.finish_moves,
            **{column: rep.ends.get(end, 0) for end, column in ENDS.items()},
            "moves": sum(sum(r.made) for r in records), "bounced": rep.bounced}


def check(convention: str, keys: range, settings: Sequence[str]) -> None:
    """InputError for a pair number below 1, a pair whose seeds its convention does not deal
    (seeds 2k - 1 and 2k; listed pairs are checked when listed), or a bad setting."""
    if keys[0] < 1:
        raise InputError(f"pairs are numbered from 1, got {keys[0]}")
    try:
        check_seeds(pair_seeds(keys[-1]), convention)
    except InputError as err:
        raise InputError(f"pair {keys[-1]} would race seeds {pair_seeds(keys[-1])}: {err}") from None
    for text in settings:
        setup_of(text, {})


def valid(table: pa.Table) -> None:
    """ValueError if a row's counts do not add up to its races."""
    plays = table["plays"]
    for total in (pc.add(pc.add(table["wins_a"], table["wins_b"]), table["draws"]),
                  pc.add(pc.add(table["finished"], table["blocked"]), pc.add(table["unresolved"], table["move_limit"]))):
        if not pc.all(pc.equal(total, plays)).as_py():
            raise ValueError("a row's counts do not add up to its races")


def play_chunk(task: Task) -> pa.Table:
    """Race a chunk's pairs under each setting (pair-major)."""
    params = dict(task.params)
    listed = listed_pairs(params)
    setups = {text: setup_of(text, params, task.convention) for text in task.settings}
    rows = []
    for k, text in task.pairs():
        mark_running(k)
        setup, plays = setups[text]
        rows.append(pair_row(k, pair_seeds(k, listed), text, setup, plays))
    mark_running(RunningSeeds.IDLE)
    return pa.Table.from_pylist(rows, schema=SCHEMA)


class Tally:
    """Running counts for the progress display: pairs raced, mean |imbalance|, pairs measured
    uneven, the draw share."""

    def __init__(self, settings: Sequence[str]):
        self.pairs = self.uneven = self.races = self.draws = 0
        self.total_gap = 0.0

    def add(self, table: pa.Table) -> None:
        self.pairs += table.num_rows
        self.total_gap += pc.sum(pc.abs(table["imbalance"])).as_py() or 0.0
        self.uneven += pc.sum(pc.or_(pc.greater(table["imbalance_low"], 0),
                                     pc.less(table["imbalance_high"], 0))).as_py() or 0
        self.races += pc.sum(table["plays"]).as_py() or 0
        self.draws += pc.sum(table["draws"]).as_py() or 0

    def __str__(self) -> str:
        gap = self.total_gap / self.pairs if self.pairs else 0.0
        draws = 100 * self.draws / self.races if self.races else 0.0
        return f"{self.pairs} pairs, mean |imbalance| {gap:.3f}, uneven {self.uneven}, draws {draws:.1f} %"


RACE = Job("race", "setting", "race settings", DEFAULT_CONVENTION, SCHEMA, play_chunk, check, Tally, valid,
           done="raced", limited=False, unit="pair", doing="racing", former=FORMER_SCHEMA, upgrade=upgrade)


def survey(out: str | os.PathLike, pairs: range, setup: RaceSetup, plays: int,
           listed: Sequence[tuple[int, int]] | None = None, jobs: int | None = None, scheduler: str | None = None,
           chunk_size: int | None = None, progress: bool = False) -> SurveyRun:
    """Race ``pairs`` (pair numbers; see the module docstring) ``plays`` times each with ``setup``
    into the survey directory ``out``: resumable, on local workers or a Dask scheduler
    (:func:`dsolve.survey.run_survey`). ``listed``: race these pairs (pair k the k-th) instead of
    seeds 2k - 1 and 2k; each is checked by ``setup``'s convention."""
    if plays < 1:
        raise InputError(f"plays must be positive, got {plays}")
    if listed is not None:
        if not listed:
            raise InputError("no pairs listed")
        for seeds in listed:
            check_seeds(seeds, setup.convention)
        if pairs and pairs[-1] > len(listed):
            raise InputError(f"pair {pairs[-1]} is not listed (there are {len(listed)} pairs: 1-{len(listed)})")
    return run_survey(out, pairs, [setting_text(setup, plays)], setup.convention, None, jobs, scheduler,
                      chunk_size or CHUNK_PAIRS, progress, job=RACE.name, params=survey_params(setup, listed))


def ended_by_the_rules(out: str | os.PathLike) -> bool:
    """Whether every race of the survey in ``out`` ended by the rules pages (a seat emptied by the
    other's move wins; blocked only when no seat can progress): no chunk of it was written before
    the progress check (:data:`FORMER_SCHEMA`, whose races stopped on a repeated table)."""
    import pyarrow.parquet as pq

    return not any("repetition" in pq.read_schema(path).names for path in chunk_files(Path(out)))


def open_races(out: str | os.PathLike) -> Survey:
    """The race survey in ``out``, every chunk checked; InputError if it is damaged or holds
    another job's survey."""
    job = read_manifest(Path(out)).job
    if job != RACE.name:
        raise InputError(f"{out} holds a {job} survey, not a race survey")
    return open_survey(out)
