"""A plain, pure-Python Klondike rules engine: the independent judge of the native solver.

It is written for clarity, not speed, and shares no code with the solver: it checks every
move the solver reports (:func:`replay`), and :mod:`.brute` decides small deals by searching
over it, so the solver's verdicts can be cross-checked.

Rules (thoughtful Klondike: all cards are known, but face-down cards still cannot move):

* ``turn`` moves ``min(draw, len(stock))`` cards from the stock to the waste one at a time, so
  the last of them ends on top; only the waste top is playable. ``turn`` needs a non-empty stock.
* ``redeal`` (stock empty, waste not empty) turns the waste over, restoring the stock's
  original relative order, and begins a new pass. ``passes=P`` allows P passes (P-1 redeals).
* Foundations, one per suit, are built A upward in suit. With ``worry_back`` a foundation's top
  card may return to the tableau. Two decks (``rules.decks``): with 4 foundations a suit's
  foundation is built A..K, then the second ace on that king and A..K again (kept as two piles,
  the second begun once the first is complete); with 8, each suit has two piles, each A..K, and
  a card goes onto the first of its suit's piles that takes it (the two are interchangeable, so
  the choice loses nothing; a worried-back card leaves the first pile it tops).
* The tableau builds down in alternating colour. A face-up run in sequence moves as a block; only
  a pile's top card goes to a foundation. An empty pile takes a king (the shape's highest rank) or
  king-headed run (``empty_rule='king'``), anything (``'any'``) or nothing (``'none'``). When the
  last face-up card of a pile leaves, the face-down card beneath is turned up.
* The game is won when every card is on the foundations.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..cards import RANKS, SUITS, DeckShape, card_name, is_red, rank_of, suit_of
from .deal import Deal
from ..errors import InputError
from .moves import (FOUNDATION_TO_TABLEAU, KINDS, REDEAL, TABLEAU_TO_FOUNDATION,
                    TABLEAU_TO_TABLEAU, TURN, WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move,
                    parse_move)
from ..rules import Rules

__all__ = ["IllegalMove", "Game", "Replay", "replay"]


# What building looks at, by card: its rank and colour, and the rank and colour of a card it may lie on.
_LOOK = [(rank_of(card), is_red(card)) for card in range(52)]
_LIES_ON = [(rank_of(card) + 1, not is_red(card)) for card in range(52)]


def _in_sequence(lower: int, upper: int) -> bool:
    """Does ``upper`` build on ``lower``: one rank lower, the other colour?"""
    return _LIES_ON[upper] == _LOOK[lower]


class IllegalMove(Exception):
    """A move the rules forbid; ``str(exc)`` (and ``exc.reason``) says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Game:
    """A Klondike position that can be played forward one checked move at a time.

    ``piles[i]`` is pile i bottom -> top with ``face_down[i]`` face-down cards at its bottom;
    ``stock`` is in turning order (next card to turn first); ``waste`` bottom -> top;
    ``foundations[i]`` is how many cards (A upward) foundation pile i holds, of suit
    ``i % suits`` (one pile a suit with one deck; see the module's rules for two decks);
    ``passes_used`` counts the passes through the stock begun so far (1 at the start).
    """

    def __init__(self, deal: Deal, rules: Rules) -> None:
        if deal.shape.decks != rules.decks:
            raise InputError(f"the deal has {deal.shape.decks} deck(s) but the rules are for {rules.decks}")
        self.shape: DeckShape = deal.shape
        self.rules: Rules = rules
        self.piles: list[list[int]] = [list(p) for p in deal.tableau]
        self.face_down: list[int] = list(deal.face_down)
        self.stock: list[int] = list(deal.stock)
        self.waste: list[int] = list(deal.waste)
        self.foundations: dict[int, int] = dict(enumerate(deal.foundations))
        self.passes_used: int = deal.passes_used

    # ----------------------------------------------------------------- state

    def copy(self) -> "Game":
        """An independent copy of this position."""
        g = Game.__new__(Game)
        g.shape, g.rules = self.shape, self.rules
        g.piles = [list(p) for p in self.piles]
        g.face_down = list(self.face_down)
        g.stock = list(self.stock)
        g.waste = list(self.waste)
        g.foundations = dict(self.foundations)
        g.passes_used = self.passes_used
        return g

    def position(self) -> Deal:
        """This position as a :class:`Deal` (a game in progress), e.g. to write it to a file."""
        return Deal(tuple(map(tuple, self.piles)), tuple(self.stock), self.shape,
                    tuple(self.face_down), tuple(self.waste),
                    tuple(self.foundations[s] for s in sorted(self.foundations)), self.passes_used)

    def key(self) -> tuple:
        """A hashable summary of everything that decides the future of this position.

        The pass count is included only under a pass limit (with unlimited passes it does not
        matter how many were used).
        """
        passes = self.passes_used if self.rules.passes is not None else 0
        return (tuple(tuple(p) for p in self.piles), tuple(self.face_down), tuple(self.stock),
                tuple(self.waste), tuple(self.foundations[s] for s in sorted(self.foundations)),
                passes)

    def symmetric_key(self) -> tuple:
        """Like :meth:`key` but blind to the order of the piles.

        No rule depends on where a pile stands, so positions that differ only by the order of
        their piles have the same future (up to renumbering); the search uses this key.
        """
        passes = self.passes_used if self.rules.passes is not None else 0
        return (tuple(sorted(zip(map(tuple, self.piles), self.face_down))), tuple(self.stock),
                tuple(self.waste), tuple(self.foundations[s] for s in sorted(self.foundations)),
                passes)

    @property
    def won(self) -> bool:
        """True when every card is on the foundations."""
        return all(n == self.shape.ranks for n in self.foundations.values())

    def suit_piles(self, suit: int) -> list[int]:
        """The foundation piles of a suit, in the order they are filled."""
        return list(range(suit, len(self.foundations), self.shape.suits))

    def home_pile(self, card: int) -> int | None:
        """The foundation pile ``card`` may go onto now, or None."""
        piles = self.suit_piles(suit_of(card))
        if self.rules.foundations == 4:   # one foundation a suit: its piles one after the other
            piles = [next((i for i in piles if self.foundations[i] < self.shape.ranks), piles[-1])]
        return next((i for i in piles if self.foundations[i] == rank_of(card)), None)

    def foundation_tops(self) -> dict[int, int]:
        """The foundation piles whose top card may come back, and that card (with 4 foundations
        and two decks, a suit's top is its second pile's once that is begun)."""
        tops = {}
        for suit in range(self.shape.suits):
            piles = [i for i in self.suit_piles(suit) if self.foundations[i]]
            if self.rules.foundations == 4:
                piles = piles[-1:]
            for i in piles:
                tops[i] = (self.foundations[i] - 1) * 4 + suit
        return tops

    @property
    def king_rank(self) -> int:
        """The highest rank of the deck: the only rank allowed into a space under 'king'."""
        return self.shape.ranks - 1

    def face_up(self, i: int) -> int:
        """How many face-up cards pile ``i`` has."""
        return len(self.piles[i]) - self.face_down[i]


    def __str__(self) -> str:
        def show(cards: Iterable[int]) -> str:
            return " ".join(card_name(c) for c in cards) or "-"

        lines = [f"stock: {show(self.stock)}", f"waste: {show(self.waste)}",
                 "foundations: " + " ".join(f"{SUITS[i % self.shape.suits]}:{n}"
                                            for i, n in self.foundations.items())]
        for i, pile in enumerate(self.piles):
            down = " ".join("[" + card_name(c) + "]" for c in pile[:self.face_down[i]])
            lines.append(f"pile {i + 1}: {(down + ' ') if down else ''}{show(pile[self.face_down[i]:])}")
        return "\n".join(lines)

    # ----------------------------------------------------------------- the rules
    # Each rule is one small predicate; problem() explains a failed predicate in words and
    # legal_moves() enumerates with the same predicates, so the two cannot disagree (building
    # is _in_sequence, which legal_moves applies to many cards at once through _places).

    def may_place(self, card: int, dst: int) -> bool:
        """May ``card`` (alone or heading a run) go onto pile ``dst``?"""
        pile = self.piles[dst]
        if not pile:
            rule = self.rules.empty_rule
            return rule == "any" or (rule == "king" and rank_of(card) == self.king_rank)
        return _in_sequence(pile[-1], card)

    def may_found(self, card: int) -> bool:
        """May ``card`` go onto its foundation (is it the next rank of its suit)?"""
        return self.home_pile(card) is not None

    def movable_run(self, i: int, count: int) -> bool:
        """Are the top ``count`` cards of pile ``i`` face up and in sequence (each one rank
        lower than, and of the other colour to, the card beneath it)?"""
        pile = self.piles[i]
        if not 1 <= count <= self.face_up(i):
            return False
        run = pile[len(pile) - count:]
        return all(_in_sequence(lower, upper) for lower, upper in zip(run, run[1:]))

    def may_redeal(self) -> bool:
        """Stock empty, waste not, and a pass left."""
        return (not self.stock and bool(self.waste)
                and (self.rules.passes is None or self.passes_used < self.rules.passes))

    # ----------------------------------------------------------------- explanations

    def _placement_problem(self, card: int, dst: int) -> str | None:
        """Why ``card`` may not go onto pile ``dst``; None if it may."""
        if self.may_place(card, dst):
            return None
        name = card_name(card)
        pile = self.piles[dst]
        if not pile:
            if self.rules.empty_rule == "none":
                return f"{name} cannot go to empty pile {dst + 1}: spaces may not be filled (empty=none)"
            return (f"{name} cannot go to empty pile {dst + 1}: only a {RANKS[self.king_rank]} "
                    f"may fill a space")
        target = pile[-1]
        problems = []
        if is_red(card) == is_red(target):
            problems.append("same colour")
        if rank_of(card) + 1 != rank_of(target):
            problems.append("not one rank lower")
        return f"{name} cannot go on {card_name(target)}: {' and '.join(problems)}"

    def _foundation_problem(self, card: int) -> str | None:
        """Why ``card`` may not go onto its foundation; None if it may."""
        if self.may_found(card):
            return None
        suit = suit_of(card)
        wants = sorted({card_name(h * 4 + suit) for i in self.suit_piles(suit)
                        if (h := self.foundations[i]) < self.shape.ranks})
        needed = f"needs {' or '.join(wants)}" if wants else "is complete"
        return f"{card_name(card)} cannot go to its foundation: the {SUITS[suit]} foundation {needed}"

    def _run_problem(self, i: int, count: int) -> str | None:
        """Why the top ``count`` cards of pile ``i`` cannot move as one run; None if they can."""
        if self.movable_run(i, count):
            return None
        if count < 1:
            return f"a run must have at least one card, not {count}"
        if count > self.face_up(i):
            return f"pile {i + 1} has only {self.face_up(i)} face-up card(s); cannot move {count}"
        run = self.piles[i][-count:]
        for lower, upper in zip(run, run[1:]):
            if not _in_sequence(lower, upper):
                return (f"the run from pile {i + 1} is not in sequence: "
                        f"{card_name(upper)} on {card_name(lower)}")
        raise AssertionError("unreachable")

    def _pile_problem(self, i: int, role: str) -> str | None:
        if not isinstance(i, int) or not 0 <= i < len(self.piles):
            number = i + 1 if isinstance(i, int) else i
            return f"{role} pile {number} does not exist (there are {len(self.piles)})"
        return None

    def _card_problem(self, move: Move, actual: int) -> str | None:
        if move.card >= 0 and move.card != actual:
            return f"the move names {_safe_name(move.card)} but the card moved is {card_name(actual)}"
        return None

    def problem(self, move: Move) -> str | None:
        """Why ``move`` is illegal here, or None if it is legal.

        A ``card`` >= 0 must be the card actually moved (the head of a run); ``count`` must be 1
        except for tableau-to-tableau runs. ``turn`` and ``redeal`` ignore both.
        """
        kind = move.kind
        if kind not in KINDS:
            return f"unknown move kind {kind!r}"
        if kind != TABLEAU_TO_TABLEAU and kind not in (TURN, REDEAL) and move.count != 1:
            return f"a {kind} move carries one card, not {move.count}"

        if kind == TURN:
            return "stock is empty" if not self.stock else None

        if kind == REDEAL:
            if self.may_redeal():
                return None
            if self.stock:
                return "cannot redeal: the stock is not empty"
            if not self.waste:
                return "cannot redeal: the waste is empty"
            return f"no passes left (passes={self.rules.passes})"

        if kind in (WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU):
            if not self.waste:
                return "waste is empty"
            card = self.waste[-1]
            if kind == WASTE_TO_FOUNDATION:
                return self._card_problem(move, card) or self._foundation_problem(card)
            return (self._pile_problem(move.dst, "destination") or self._card_problem(move, card)
                    or self._placement_problem(card, move.dst))

        if kind in (TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU):
            p = self._pile_problem(move.src, "source")
            if p:
                return p
            src = self.piles[move.src]
            if not src:
                return f"pile {move.src + 1} is empty"
            if kind == TABLEAU_TO_FOUNDATION:
                return self._card_problem(move, src[-1]) or self._foundation_problem(src[-1])
            p = self._pile_problem(move.dst, "destination")
            if p:
                return p
            if move.dst == move.src:
                return f"pile {move.src + 1} cannot move onto itself"
            return (self._run_problem(move.src, move.count)
                    or self._card_problem(move, src[-move.count])
                    or self._placement_problem(src[-move.count], move.dst))

        # FOUNDATION_TO_TABLEAU
        if not self.rules.worry_back:
            return "cards may not come back from the foundations (worry_back is off)"
        p = self._pile_problem(move.dst, "destination")
        if p:
            return p
        card = move.card if move.card >= 0 else self._only_foundation_card_for(move.dst)
        if isinstance(card, str):
            return card
        if not (0 <= card < 52 and self.shape.contains(card)):
            return f"{_safe_name(card)} is not a card of this deck"
        if card not in self.foundation_tops().values():
            return f"{card_name(card)} is not the top card of its foundation"
        return self._placement_problem(card, move.dst)

    def _only_foundation_card_for(self, dst: int) -> int | str:
        """For a foundation move that names no card: the one foundation top that fits ``dst``,
        or a reason why there is none or several."""
        tops = sorted(set(self.foundation_tops().values()))
        fits = [c for c in tops if self.may_place(c, dst)]
        if len(fits) == 1:
            return fits[0]
        if not fits:
            return f"no foundation card can go to pile {dst + 1}"
        return (f"ambiguous: {', '.join(card_name(c) for c in fits)} could all go to pile "
                f"{dst + 1}; name the card")

    # ----------------------------------------------------------------- moves

    def legal_moves(self) -> list[Move]:
        """Every legal single move, each naming its card: foundation moves first, then waste,
        tableau and worry-back moves, then turn and redeal."""
        n = len(self.piles)
        moves: list[Move] = []
        waste_top = self.waste[-1] if self.waste else None
        if waste_top is not None and self.may_found(waste_top):
            moves.append(Move(WASTE_TO_FOUNDATION, card=waste_top))
        for i in range(n):
            if self.piles[i] and self.may_found(self.piles[i][-1]):
                moves.append(Move(TABLEAU_TO_FOUNDATION, src=i, card=self.piles[i][-1]))
        places = self._places()
        if waste_top is not None:
            moves += [Move(WASTE_TO_TABLEAU, dst=j, card=waste_top) for j in places(waste_top)]
        for i, pile in enumerate(self.piles):
            # the runs movable_run allows, each one card longer than the last
            for count in range(1, self.face_up(i) + 1):
                head = pile[-count]
                if count > 1 and not _in_sequence(head, pile[-count + 1]):
                    break  # a longer run contains this broken one
                moves += [Move(TABLEAU_TO_TABLEAU, src=i, dst=j, count=count, card=head)
                          for j in places(head) if j != i]
        if self.rules.worry_back:
            for top in sorted(set(self.foundation_tops().values())):
                moves += [Move(FOUNDATION_TO_TABLEAU, dst=j, card=top) for j in places(top)]
        if self.stock:
            moves.append(Move(TURN))
        if self.may_redeal():
            moves.append(Move(REDEAL))
        return moves

    def _places(self) -> Callable[[int], list[int]]:
        """``places(card)``: the piles ``card`` may go onto now (:meth:`may_place`), in pile order.
        A pile with cards takes ``card`` when ``card`` builds on its top card (:func:`_in_sequence`),
        so the piles are filed once by their top card's look and looked up by what ``card`` lies on."""
        spaces: list[int] = []
        by_look: defaultdict[tuple[int, bool], list[int]] = defaultdict(list)
        for j, pile in enumerate(self.piles):
            if pile:
                by_look[_LOOK[pile[-1]]].append(j)
            else:
                spaces.append(j)

        def places(card: int) -> list[int]:
            builds = by_look.get(_LIES_ON[card], [])
            fills = [j for j in spaces if self.may_place(card, j)]
            return sorted(builds + fills) if fills else builds

        return places

    def apply(self, move: Move) -> None:
        """Play ``move``; raise :class:`IllegalMove` (and change nothing) if the rules forbid it."""
        reason = self.problem(move)
        if reason is not None:
            raise IllegalMove(reason)
        self._play(move)

    def _play(self, move: Move) -> None:
        """Carry out a move already known to be legal."""
        kind = move.kind
        if kind == TURN:
            n = min(self.rules.draw, len(self.stock))
            for _ in range(n):
                self.waste.append(self.stock.pop(0))
        elif kind == REDEAL:
            self.stock, self.waste = self.waste, []
            self.passes_used += 1
        elif kind == WASTE_TO_FOUNDATION:
            self._send_home(self.waste.pop())
        elif kind == WASTE_TO_TABLEAU:
            self.piles[move.dst].append(self.waste.pop())
        elif kind == TABLEAU_TO_FOUNDATION:
            self._send_home(self.piles[move.src].pop())
            self._flip(move.src)
        elif kind == TABLEAU_TO_TABLEAU:
            src = self.piles[move.src]
            run = src[-move.count:]
            del src[-move.count:]
            self.piles[move.dst].extend(run)
            self._flip(move.src)
        else:  # FOUNDATION_TO_TABLEAU
            card = move.card if move.card >= 0 else self._only_foundation_card_for(move.dst)
            assert isinstance(card, int)
            tops = self.foundation_tops()
            self.foundations[min(i for i in tops if tops[i] == card)] -= 1
            self.piles[move.dst].append(card)

    def _send_home(self, card: int) -> None:
        pile = self.home_pile(card)
        assert pile is not None
        self.foundations[pile] += 1

    def _flip(self, i: int) -> None:
        """Turn up the top card of pile ``i`` if only face-down cards are left in it."""
        if self.piles[i] and self.face_down[i] >= len(self.piles[i]):
            self.face_down[i] = len(self.piles[i]) - 1


def _safe_name(card: int) -> str:
    return card_name(card) if 0 <= card < 52 else f"card {card}"


# --------------------------------------------------------------------- replay


@dataclass
class Replay:
    """The outcome of replaying a move list: ``won`` at the end (False after an error),
    ``steps`` moves applied, ``error`` naming the failing step (1-based) and why."""

    won: bool
    steps: int
    error: str | None = None
    game: Game | None = field(default=None, repr=False, compare=False)


def replay(deal: Deal, rules: Rules, moves: Iterable[Move | str]) -> Replay:
    """Play ``moves`` (Move objects or their notation) from the deal, stopping at the first
    illegal one."""
    game = Game(deal, rules)
    steps = 0
    for number, move in enumerate(moves, start=1):
        try:
            if isinstance(move, str):
                move = parse_move(move)
            game.apply(move)
        except (IllegalMove, InputError) as exc:
            return Replay(False, steps, f"step {number} ({move}): {exc}", game)
        steps += 1
    return Replay(game.won, steps, None, game)
