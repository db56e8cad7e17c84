"""Crapette players: random, greedy (rules of thumb), search (looks ahead within its turn) and
planner (plans its turn up to each draw and follows the plan).

A player is made per round and seat with a seed (:func:`make_player`) and asked
:meth:`Player.choose` only when the rules leave more than one move. Players read the table but
use only what the seat to move can see: face-down reserve cards and the draw piles are unknown
(the search player works on :meth:`Table.masked`, where they are :data:`HIDDEN`).
"""
from __future__ import annotations

import random
from typing import Protocol

from ..errors import InputError
from .game import (DISCARD, DRAW, FOUNDATION, HAND, HOUSE_COUNT, OPP_RESERVE, OPP_WASTE, PASS, PLAY, RESERVE, TURN,
                   WASTE, Move, Round, Table)
from .rules import ALL_KINDS, HIDDEN, HOUSE_ACCEPTS, HOUSE_KEY, HOUSE_NEED, LOAD_MATCHES, load_accepts


class Player(Protocol):
    name: str

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        """One of ``moves`` (the legal moves, at least two) for the seat to move in ``rnd``."""


class RandomPlayer:
    """Any legal move, uniformly at random."""

    name = "random"

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        return self.rng.choice(moves)


def _helps(t: Table, move: Move) -> bool:
    """Whether moving a house top (to a house) pays now: it empties its house while the mover has
    a reserve card to fill it, or it bares a card that goes to a foundation or takes the mover's
    reserve top."""
    pile = t.houses[move.src]
    if len(pile) == 1:
        return bool(t.reserve[t.turn])
    under = pile[-2]
    if t.can_found(under):
        return True
    reserve = t.reserve[t.turn]
    return bool(reserve) and HOUSE_KEY[reserve[-1]] == HOUSE_NEED[under]


def greedy_score(t: Table, move: Move) -> int:
    """Rules of thumb, higher first: foundation moves (from the reserve, drawn card or waste first);
    loading the opponent with own cards; own cards onto houses; loading house tops; house moves
    that pay (see :func:`_helps`); drawing, turning the waste, passing; house moves that do not."""
    if move.kind != PLAY:
        return 0
    own = move.src in (RESERVE, HAND, WASTE)
    dst = move.dst
    if dst == FOUNDATION:
        return 100 if own else 90
    if dst in (OPP_RESERVE, OPP_WASTE):
        return 70 + (dst == OPP_RESERVE) if own else 20
    if own:
        return 50 if t.houses[dst] else 45
    return 30 if _helps(t, move) else -10


class GreedyPlayer:
    """The best move by :func:`greedy_score` (the first of equals: deterministic)."""

    name = "greedy"

    def __init__(self, seed: str) -> None:
        del seed  # deterministic; the seed is taken for a uniform interface

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        t = rnd.table
        return max(moves, key=lambda m: greedy_score(t, m))


LOADS = {match: load_accepts(match) for match in LOAD_MATCHES}  # per load match, as load_accepts


def shared_accepts(t: Table) -> int:
    """Bit mask of the kinds (0..51) that fit on a house or a foundation of ``t`` (empty houses
    take any kind)."""
    bits = 0
    for pile in t.houses:
        bits |= HOUSE_ACCEPTS[pile[-1]] if pile else ALL_KINDS
    for s in range(4):
        for f in (t.found[2 * s], t.found[2 * s + 1]):
            if len(f) < 13:
                bits |= 1 << (len(f) * 4 + s)
    return bits


def loads_onto(t: Table, seat: int, accepts: list[int]) -> int:
    """Bit mask of the kinds that may be loaded onto ``seat``'s reserve top or waste top
    (``accepts``: :data:`LOADS` of the rules' match)."""
    bits = 0
    for pile in (t.reserve[seat], t.waste[seat]):
        if pile:
            bits |= accepts[pile[-1]]
    return bits


def reserve_top_fits(t: Table, seat: int, fits: int) -> bool:
    """Whether ``seat``'s reserve top is face up (not :data:`HIDDEN`) and of a kind in ``fits``."""
    top = t.reserve[seat][-1] if t.reserve[seat] else HIDDEN
    return top != HIDDEN and bool((1 << (top % 52)) & fits)


def turn_key(t: Table) -> bytes:
    """The position within a turn, houses in any order (what changes within a turn only)."""
    me = t.turn
    them = 1 - me
    tops = [pile[-1] for pile in (t.reserve[them], t.waste[them]) if pile]
    return b"|".join(sorted(bytes(h) for h in t.houses)) + bytes(
        (*map(len, t.found), len(t.reserve[me]), len(t.reserve[them]), len(t.waste[me]),
         len(t.waste[them]), *tops, t.hand + 1))


MOVE_COST = 0.001
WIN = 1000.0  # the value of going out, for the planner


class SearchPlayer:
    """Looks ahead over its own moves up to the next unknown card (a draw, or a face-down reserve
    card turned up) and takes the line that leaves the best position by :meth:`value`: cards left
    (2 a reserve card, 1 a draw or waste card, the opponent's counting for it), the chance that
    its next drawn card plays, and what the position leaves the opponent when the turn ends (its
    visible reserve top playable; the kinds it could play from its draw pile, weight 0 by default
    as it played worse against greedy: see the README). Depth-first,
    at most ``depth`` moves deep and ``budget`` positions per decision, no position (houses in
    any order) searched twice in a turn, at most ``max_house_moves`` moves between houses a turn."""

    name = "search"

    def __init__(self, seed: str, depth: int = 8, budget: int = 400, draw_weight: float = 3.0,
                 open_weight: float = 0.0, reserve_weight: float = 1.0,
                 max_house_moves: int = 20) -> None:
        del seed  # deterministic
        self.depth, self.budget = depth, budget
        self.draw_weight, self.open_weight, self.reserve_weight = draw_weight, open_weight, reserve_weight
        self._turn: tuple[int, int] = (-1, -1)
        self._visited: set[bytes] = set()
        self._house_moves = 0
        self.max_house_moves = max_house_moves

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        t = rnd.table.masked()
        self._load = LOADS[t.options.load_match]
        if (rnd.turns, t.turn) != self._turn:
            self._turn, self._visited, self._house_moves = (rnd.turns, t.turn), set(), 0
        self._visited.add(turn_key(t))
        self._nodes = 0
        self._seen = set(self._visited)
        if self._house_moves >= self.max_house_moves:
            moves = [m for m in moves if not (m.src < HOUSE_COUNT and m.dst < HOUSE_COUNT)] or moves
        best, best_value = moves[0], float("-inf")
        for move in moves:
            value = self._line(t, move, self.depth)
            if value > best_value:
                best, best_value = move, value
        self._house_moves += best.kind == PLAY and best.src < HOUSE_COUNT and best.dst < HOUSE_COUNT
        return best

    def _line(self, t: Table, move: Move, depth: int) -> float:
        """The value of the best line that starts with ``move``, less :data:`MOVE_COST` a move
        (so that of equal positions the nearest is taken, and nothing moves back and forth).
        Positions met before in this search or at an earlier decision of this turn are not
        searched again (worth nothing)."""
        if move.kind not in (PLAY, DISCARD):  # a draw, or turning the waste or passing (the turn ends)
            return self.value(t, turn_ends=move.kind == PASS or (move.kind == TURN and t.options.turn_ends_turn))
        saved = t.apply(move)
        self._nodes += 1
        reserve = t.reserve[t.turn]
        key = turn_key(t)
        if key in self._seen:
            value = float("-inf")
        elif move.kind == DISCARD:
            value = self.value(t, turn_ends=True)
        elif (depth == 0 or self._nodes >= self.budget
                or (reserve and reserve[-1] == HIDDEN)):
            value = self.value(t)
        else:
            self._seen.add(key)
            value = max(self._line(t, m, depth - 1) for m in t.legal_moves())
        t.undo(move, saved)
        return value - MOVE_COST

    def value(self, t: Table, turn_ends: bool = False) -> float:
        """How good ``t`` is for the seat to move, about to draw (``turn_ends`` false) or ending
        its turn: the cards left (the opponent's less its own, as the scoring counts them), plus
        ``draw_weight`` times the share of the 52 kinds of card it could play if it drew one,
        less, if the turn ends (after a draw, with the chance that the drawn card does not play),
        what it leaves the opponent: ``open_weight`` times the share of kinds the opponent could
        play from its draw pile, and ``reserve_weight`` if the opponent's reserve top can be played."""
        me = t.turn
        them = 1 - me
        shared = shared_accepts(t)
        theirs = shared | loads_onto(t, me, self._load)
        threat = self.open_weight * theirs.bit_count() / 52
        if reserve_top_fits(t, them, theirs):
            threat += self.reserve_weight
        value = float(t.left(them) - t.left(me))
        if turn_ends:
            return value - threat
        chance = (shared | loads_onto(t, them, self._load)).bit_count() / 52
        return value + self.draw_weight * chance - (1 - chance) * threat


class PlannerPlayer:
    """Plans each stretch of its turn up to the next unknown card: every order of foundation
    plays, house moves, loads onto the opponent and plays of the drawn card or waste top that
    ends in a draw (or the turn's end, or a face-down reserve card turned up), searched
    depth-first, at most ``depth`` moves deep, the ``breadth`` most promising plays a position
    (by :func:`greedy_score`), ``budget`` positions a plan, no position (houses in any order)
    twice in a turn. It follows the best line's moves without searching again until the line
    ends (the next draw) or the table is not where the line expected it.

    The value of a line's end (:meth:`value`), from the seat to move's side: the opponent's cards
    left less its own as the scoring counts them (a card out of the reserve, the crapette pile,
    counts 2: freeing its top pays double), ``found_weight`` a card on the foundations, and
    about a draw the chance ``p`` that the drawn card plays, read over the cards of its own deck
    it has not seen (those still face down or in its draw pile): ``p * draw_weight``, or ``p *``
    :data:`WIN` when that card is the last it holds; less ``threat_weight``, when the turn ends
    (a draw that does not play: ``1 - p``), if the opponent's visible reserve top then fits
    somewhere. Going out is worth :data:`WIN`. Deterministic: the seed is not used."""

    name = "planner"

    def __init__(self, seed: str, depth: int = 10, breadth: int = 5, budget: int = 150,
                 draw_weight: float = 3.0, found_weight: float = 0.25, threat_weight: float = 1.0) -> None:
        del seed  # deterministic
        self.depth, self.breadth, self.budget = depth, breadth, budget
        self.draw_weight, self.found_weight, self.threat_weight = draw_weight, found_weight, threat_weight
        self._turn: tuple[int, int] = (-1, -1)
        self._visited: set[bytes] = set()
        self._plan: list[Move] = []
        self._expect = b""

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        t = rnd.table.masked()
        if (rnd.turns, t.turn) != self._turn:
            self._turn, self._visited, self._plan = (rnd.turns, t.turn), set(), []
        key = turn_key(t)
        self._visited.add(key)
        real = {self._id(m): m for m in moves}
        if not (self._plan and key == self._expect and self._id(self._plan[0]) in real):
            self._plan = self._search_from(t) or [moves[0]]
        move = self._plan.pop(0)
        if move.kind == PLAY and self._plan:
            t.apply(move)
            self._expect = turn_key(t)
        else:
            self._plan = []
        return real[self._id(move)]

    @staticmethod
    def _id(move: Move) -> tuple[int | str, ...]:
        """A move as the masked table and the real one both know it (a draw's card is hidden)."""
        return (move.kind, move.card if move.kind == PLAY else -1, move.src, move.dst)

    def _search_from(self, t: Table) -> list[Move]:
        """The best line from ``t`` (empty if every move leads back to a position of this turn)."""
        me = t.turn
        seen = {c for piles in (t.reserve, t.houses, t.found, t.draw, t.waste) for pile in piles for c in pile}
        self._unseen = sum(1 << (c - 52 * me) for c in range(52 * me, 52 * me + 52)
                           if c not in seen and c != t.hand)
        self._load = LOADS[t.options.load_match]
        self._nodes = 0
        self._seen = set(self._visited)
        return self._best(t, self.depth)[1]

    def _best(self, t: Table, depth: int) -> tuple[float, list[Move]]:
        """(value, line) of the best line from ``t``, less :data:`MOVE_COST` a move."""
        legal = t.legal_moves()
        plays = sorted((m for m in legal if m.kind == PLAY), key=lambda m: -greedy_score(t, m))
        best: tuple[float, list[Move]] = (float("-inf"), [])
        for move in plays[:self.breadth] + [m for m in legal if m.kind != PLAY]:
            if move.kind != PLAY:
                value, line = self._end_value(t, move), [move]
            else:
                saved = t.apply(move)
                key = turn_key(t)
                if key in self._seen:
                    t.undo(move, saved)
                    continue
                self._seen.add(key)
                self._nodes += 1
                reserve = t.reserve[t.turn]
                line = [move]
                if t.is_out(t.turn):
                    value = WIN
                elif depth <= 1 or self._nodes >= self.budget or (reserve and reserve[-1] == HIDDEN):
                    value = self.value(t, drawing=True)
                else:
                    value, rest = self._best(t, depth - 1)
                    line += rest
                t.undo(move, saved)
            if value - MOVE_COST > best[0]:
                best = (value - MOVE_COST, line)
        return best

    def _end_value(self, t: Table, move: Move) -> float:
        """The value of ending a stretch with ``move``: a draw (or turning the waste into a draw
        pile the turn goes on with), or the turn's end (a discard, a pass, turning the waste)."""
        if move.kind == DRAW or (move.kind == TURN and not t.options.turn_ends_turn):
            return self.value(t, drawing=True)
        if move.kind != DISCARD:
            return self.value(t, drawing=False)
        saved = t.apply(move)
        value = self.value(t, drawing=False)
        t.undo(move, saved)
        return value

    def value(self, t: Table, drawing: bool) -> float:
        """The value of ``t`` for the seat to move, about to draw (or to turn up a face-down
        reserve card) or, not ``drawing``, ending its turn (see the class docstring)."""
        me = t.turn
        them = 1 - me
        shared = shared_accepts(t)
        value = t.left(them) - t.left(me) + self.found_weight * sum(map(len, t.found))
        threat = self.threat_weight * reserve_top_fits(t, them, shared | loads_onto(t, me, self._load))
        if not drawing:
            return value - threat
        unseen = self._unseen.bit_count()
        p = ((shared | loads_onto(t, them, self._load)) & self._unseen).bit_count() / unseen if unseen else 0.0
        last = not (t.reserve[me] or t.waste[me]) and len(t.draw[me]) == 1
        return value + p * (WIN if last else self.draw_weight) - (1 - p) * threat


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer, "search": SearchPlayer, "planner": PlannerPlayer}


def make_player(kind: str, seed: str) -> Player:
    """A new player of ``kind`` (``random``, ``greedy``, ``search``, ``planner``) seeded with ``seed``."""
    try:
        return PLAYERS[kind](seed)
    except KeyError:
        raise InputError(f"unknown player {kind!r} (players: {', '.join(PLAYERS)})") from None


def player_seed(round_seed: int, seat: int) -> str:
    """The seed of the player in ``seat`` for the round dealt by ``round_seed``."""
    return f"crapette {round_seed} seat {seat}"

