"""Crapette players: random, greedy (rules of thumb) and search (looks ahead within its turn).

A player is made per round and seat with a seed (:func:`make_player`) and asked
:meth:`Player.choose` only when the rules leave more than one move. Players read the table but
use only what the seat to move can see: face-down reserve cards and the draw piles are unknown
(the search player works on :meth:`Table.masked`, where they are :data:`HIDDEN`).
"""
from __future__ import annotations

import random
from typing import Protocol

from ..errors import InputError
from .game import (DISCARD, FOUNDATION, HAND, HOUSE_COUNT, OPP_RESERVE, OPP_WASTE, PASS, PLAY, RESERVE, TURN,
                   WASTE, Move, Round, Table)
from .rules import ALL_KINDS, HIDDEN, HOUSE_ACCEPTS, HOUSE_KEY, HOUSE_NEED, load_accepts


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


MOVE_COST = 0.001


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
        self._accepts: dict[str, list[int]] = {}
        self._turn: tuple[int, int] = (-1, -1)
        self._visited: set[bytes] = set()
        self._house_moves = 0
        self.max_house_moves = max_house_moves

    def choose(self, rnd: Round, moves: list[Move]) -> Move:
        t = rnd.table.masked()
        match = t.options.load_match
        if match not in self._accepts:
            self._accepts[match] = load_accepts(match)
        self._load = self._accepts[match]
        if (rnd.turns, t.turn) != self._turn:
            self._turn, self._visited, self._house_moves = (rnd.turns, t.turn), set(), 0
        self._visited.add(self._key(t))
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

    @staticmethod
    def _key(t: Table) -> bytes:
        """The position within a turn, houses in any order (what changes within a turn only)."""
        me = t.turn
        them = 1 - me
        tops = [pile[-1] for pile in (t.reserve[them], t.waste[them]) if pile]
        return b"|".join(sorted(bytes(h) for h in t.houses)) + bytes(
            (*map(len, t.found), len(t.reserve[me]), len(t.reserve[them]), len(t.waste[me]), len(t.waste[them]),
             *tops, t.hand + 1))

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
        key = self._key(t)
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
        shared = 0
        for pile in t.houses:
            shared |= HOUSE_ACCEPTS[pile[-1]] if pile else ALL_KINDS
        for s in range(4):
            for f in (t.found[2 * s], t.found[2 * s + 1]):
                if len(f) < 13:
                    shared |= 1 << (len(f) * 4 + s)
        theirs = shared
        for pile in (t.reserve[me], t.waste[me]):
            if pile:
                theirs |= self._load[pile[-1]]
        threat = self.open_weight * theirs.bit_count() / 52
        top = t.reserve[them][-1] if t.reserve[them] else HIDDEN
        if top != HIDDEN and (1 << (top % 52)) & theirs:
            threat += self.reserve_weight
        value = float(t.left(them) - t.left(me))
        if turn_ends:
            return value - threat
        mine = shared
        for pile in (t.reserve[them], t.waste[them]):
            if pile:
                mine |= self._load[pile[-1]]
        chance = mine.bit_count() / 52
        return value + self.draw_weight * chance - (1 - chance) * threat


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer, "search": SearchPlayer}


def make_player(kind: str, seed: str) -> Player:
    """A new player of ``kind`` (``random``, ``greedy``, ``search``) seeded with ``seed``."""
    try:
        return PLAYERS[kind](seed)
    except KeyError:
        raise InputError(f"unknown player {kind!r} (players: {', '.join(PLAYERS)})") from None


def player_seed(round_seed: int, seat: int) -> str:
    """The seed of the player in ``seat`` for the round dealt by ``round_seed``."""
    return f"crapette {round_seed} seat {seat}"

