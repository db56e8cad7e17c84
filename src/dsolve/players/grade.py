"""The grade of a deal for a race table: how players who cannot see the face-down cards fare on it.

A grade holds the thoughtful verdict (all cards known) with the length of the winning line found;
the hidden-information player's win rate over independent plays (different sampling seeds) with
its 95 % Wilson interval; the careless player's likewise; the traps the hidden plays walked into;
the mean length of the hidden plays that won; and a difficulty class from the hidden win rate
(:func:`difficulty`). A deal that is not proven winnable is not played: it grades 0 for both
players, and only a winnable deal gets a difficulty band.

A trap is the first move of a lost hidden play after which the core proves the position lost.
Every position after a lost one is lost, so it is found by bisecting the play's positions, each
decided within ``trap_nodes`` positions; a position left undecided counts as not proven lost. A
lost play whose last position is not proven lost (it stalled or gave up in a position the core
could not decide, or that is still winnable) has no trap: it counts in ``untrapped``.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import pyarrow as pa

from ..klondike import api
from ..klondike.deal import Deal
from ..errors import InputError
from ..klondike.referee import Game
from ..klondike.result import UNKNOWN, UNWINNABLE, WINNABLE
from ..rules import Rules
from ..klondike.rows import SCHEMA, SOLVE, add_row, each_deal, solve_limits
from ..survey.jobs import Task
from ..survey.stats import wilson
from .careless import play_careless
from .hidden import HiddenOptions, play_hidden
from .view import Play

DEFAULT_PLAYS = 4
DEFAULT_TRAP_NODES = 20_000
TRAP_MEMORY_MB = 16.0
# Difficulty bands on the hidden-information player's win rate (see README, "Race tables").
EASY, MEDIUM, HARD, LOTTERY = "easy", "medium", "hard", "lottery"
BANDS = ((EASY, 0.75), (MEDIUM, 0.4), (HARD, 1e-9))
DIFFICULTIES = (EASY, MEDIUM, HARD, LOTTERY, UNWINNABLE, UNKNOWN)


def difficulty(verdict: str, hidden_win_rate: float) -> str:
    """The class of a deal: ``unwinnable`` / ``unknown`` unless proven winnable; then ``easy``
    (the hidden player wins at least 75 % of its plays), ``medium`` (40 % up), ``hard`` (some
    but under 40 %), ``lottery`` (none: won only by guessing the hidden cards right)."""
    if verdict != WINNABLE:
        return verdict
    return next((name for name, floor in BANDS if hidden_win_rate >= floor), LOTTERY)


@dataclass(frozen=True)
class Grade:
    """The grade of one deal (see the module docstring). Rates are fractions of the plays;
    ``*_low``/``*_high`` their 95 % Wilson interval; ``moves`` the thoughtful winning line's
    length; ``mean_moves`` the mean length of the hidden plays that won (None if none won)."""

    seed: int | str | None
    rules: str
    verdict: str
    moves: int | None
    hidden_plays: int
    hidden_wins: int
    hidden_win_rate: float
    hidden_low: float
    hidden_high: float
    careless_plays: int
    careless_wins: int
    careless_win_rate: float
    careless_low: float
    careless_high: float
    traps: int
    untrapped: int
    mean_moves: float | None
    difficulty: str
    seconds: float
    nodes: int = 0  # of the thoughtful solve
    limit: str = ""  # the budget the thoughtful solve ran out of, if unknown

    def to_dict(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in dataclasses.asdict(self).items()}

    def describe(self) -> str:
        """The grade as a few lines for a person."""
        if self.verdict != WINNABLE:
            return f"{self.verdict}  {self.rules}: not played, grades 0 for both players  ({self.seconds:.2f} s)"
        mean = "-" if self.mean_moves is None else f"{self.mean_moves:.0f}"
        return "\n".join([
            f"winnable in {self.moves} moves  {self.rules}  difficulty {self.difficulty}",
            f"hidden-information player: won {self.hidden_wins}/{self.hidden_plays} = {self.hidden_win_rate:.0%} "
            f"[95 % {self.hidden_low:.0%}, {self.hidden_high:.0%}], mean {mean} moves to a win",
            f"careless player:           won {self.careless_wins}/{self.careless_plays} = "
            f"{self.careless_win_rate:.0%} [95 % {self.careless_low:.0%}, {self.careless_high:.0%}]",
            f"traps: {self.traps} of the hidden plays walked into a proven loss"
            + (f" ({self.untrapped} more lost without a loss proved)" if self.untrapped else "")
            + f"  ({self.seconds:.2f} s)"])


def first_trap(deal: Deal, rules: Rules, play: Play, max_nodes: int = DEFAULT_TRAP_NODES) -> int | None:
    """The 1-based number of the first move of ``play`` after which the core proves the position
    lost (``deal`` being winnable), or None when its last position is not proven lost."""
    game, positions = Game(deal, rules), [deal]
    for move in play.moves:
        game.apply(move)
        positions.append(game.position())

    def lost(i: int) -> bool:
        return api.solve(positions[i], rules, max_nodes=max_nodes,
                         memory_mb=TRAP_MEMORY_MB).verdict == UNWINNABLE

    low, high = 0, len(positions) - 1
    if high == 0 or not lost(high):
        return None
    while high - low > 1:  # positions[low] not proven lost, positions[high] lost
        mid = (low + high) // 2
        if lost(mid):
            high = mid
        else:
            low = mid
    return high


def grade(deal: Deal, rules: Rules, plays: int = DEFAULT_PLAYS, *, seed: int | str | None = None,
          sampling: int = 0, options: HiddenOptions = HiddenOptions(), timeout: float | None = None,
          memory_mb: float | None = None, max_nodes: int | None = None,
          trap_nodes: int = DEFAULT_TRAP_NODES) -> Grade:
    """Grade ``deal`` under ``rules`` with ``plays`` hidden and ``plays`` careless plays.

    ``seed`` is recorded only; play k of each player uses the sampling seed ``f"{sampling}:{k}"``,
    so the same arguments give the same grade. ``timeout``/``memory_mb``/``max_nodes`` bound the
    thoughtful solve (unknown: not played); ``options`` are the hidden player's."""
    if plays < 1:
        raise InputError(f"plays must be at least 1, got {plays}")
    started = time.perf_counter()
    verdict = api.solve(deal, rules, timeout=timeout, memory_mb=memory_mb, max_nodes=max_nodes)
    hidden: list[Play] = []
    careless: list[Play] = []
    traps = untrapped = 0
    if verdict.verdict == WINNABLE:
        hidden = [play_hidden(deal, rules, f"{sampling}:{k}", options) for k in range(plays)]
        careless = [play_careless(deal, rules, f"{sampling}:{k}") for k in range(plays)]
        for play in hidden:
            if not play.won:
                if first_trap(deal, rules, play, trap_nodes) is None:
                    untrapped += 1
                else:
                    traps += 1
    h_wins, c_wins = sum(p.won for p in hidden), sum(p.won for p in careless)
    h_rate, c_rate = (h_wins / plays, c_wins / plays) if hidden else (0.0, 0.0)

    def interval(wins: int, games: list[Play]) -> tuple[float, float]:
        # Not played: a proven loss is lost by every player; an unknown deal could be anything.
        return wilson(wins, len(games)) if games else (0.0, float(verdict.verdict == UNKNOWN))

    won_lengths = [len(p.moves) for p in hidden if p.won]
    return Grade(
        seed, str(rules), verdict.verdict,
        len(verdict.moves) if verdict.verdict == WINNABLE else None,
        len(hidden), h_wins, h_rate, *interval(h_wins, hidden),
        len(careless), c_wins, c_rate, *interval(c_wins, careless),
        traps, untrapped, sum(won_lengths) / len(won_lengths) if won_lengths else None,
        difficulty(verdict.verdict, h_rate), time.perf_counter() - started, verdict.nodes,
        verdict.limit if verdict.verdict == UNKNOWN else "")


# A grading survey's columns: a solve survey's (the verdict, length and effort of the thoughtful
# solve), then the grade's.
GRADE_SCHEMA = pa.schema([*SCHEMA, *[
    ("hidden_plays", pa.int32()), ("hidden_wins", pa.int32()), ("hidden_win_rate", pa.float64()),
    ("hidden_low", pa.float64()), ("hidden_high", pa.float64()),
    ("careless_plays", pa.int32()), ("careless_wins", pa.int32()), ("careless_win_rate", pa.float64()),
    ("careless_low", pa.float64()), ("careless_high", pa.float64()),
    ("traps", pa.int32()), ("untrapped", pa.int32()), ("mean_moves", pa.float64()),
    ("difficulty", pa.dictionary(pa.int32(), pa.string())),
]])


def grading_options(plays: int = DEFAULT_PLAYS, samples: int | None = None, max_nodes: int | None = None,
                    sampling: int = 0) -> dict[str, int]:
    """The grading settings a grading survey records (its ``params``; see :func:`grade_chunk`)."""
    defaults = HiddenOptions()
    return {"plays": plays, "samples": samples or defaults.samples,
            "sample_nodes": max_nodes or defaults.max_nodes, "sampling": sampling}


def grade_chunk(task: Task) -> pa.Table:
    """Grade a chunk's deals (:func:`grade` with the task's :func:`grading_options` and limits)."""
    grading = dict(task.params)
    options = dataclasses.replace(HiddenOptions(), samples=grading["samples"], max_nodes=grading["sample_nodes"])
    limits = solve_limits(task)
    columns: dict[str, list] = {name: [] for name in GRADE_SCHEMA.names}
    for seed, text, rules, deal in each_deal(task):
        g = grade(deal, rules, grading["plays"], sampling=grading["sampling"], options=options,
                  **limits)  # type: ignore[arg-type]
        add_row(columns, seed, text, g.verdict, g.moves, g.nodes, g.seconds, g.limit)
        for name in GRADE_SCHEMA.names[len(SCHEMA):]:
            columns[name].append(getattr(g, name))
    return pa.Table.from_pydict(columns, schema=GRADE_SCHEMA)


GRADE = dataclasses.replace(SOLVE, name="grade", schema=GRADE_SCHEMA, work=grade_chunk, done="graded",
                            legacy=None, former=None, upgrade=lambda table: table, retries=True)
