"""Crapette's engine: the deal, the position and its legal moves in the compulsory order, and a
round from the deal to its score, every move checked.

A :class:`Table` is the position: per seat a reserve (face-down cards at the bottom, the top face
up), a draw pile and a waste; eight houses (0..3 dealt by seat A, 4..7 by seat B) and eight
foundations shared; the player to move, the card it has turned from its draw pile (``hand``) and
a house waiting to be filled from the reserve. Lists hold cards bottom to top. A :class:`Round`
plays a table from the deal: it checks every move against :meth:`Table.legal_moves`, ends turns,
detects the end of the round (a player out, a stalemate) and scores it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import InputError
from .rules import (CARDS, HIDDEN, HOUSE_COUNT, HOUSE_KEY, HOUSE_NEED, LOAD_TABLES, RANK, SUIT,
                    Options, ascii_whole, kind_of, name)

# Where a card moves from (houses are 0..7) and to.
RESERVE, HAND, DRAW_PILE, WASTE = 8, 9, 10, 11
FOUNDATION, OPP_RESERVE, OPP_WASTE = 12, 13, 14
# Move kinds.
PLAY, DRAW, DISCARD, TURN, PASS = "play", "draw", "discard", "turn", "pass"

_PLACE_NAMES = {RESERVE: "res", HAND: "hand", WASTE: "waste", FOUNDATION: "found",
                OPP_RESERVE: "opp-res", OPP_WASTE: "opp-waste"}
SEATS = "AB"


class IllegalMove(InputError):
    """A move the rules do not allow in the position (or after the round is over)."""


def place_name(place: int) -> str:
    """``h1``..``h8`` for the houses, else ``res``, ``hand``, ``waste``, ``found``, ``opp-res``,
    ``opp-waste``."""
    return f"h{place + 1}" if place < HOUSE_COUNT else _PLACE_NAMES[place]


class Move(NamedTuple):
    """One move. ``play``: ``card`` from ``src`` (a house, ``RESERVE``, ``HAND`` or ``WASTE``) to ``dst``
    (a house, ``FOUNDATION``, ``OPP_RESERVE``, ``OPP_WASTE``); ``draw``: turn the draw pile's top
    card; ``discard``: the drawn card, which cannot be played, to the waste (ends the turn);
    ``turn``: the waste turned over as the new draw pile; ``pass``: end a turn with nothing to draw."""

    kind: str
    card: int = -1
    src: int = -1
    dst: int = -1

    def __str__(self) -> str:
        if self.kind == PLAY:
            return f"{name(self.card)} {place_name(self.src)}>{place_name(self.dst)}"
        if self.kind in (DRAW, DISCARD):
            return f"{self.kind} {name(self.card)}"
        return self.kind


@dataclass(frozen=True)
class RoundResult:
    """How a round ended: ``end`` is ``out`` (``winner`` emptied reserve, draw pile and waste),
    ``stalemate`` or ``turn limit`` (``winner`` -1); ``points`` earned per seat; ``left`` each
    seat's count of cards left, 2 per reserve card and 1 per draw pile or waste card."""

    end: str
    winner: int
    points: tuple[int, int]
    left: tuple[int, int]


class Table:
    """A Crapette position and its rules: the legal moves, and moves made and unmade unchecked."""

    __slots__ = ("options", "reserve", "down", "houses", "found", "draw", "waste", "hand", "turn",
                 "fill", "_load_key", "_load_need")

    def __init__(self, options: Options, reserve: list[list[int]], down: list[int],
                 houses: list[list[int]], found: list[list[int]], draw: list[list[int]],
                 waste: list[list[int]], turn: int, hand: int = -1, fill: int = -1) -> None:
        self.options = options
        self.reserve, self.down, self.houses, self.found = reserve, down, houses, found
        self.draw, self.waste, self.turn, self.hand, self.fill = draw, waste, turn, hand, fill
        self._load_key, self._load_need = LOAD_TABLES[options.load_match]

    def copy(self) -> "Table":
        return Table(self.options, [r[:] for r in self.reserve], self.down[:],
                     [h[:] for h in self.houses], [f[:] for f in self.found],
                     [d[:] for d in self.draw], [w[:] for w in self.waste], self.turn, self.hand, self.fill)

    def masked(self) -> "Table":
        """A copy in which the cards the player to move cannot see (face-down reserve cards and
        both draw piles) are :data:`HIDDEN`."""
        t = self.copy()
        for p in (0, 1):
            t.reserve[p][:t.down[p]] = [HIDDEN] * t.down[p]
            t.draw[p] = [HIDDEN] * len(t.draw[p])
        return t

    # -- reading the position -------------------------------------------------------------------

    def can_found(self, card: int) -> bool:
        """Whether ``card`` goes onto one of the two foundations of its suit."""
        rank, s = RANK[card], SUIT[card] * 2
        return len(self.found[s]) == rank or len(self.found[s + 1]) == rank

    def left(self, seat: int) -> int:
        """Cards ``seat`` still holds, as the scoring counts them: 2 a reserve card, 1 a draw pile
        or waste card (and its drawn card)."""
        return (2 * len(self.reserve[seat]) + len(self.draw[seat]) + len(self.waste[seat])
                + (self.hand >= 0 and self.turn == seat))

    def is_out(self, seat: int) -> bool:
        return not (self.reserve[seat] or self.draw[seat] or self.waste[seat]
                    or (self.hand >= 0 and self.turn == seat))

    def all_cards(self) -> list[int]:
        """Every card on the table (piles, foundations, the drawn card): 104 ids when whole."""
        cards = [c for piles in (self.reserve, self.houses, self.found, self.draw, self.waste)
                 for pile in piles for c in pile]
        return cards + [self.hand] if self.hand >= 0 else cards

    def key(self) -> bytes:
        """The position at a turn's start, for the stalemate rule: everything but where each
        draw pile ends and its waste begins (the draw pile top-down then the waste bottom-up is one
        cycle, which drawing, discarding and turning the waste only rotate), and which foundation
        of a suit holds which of its twin cards."""
        parts = [self.turn, *self.down, *map(len, self.found)]
        for h in self.houses:
            parts += h
            parts.append(255)
        for p in (0, 1):
            parts += self.reserve[p]
            parts.append(255)
            cycle = self.draw[p][::-1] + self.waste[p]
            if cycle:
                start = cycle.index(min(cycle))
                parts += cycle[start:]
                parts += cycle[:start]
            parts.append(255)
        return bytes(parts)

    # -- the rules ------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The moves the compulsory order allows now, in a fixed order.

        1. A house emptied this turn is filled from the reserve first.
        2. A drawn card goes to a foundation if it can, else onto a house or the opponent's
           reserve or waste if it can, else to the waste.
        3. Cards that can go to a foundation (reserve top, house tops, the waste top when it is
           playable) go first.
        4. The reserve top, when it can be played, is played first (``reserve_first``), or at
           least before the next draw.
        5. Then house moves and loads from houses, in any order, plays of the waste top (with the
           draw pile empty and ``waste_playable``), and drawing: the draw pile's top, or with the
           draw pile empty, turning the waste over, or with both empty, passing.
        """
        p = self.turn
        reserve = self.reserve[p]
        if self.fill >= 0:
            return [Move(PLAY, reserve[-1], RESERVE, self.fill)]
        houses = self.houses
        if self.hand >= 0:
            card = self.hand
            if self.can_found(card):
                return [Move(PLAY, card, HAND, FOUNDATION)]
            return self._targets(card, HAND) or [Move(DISCARD, card, HAND, WASTE)]
        tops = [(h, pile[-1]) for h, pile in enumerate(houses) if pile]
        waste = self.waste[p][-1] if self.options.waste_playable and self.waste[p] and not self.draw[p] else -1
        found = [Move(PLAY, t, h, FOUNDATION) for h, t in tops if self.can_found(t)]
        if waste >= 0 and self.can_found(waste):
            found.append(Move(PLAY, waste, WASTE, FOUNDATION))
        if reserve and self.can_found(reserve[-1]):
            found.insert(0, Move(PLAY, reserve[-1], RESERVE, FOUNDATION))
        if found:
            return found
        moves = self._targets(reserve[-1], RESERVE) if reserve else []
        if moves and self.options.reserve_first:
            return moves
        load = self.options.load_from_houses
        for h, t in tops:
            moves += self._targets(t, h, load)
        if waste >= 0:
            moves += self._targets(waste, WASTE)
        if not (reserve and moves and moves[0].src == RESERVE):
            if self.draw[p]:
                moves.append(Move(DRAW, self.draw[p][-1], DRAW_PILE, HAND))
            elif self.waste[p]:
                moves.append(Move(TURN, -1, WASTE, DRAW_PILE))
            else:
                moves.append(Move(PASS))
        return moves

    def _targets(self, card: int, src: int, load: bool = True) -> list[Move]:
        """The plays of ``card`` from ``src`` onto houses and (with ``load``) the opponent's
        reserve and waste. A house's only card does not move to an empty house (nothing changes)."""
        out = []
        key = HOUSE_KEY[card]
        alone = src < HOUSE_COUNT and len(self.houses[src]) == 1
        empty_ok = self.options.empty_house == "any" and not alone
        for h, pile in enumerate(self.houses):
            if h == src:
                continue
            if pile:
                if HOUSE_NEED[pile[-1]] == key:
                    out.append(Move(PLAY, card, src, h))
            elif empty_ok:
                out.append(Move(PLAY, card, src, h))
        if load:
            o = 1 - self.turn
            lkey = self._load_key[card]
            if self.reserve[o] and lkey in self._load_need[self.reserve[o][-1]]:
                out.append(Move(PLAY, card, src, OPP_RESERVE))
            if self.waste[o] and lkey in self._load_need[self.waste[o][-1]]:
                out.append(Move(PLAY, card, src, OPP_WASTE))
        return out

    # -- making and unmaking moves (unchecked: Round.play checks) --------------------------------

    def apply(self, move: Move) -> tuple[int, int]:
        """Make ``move`` (no check); returns what :meth:`undo` needs for a ``play`` or ``discard``."""
        p = self.turn
        kind = move.kind
        if kind == PLAY:
            undo = (self.fill, self.down[p])
            card, src, dst = move.card, move.src, move.dst
            emptied = False
            if src == RESERVE:
                pile = self.reserve[p]
                pile.pop()
                if len(pile) == self.down[p] and pile:
                    self.down[p] -= 1  # the next card is turned face up
            elif src == HAND:
                self.hand = -1
            elif src == WASTE:
                self.waste[p].pop()
            else:
                pile = self.houses[src]
                pile.pop()
                emptied = not pile
            if dst < HOUSE_COUNT:
                self.houses[dst].append(card)
                if dst == self.fill:
                    self.fill = -1
            elif dst == FOUNDATION:
                s = SUIT[card] * 2
                self.found[s if len(self.found[s]) == RANK[card] else s + 1].append(card)
            elif dst == OPP_RESERVE:
                self.reserve[1 - p].append(card)
            else:
                self.waste[1 - p].append(card)
            if emptied and self.reserve[p]:
                self.fill = src
            return undo
        if kind == DRAW:
            self.hand = self.draw[p].pop()
        elif kind == DISCARD:
            self.waste[p].append(self.hand)
            self.hand = -1
        elif kind == TURN:
            self.draw[p] = self.waste[p][::-1]
            self.waste[p] = []
        return (-1, -1)

    def undo(self, move: Move, saved: tuple[int, int]) -> None:
        """Unmake a ``play`` or ``discard`` made by :meth:`apply`, which returned ``saved``."""
        p = self.turn
        if move.kind == DISCARD:
            self.hand = self.waste[p].pop()
            return
        card, src, dst = move.card, move.src, move.dst
        if dst < HOUSE_COUNT:
            self.houses[dst].pop()
        elif dst == FOUNDATION:
            s = SUIT[card] * 2
            self.found[s if self.found[s] and self.found[s][-1] == card else s + 1].pop()
        elif dst == OPP_RESERVE:
            self.reserve[1 - p].pop()
        else:
            self.waste[1 - p].pop()
        if src == RESERVE:
            self.reserve[p].append(card)
        elif src == HAND:
            self.hand = card
        elif src == WASTE:
            self.waste[p].append(card)
        else:
            self.houses[src].append(card)
        self.fill, self.down[p] = saved


def check_seed(seed: object) -> int:
    """A round seed: a whole number >= 0 (given as an int or its decimal text)."""
    if isinstance(seed, str) and (number := ascii_whole(seed)) is not None:
        return number
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        return seed
    raise InputError(f"bad seed {seed!r} (expected a whole number >= 0)")


def deal(seed: int | str, options: Options = Options()) -> Table:
    """The deal of ``seed``: ``random.Random(seed)`` shuffles seat A's deck (ids 0..51, in
    :mod:`dsolve.cards` order) and then seat B's (52..103) with ``shuffle``. Each deck is dealt
    from its front: 13 cards to the reserve (the 13th face up on top), 4 to the seat's houses
    (A: houses 1-4, B: 5-8), and the 35 left form the draw pile, the first of them on top."""
    rng = random.Random(check_seed(seed))
    reserve, houses, draw = [], [], []
    for seat in (0, 1):
        deck = list(range(seat * 52, seat * 52 + 52))
        rng.shuffle(deck)
        reserve.append(deck[:13])
        houses += [[c] for c in deck[13:17]]
        draw.append(deck[17:][::-1])
    return Table(options, reserve, [12, 12], houses, [[] for _ in range(8)], draw, [[], []],
                 first_player(reserve, houses))


def first_player(reserve: list[list[int]], houses: list[list[int]]) -> int:
    """The seat with the lower reserve top starts; on equal ranks, the lower first house card,
    then the second, third and fourth house; seat A if all five are equal."""
    a = [RANK[reserve[0][-1]]] + [RANK[houses[h][0]] for h in range(4)]
    b = [RANK[reserve[1][-1]]] + [RANK[houses[h][0]] for h in range(4, 8)]
    return 1 if b < a else 0


def position(options: Options = Options(), *, reserve: tuple[str, str] = ("", ""),
             houses: tuple[str, ...] = ("",) * 8, found: str = "", draw: tuple[str, str] = ("", ""),
             waste: tuple[str, str] = ("", ""), turn: int = 0, down: tuple[int, int] | None = None,
             fill: bool = True) -> Table:
    """A hand-built position from card names, piles bottom to top (``"KS QH"``); ``found`` names
    the top card of each started foundation (``"5C 2C AH"``). With ``fill`` the unused cards of
    the two decks go under the reserves, face down, so that all 104 cards are on the table;
    ``down`` gives the face-down counts (default: all but the top of each reserve)."""
    pool = list(range(CARDS))

    def take(kind: int) -> int:
        for card in (kind, kind + 52):
            if card in pool:
                pool.remove(card)
                return card
        raise InputError(f"a third {name(kind)} in the position")

    def pile(text: str) -> list[int]:
        return [take(kind_of(t)) for t in text.split()]

    piles: list[list[int]] = [[] for _ in range(8)]
    for top in found.split():
        kind = kind_of(top)
        s = SUIT[kind] * 2
        piles[s if not piles[s] else s + 1] = [take(r * 4 + SUIT[kind]) for r in range(RANK[kind] + 1)]
        if len(piles[s]) < len(piles[s + 1]):  # the engine keeps the taller twin first
            piles[s], piles[s + 1] = piles[s + 1], piles[s]
    tab_houses = [pile(h) for h in houses]
    res, dr, ws = [pile(r) for r in reserve], [pile(d) for d in draw], [pile(w) for w in waste]
    if fill:
        for seat in (0, 1):
            res[seat][:0] = [c for c in pool if c // 52 == seat]
    downs = list(down) if down is not None else [max(0, len(r) - 1) for r in res]
    return Table(options, res, downs, tab_houses, piles, dr, ws, turn)


class Round:
    """A round from a deal (or a position) to its end, every move checked.

    :meth:`legal_moves` lists what the rules allow now; :meth:`play` makes one of them or raises
    :class:`IllegalMove`. Turns end with a discard, a pass, or (``turn_ends_turn``) turning the
    waste over. The round ends when the player to move is out, or at the start of a turn by the
    stalemate rule: the position (:meth:`Table.key`) recurs at the start of a turn and since its
    first occurrence each player has drawn at least as many cards as its draw pile and waste hold
    (has gone through all of them), or after ``options.max_turns`` turns.
    """

    def __init__(self, table: Table, seed: int | None = None) -> None:
        self.table = table
        self.options = table.options
        self.seed = seed
        self.first = table.turn
        self.moves: list[Move] = []
        self.turns = 0
        self.draws = [0, 0]
        self.result: RoundResult | None = None
        self._seen: dict[bytes, tuple[int, int]] = {}
        self._legal: list[Move] | None = None
        self._start_turn()

    @classmethod
    def deal(cls, seed: int | str, options: Options = Options()) -> "Round":
        """The round dealt by ``seed`` (see :func:`deal`)."""
        seed = check_seed(seed)
        return cls(deal(seed, options), seed)

    @property
    def turn(self) -> int:
        """The seat to move: 0 (A) or 1 (B)."""
        return self.table.turn

    def legal_moves(self) -> list[Move]:
        if self.result is not None:
            return []
        if self._legal is None:
            self._legal = self.table.legal_moves()
        return self._legal

    def play(self, move: Move) -> None:
        """Make ``move``; :class:`IllegalMove` (with the reason and the legal moves) if the
        rules do not allow it now."""
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalMove(self._why_illegal(move, legal))
        self._legal = None
        t = self.table
        p = t.turn
        t.apply(move)
        self.moves.append(move)
        kind = move.kind
        if kind == PLAY:
            if move.dst == FOUNDATION:
                self._seen.clear()  # a position before it can never recur
            if t.is_out(p):
                self._finish("out", p)
        elif kind == DRAW:
            self.draws[p] += 1
        elif kind != TURN or self.options.turn_ends_turn:
            t.turn = 1 - p
            self.turns += 1
            self._start_turn()

    def play_text(self, text: str) -> Move:
        """Make the legal move written ``text`` (as ``str(move)`` writes it) and return it."""
        for move in self.legal_moves():
            if str(move) == text.strip():
                self.play(move)
                return move
        raise IllegalMove(self._why_illegal(text.strip(), self.legal_moves()))

    def _start_turn(self) -> None:
        t = self.table
        if self.turns >= self.options.max_turns:
            self._finish("turn limit", -1)
            return
        key = t.key()
        first = self._seen.get(key)
        if first is None:
            self._seen[key] = (self.draws[0], self.draws[1])
        elif all(self.draws[p] - first[p] >= len(t.draw[p]) + len(t.waste[p]) for p in (0, 1)):
            self._finish("stalemate", -1)

    def _finish(self, end: str, winner: int) -> None:
        left = (self.table.left(0), self.table.left(1))
        points = [0, 0]
        if end == "out":
            points[winner] = 30 + left[1 - winner]
        elif left[0] != left[1]:
            points[0 if left[0] < left[1] else 1] = abs(left[0] - left[1])
        self.result = RoundResult(end, winner, (points[0], points[1]), left)
        self._legal = []

    def _why_illegal(self, move: Move | str, legal: list[Move]) -> str:
        t = self.table
        shown = ", ".join(map(str, legal[:12])) + (", ..." if len(legal) > 12 else "")
        if self.result is not None:
            return f"illegal move {move}: the round is over ({self.result.end})"
        if t.fill >= 0:
            reason = f"house {place_name(t.fill)} was emptied and must be filled from the reserve first"
        elif t.hand >= 0:
            reason = f"the drawn {name(t.hand)} must be played if it can, else go to the waste"
        elif all(m.dst == FOUNDATION for m in legal):
            reason = "cards that can go to a foundation must go first"
        elif all(m.src == RESERVE for m in legal):
            reason = (f"the reserve top {name(t.reserve[t.turn][-1])} can be played and must be "
                      "played first")
        elif isinstance(move, Move) and move.kind == DRAW and not any(m.kind == DRAW for m in legal):
            reason = "no draw while the reserve top can be played or the draw pile is empty"
        else:
            reason = "the rules do not allow it here"
        return f"illegal move {move} for seat {SEATS[t.turn]}: {reason} (legal: {shown})"


def replay(seed: int | str, moves: list[str], options: Options = Options()) -> Round:
    """The round of ``seed`` replayed from its moves as text, each checked; :class:`IllegalMove`
    at the first that is not legal."""
    rnd = Round.deal(seed, options)
    for number, text in enumerate(moves, 1):
        try:
            rnd.play_text(text)
        except IllegalMove as err:
            raise IllegalMove(f"move {number}: {err}") from None
    return rnd
