"""Who moves when: the simultaneous race's clock, and the turn-based mode.

``race`` (both pages' default): the two seats play at once. A seat decides its next move from
the table as it sees it at that instant; the move lands after a think time drawn from the seat's
own distribution (a gamma distribution of mean ``think[seat]`` seconds and shape ``shape``, so a
faster player is a seat with a smaller mean). Moves land in time order; a move that is no longer
legal when it lands (the other seat took the foundation slot or the pile first) is put back
(counted as a bounce, not recorded) and the seat decides again at once: a foundation slot goes to
the first card legally placed. A seat whose player has no move is idle until the other seat's
next move lands. The race ends when a seat has finished (win line ``count``: both seats; either
seat is checked after every move, whoever made it), or after ``max_moves`` moves.

The players stopping is not the end. When both seats are idle, or the same table recurs
``MAX_REPEATS`` times (moves to and fro, which are not progress), the engine makes the check of
the French page ("Fin de la partie": the players stop and look over the tableaus and a full
cycle of each stock; the game ends only if neither can progress): :mod:`~dsolve.races.progress`
searches each seat's own moves for progress. If a seat can progress, the moves found are played
for it (the check has shown them: the page's players, having found the move, make it; the race
version of the open-race page likewise counts a block only "if both players are blocked"), each
after a think time of that seat, and the race goes on, both seats deciding afresh. Only if no
seat can progress does the race end ``blocked``; if a search met its bound first, it ends
``unresolved`` (not known to be blocked; scored like a block, by the foundation count).

``turns`` (Pagat): the seat to play makes every move it wants and turns the stock once, which
ends its turn; a seat with no move passes (recorded as ``pass``). The first seat is the one with
the lower card on its one-card pile (ties: the two-card pile, ...). Two passes in a row, or a
repeated table, stop the game for the same check; the moves found are played as the seat's
turns (the other seat passing whenever a stock turn of the found moves hands it the turn, and
first if it is the one to play).
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..errors import InputError
from .progress import UNKNOWN, first_progress
from .table import COUNT, PASS, TURN, IllegalMove, RaceMove, RaceView, Table

RACE, TURNS = "race", "turns"
MODES = (RACE, TURNS)
FINISHED, BLOCKED, UNRESOLVED, MOVE_LIMIT = "finished", "blocked", "unresolved", "move limit"
ENDS = (FINISHED, BLOCKED, UNRESOLVED, MOVE_LIMIT)
MAX_REPEATS = 6
DEFAULT_MAX_MOVES = 3000


class RacePlayer(Protocol):
    """A seat's player: the move to play from what the seat sees, or None (it has none)."""

    def choose(self, view: RaceView) -> RaceMove | None: ...


@dataclass(frozen=True)
class Clock:
    """Think times: seat ``s`` waits Gamma(``shape``, ``think[s] / shape``) seconds per move."""

    think: tuple[float, float] = (1.0, 1.0)
    shape: float = 4.0

    def __post_init__(self) -> None:
        if len(self.think) != 2 or not all(0 < t < math.inf for t in self.think) or not self.shape > 0:
            raise InputError(f"think times must be two positive finite means, got {self.think!r}")

    def wait(self, rng: random.Random, seat: int) -> float:
        return rng.gammavariate(self.shape, self.think[seat] / self.shape)


@dataclass(frozen=True)
class Outcome:
    """How a game went: its ``moves`` in the order they were played, ``times`` when each landed
    (race mode; empty in turns), ``end`` (finished, blocked, unresolved, move limit), the seat
    that started (turns) and each seat's bounced moves."""

    moves: tuple[RaceMove, ...]
    times: tuple[float, ...]
    end: str
    first: int
    bounced: tuple[int, int]


class _Ends:
    """The ends that come after a move: a seat finished (either seat: in the open race a move of
    one seat can carry the other's last card away; with ``win`` count, both seats), the move
    limit; and whether the table has now been seen ``MAX_REPEATS`` times (a stop, see
    :func:`_stop`)."""

    def __init__(self, max_moves: int) -> None:
        self._seen: Counter[tuple] = Counter()
        self._max_moves = max_moves

    def after(self, table: Table, moves: int) -> str | None:
        done = [table.finished(s) for s in (0, 1)]
        if all(done) if table.rules.win == COUNT else any(done):
            return FINISHED
        return MOVE_LIMIT if moves >= self._max_moves else None

    def repeated(self, table: Table) -> bool:
        key = table.key()
        self._seen[key] += 1
        return self._seen[key] >= MAX_REPEATS


def _stop(table: Table, rng: random.Random) -> tuple[int, list[RaceMove]] | str:
    """When the players have stopped (both idle, two passes, a repeated table): a seat and the
    moves the check of :mod:`~dsolve.races.progress` finds it can progress by (both seats
    searched in turns, in an order drawn by ``rng``), or the end: BLOCKED when neither seat can,
    UNRESOLVED when neither was found to and a search met its bound."""
    found = first_progress(table, rng.sample((0, 1), 2))
    if found is None:
        return BLOCKED
    return UNRESOLVED if found == UNKNOWN else found  # type: ignore[return-value]


def play(table: Table, players: Sequence[RacePlayer], mode: str = RACE, clock: Clock = Clock(),
         rng: random.Random | None = None, max_moves: int = DEFAULT_MAX_MOVES) -> Outcome:
    """Play ``table`` to its end with ``players`` (seat A's, seat B's) in ``mode``; ``rng`` draws
    the think times."""
    if mode == RACE:
        return _race(table, players, clock, rng or random.Random(0), max_moves)
    if mode == TURNS:
        return _turns(table, players, max_moves, rng or random.Random(0))
    raise InputError(f"unknown mode {mode!r} (expected {' or '.join(MODES)})")


def _race(table: Table, players: Sequence[RacePlayer], clock: Clock, rng: random.Random,
          max_moves: int) -> Outcome:
    pending: list[tuple[float, RaceMove] | None] = [None, None]
    moves: list[RaceMove] = []
    times: list[float] = []
    ends = _Ends(max_moves)

    def decide(seat: int, now: float) -> None:
        move = players[seat].choose(table.view(seat))
        pending[seat] = None if move is None else (now + clock.wait(rng, seat), move)

    decide(0, 0.0)
    decide(1, 0.0)
    end = None
    now = 0.0
    while end is None:
        live = [(p[0], s, p[1]) for s, p in enumerate(pending) if p is not None]
        stopped = not live
        if live:
            now, seat, move = min(live, key=lambda item: item[:2])
            try:
                table.apply(move)
            except IllegalMove:  # too late: put back
                table.bounced[seat] += 1
            else:
                moves.append(move)
                times.append(now)
                end = ends.after(table, len(moves))
                stopped = end is None and ends.repeated(table)
                if end is None and not stopped and pending[1 - seat] is None:
                    decide(1 - seat, now)
            if end is None and not stopped:
                decide(seat, now)
        if stopped:
            found = _stop(table, rng)
            if isinstance(found, str):
                end = found
                break
            seat, path = found
            for move in path:
                now += clock.wait(rng, seat)
                table.apply(move)
                moves.append(move)
                times.append(now)
                end = ends.after(table, len(moves))
                if end is not None:
                    break
            if end is None:
                decide(0, now)
                decide(1, now)
    return Outcome(tuple(moves), tuple(times), end, 0, (table.bounced[0], table.bounced[1]))


def _turns(table: Table, players: Sequence[RacePlayer], max_moves: int, rng: random.Random) -> Outcome:
    seat = first = table.first_to_move()
    moves: list[RaceMove] = []
    ends = _Ends(max_moves)
    passes = 0
    end = None

    def play_move(move: RaceMove) -> None:
        nonlocal seat, end
        if move.kind == PASS:
            moves.append(move)
        else:
            table.apply(move)
            moves.append(move)
            end = ends.after(table, len(moves))
        if move.kind in (TURN, PASS):
            seat = 1 - seat

    while end is None:
        move = players[seat].choose(table.view(seat))
        if move is None:
            play_move(RaceMove(seat, PASS))
            passes += 1
            stopped = passes == 2
        else:
            passes = 0
            play_move(move)
            stopped = end is None and ends.repeated(table)
        if not stopped:
            continue
        found = _stop(table, rng)
        if isinstance(found, str):
            end = found
            break
        mover, path = found
        passes = 0
        for move in path:
            if seat != mover:  # the other seat waits its turn out: the check found it no progress
                play_move(RaceMove(seat, PASS))
            play_move(move)
            if end is not None:
                break
    return Outcome(tuple(moves), (), end, first, (0, 0))
