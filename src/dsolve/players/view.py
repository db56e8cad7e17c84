"""What one seat at a table sees, and the seat that keeps the true game behind it.

A player is handed a :class:`SeatView` and nothing else: the face-up cards of each pile and how
many face-down cards lie under them, the waste, the foundations, and the stock in turning order
with every card the seat has seen turned (a player remembers them, and where they come round)
and ``None`` for each card not yet turned. It holds no face-down tableau card and no unturned
stock card, and no reference to the game: the :class:`Seat` keeps the true game and updates what
its player has seen as moves are played. A position handed to a seat in progress counts its stock
as not yet seen.
"""
from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Protocol

from ..cards import DeckShape
from ..klondike.deal import Deal
from ..klondike.moves import Move
from ..klondike.referee import Game
from ..rules import Rules

DEFAULT_MAX_MOVES = 1000  # single moves a play may take before it is stopped as stalled


@dataclass(frozen=True)
class SeatView:
    """One seat's view of its game (see the module docstring). ``face_up[i]``: pile i's face-up
    cards, bottom -> top, above ``face_down[i]`` face-down ones; ``stock``: first turned first,
    ``None`` for a card not yet seen; ``waste`` bottom -> top; ``foundations`` heights in the
    suit order C, H, S, D."""

    shape: DeckShape
    rules: Rules
    face_up: tuple[tuple[int, ...], ...]
    face_down: tuple[int, ...]
    stock: tuple[int | None, ...]
    waste: tuple[int, ...]
    foundations: tuple[int, ...]
    passes_used: int

    def seen(self) -> list[int]:
        """Every card the seat can see or remembers: face-up, waste, stock seen, foundations."""
        home = [rank * 4 + suit for suit, height in enumerate(self.foundations) for rank in range(height)]
        return ([c for pile in self.face_up for c in pile] + [c for c in self.stock if c is not None]
                + list(self.waste) + home)

    def unseen(self) -> list[int]:
        """The cards the seat has not seen, in card order: they fill the hidden places."""
        return sorted(self.shape.card_set.difference(self.seen()))  # card order is ascending

    @property
    def hidden_places(self) -> int:
        """Face-down tableau cards plus unturned stock cards."""
        return sum(self.face_down) + self.stock.count(None)

    def world(self, fill: Sequence[int]) -> Deal:
        """A full position consistent with this view: the hidden places filled with ``fill`` (a
        permutation of :meth:`unseen`), pile by pile bottom -> top, then the stock's unseen cards
        first turned first."""
        cards = iter(fill)
        piles = tuple(tuple(islice(cards, down)) + up for up, down in zip(self.face_up, self.face_down))
        stock = tuple(next(cards) if c is None else c for c in self.stock)
        return Deal(piles, stock, self.shape, self.face_down, self.waste, self.foundations,
                    self.passes_used)

    def game(self) -> Game:
        """A game of this position to look at visible effects on: the :meth:`world` filled with
        :meth:`unseen` in card order (legal moves depend on visible cards only)."""
        return Game(self.world(self.unseen()), self.rules)

    def legal_moves(self) -> list[Move]:
        """The legal moves here (any filling gives them)."""
        return self.game().legal_moves()


class Player(Protocol):
    """A player at a seat: given its view, the move to play, or ``None`` when it has none (no
    legal move) or will play none (it gives up)."""

    def choose(self, view: SeatView) -> Move | None: ...


def view_of(game: Game, seen: Container[int]) -> SeatView:
    """What a seat sees of ``game`` having seen the cards ``seen`` turned (the stock's other
    cards are ``None``)."""
    return SeatView(game.shape, game.rules,
                    tuple(tuple(pile[down:]) for pile, down in zip(game.piles, game.face_down)),
                    tuple(game.face_down),
                    tuple(c if c in seen else None for c in game.stock),
                    tuple(game.waste), tuple(game.foundations[s] for s in sorted(game.foundations)),
                    game.passes_used)


class Seat:
    """The true game of one seat and what its player has seen of it."""

    def __init__(self, deal: Deal, rules: Rules) -> None:
        self._game = Game(deal, rules)
        self._seen: set[int] = set()
        self._look()

    def _look(self) -> None:
        game = self._game
        for pile, down in zip(game.piles, game.face_down):
            self._seen.update(pile[down:])
        self._seen.update(game.waste)

    def view(self) -> SeatView:
        return view_of(self._game, self._seen)

    def play(self, move: Move) -> None:
        """Apply ``move`` (the referee checks it) and remember what it turns face up."""
        self._game.apply(move)
        self._look()

    @property
    def won(self) -> bool:
        return self._game.won


WON, OUT, GAVE_UP, STALLED = "won", "no legal move", "gave up", "move limit"


@dataclass(frozen=True)
class Play:
    """One game played by a player: its single ``moves`` (replayable by the referee from the
    deal), whether it was ``won``, and how it ``ended`` (won, no legal move, gave up, move limit)."""

    moves: tuple[Move, ...]
    won: bool
    ended: str


def play_out(deal: Deal, rules: Rules, player: Player, max_moves: int = DEFAULT_MAX_MOVES) -> Play:
    """Let ``player`` play ``deal`` from a seat until it wins, has no legal move, gives up or has
    played ``max_moves`` moves."""
    seat, moves = Seat(deal, rules), []
    while not seat.won:
        if len(moves) >= max_moves:
            return Play(tuple(moves), False, STALLED)
        view = seat.view()
        move = player.choose(view)
        if move is None:
            return Play(tuple(moves), False, GAVE_UP if view.legal_moves() else OUT)
        seat.play(move)
        moves.append(move)
    return Play(tuple(moves), True, WON)
