"""Who moves when: the simultaneous race's clock, and the turn-based mode.

``race`` (both pages' default): the two seats play at once. A seat decides its next move from
the table as it sees it at that instant; the move lands after a think time drawn from the seat's
own distribution (a gamma distribution of mean ``think[seat]`` seconds and shape ``shape``, so a
faster player is a seat with a smaller mean). Moves land in time order; a move that is no longer
legal when it lands (the other seat took the foundation slot or the pile first) is put back
(counted as a bounce, not recorded) and the seat decides again at once: a foundation slot goes to
the first card legally placed. A seat whose player has no move is idle until the other seat's
next move lands. The race ends when a seat has finished, when both seats are idle (a mutual
block), when the same table recurs ``MAX_REPEATS`` times (moves to and fro are not progress), or
after ``max_moves`` moves.

``turns`` (Pagat): the seat to play makes every move it wants and turns the stock once, which
ends its turn; a seat with no move passes (recorded as ``pass``). The first seat is the one with
the lower card on its one-card pile (ties: the two-card pile, ...). Two passes in a row end the
game as a mutual block; repetitions and ``max_moves`` as in the race.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..errors import InputError
from .table import PASS, TURN, IllegalMove, RaceMove, RaceView, Table

RACE, TURNS = "race", "turns"
MODES = (RACE, TURNS)
FINISHED, BLOCKED, REPEATED, MOVE_LIMIT = "finished", "blocked", "repetition", "move limit"
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
        if len(self.think) != 2 or not all(t > 0 for t in self.think) or not self.shape > 0:
            raise InputError(f"think times must be two positive means, got {self.think!r}")

    def wait(self, rng: random.Random, seat: int) -> float:
        return rng.gammavariate(self.shape, self.think[seat] / self.shape)


@dataclass(frozen=True)
class Outcome:
    """How a game went: its ``moves`` in the order they were played, ``times`` when each landed
    (race mode; empty in turns), ``end`` (finished, blocked, repetition, move limit), the seat
    that started (turns) and each seat's bounced moves."""

    moves: tuple[RaceMove, ...]
    times: tuple[float, ...]
    end: str
    first: int
    bounced: tuple[int, int]


class _Ends:
    """The ends that come after a move: a seat finished (either seat: in the open race a move of
    one seat can carry the other's last card away), a table seen ``MAX_REPEATS`` times, the move
    limit."""

    def __init__(self, max_moves: int) -> None:
        self._seen: Counter[tuple] = Counter()
        self._max_moves = max_moves

    def after(self, table: Table, moves: int) -> str | None:
        if table.finished(0) or table.finished(1):
            return FINISHED
        key = table.key()
        self._seen[key] += 1
        if self._seen[key] >= MAX_REPEATS:
            return REPEATED
        return MOVE_LIMIT if moves >= self._max_moves else None


def play(table: Table, players: Sequence[RacePlayer], mode: str = RACE, clock: Clock = Clock(),
         rng: random.Random | None = None, max_moves: int = DEFAULT_MAX_MOVES) -> Outcome:
    """Play ``table`` to its end with ``players`` (seat A's, seat B's) in ``mode``; ``rng`` draws
    the think times."""
    if mode == RACE:
        return _race(table, players, clock, rng or random.Random(0), max_moves)
    if mode == TURNS:
        return _turns(table, players, max_moves)
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
    while end is None:
        live = [(p[0], s, p[1]) for s, p in enumerate(pending) if p is not None]
        if not live:
            end = BLOCKED
            break
        now, seat, move = min(live, key=lambda item: item[:2])
        try:
            table.apply(move)
        except IllegalMove:  # too late: put back
            table.bounced[seat] += 1
        else:
            moves.append(move)
            times.append(now)
            end = ends.after(table, len(moves))
            if end is None and pending[1 - seat] is None:
                decide(1 - seat, now)
        if end is None:
            decide(seat, now)
    return Outcome(tuple(moves), tuple(times), end, 0, (table.bounced[0], table.bounced[1]))


def _turns(table: Table, players: Sequence[RacePlayer], max_moves: int) -> Outcome:
    seat = first = table.first_to_move()
    moves: list[RaceMove] = []
    ends = _Ends(max_moves)
    passes = 0
    end = None
    while end is None:
        move = players[seat].choose(table.view(seat))
        if move is None:
            moves.append(RaceMove(seat, PASS))
            passes += 1
            end = BLOCKED if passes == 2 else None
            seat = 1 - seat
            continue
        passes = 0
        table.apply(move)
        moves.append(move)
        end = ends.after(table, len(moves))
        if move.kind == TURN:
            seat = 1 - seat
    return Outcome(tuple(moves), (), end, first, (0, 0))
