"""The careless player: a fixed-priority greedy bot with random tie-breaks.

From the moves its view allows it plays, in this order, a random one of the first kind there is:

1. a card to its foundation (from the waste or a pile);
2. a reveal: a pile's whole face-up part moved onto another pile, turning up the card under it;
3. any other move of a card or run from the waste or a pile onto a pile, except moves that only
   shuffle: a pile with nothing face down moved whole into a space, and moves back to a layout
   it has already had (so it cannot move a card to and fro for ever). It never takes a card back
   from a foundation;
4. turning the stock, or turning the waste over when it is empty.

It goes on through the stock while anything changes; after a whole trip round the talon with no
other move it stops (it gives up: nothing it would play is left).
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterator

from ..klondike.moves import (REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN, WASTE_TO_FOUNDATION,
                     WASTE_TO_TABLEAU, Move)
from ..klondike.referee import Game
from .view import DEFAULT_MAX_MOVES, Play, SeatView, play_out
from ..klondike.deal import Deal
from ..rules import Rules


def _layout(game: Game) -> tuple:
    """The visible layout of ``game`` (what the careless player compares to avoid repeats)."""
    return (tuple(tuple(p[d:]) for p, d in zip(game.piles, game.face_down)), tuple(game.face_down),
            tuple(game.waste), len(game.stock), tuple(game.foundations.values()))


def is_reveal(view: SeatView, move: Move) -> bool:
    """Whether ``move`` takes a pile's whole face-up part off face-down cards (turning one up)."""
    return (move.kind == TABLEAU_TO_TABLEAU and view.face_down[move.src] > 0
            and move.count == len(view.face_up[move.src]))


class CarelessPlayer:
    """See the module docstring; ``rng`` breaks ties."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._been: set[tuple] = set()
        self._idle = 0  # stock moves since the last other move

    def choose(self, view: SeatView) -> Move | None:
        game = view.game()  # visible effects only are looked at
        self._been.add(_layout(game))
        legal = game.legal_moves()
        tier = next((moves for moves in self._tiers(view, game, legal) if moves), None)
        if tier:
            self._idle = 0
            return self._rng.choice(tier)
        stock = [m for m in legal if m.kind in (TURN, REDEAL)]
        talon = len(view.stock) + len(view.waste)
        if not stock or self._idle > math.ceil(talon / view.rules.draw) + 1:
            return None
        self._idle += 1
        return stock[0]

    def _tiers(self, view: SeatView, game: Game, legal: list[Move]) -> Iterator[list[Move]]:
        """The moves of tiers 1 to 3 (see the module docstring) in order, each worked out only
        when the tiers before it are empty."""
        yield [m for m in legal if m.kind in (WASTE_TO_FOUNDATION, TABLEAU_TO_FOUNDATION)]
        yield [m for m in legal if is_reveal(view, m)]
        yield [m for m in legal if m.kind in (WASTE_TO_TABLEAU, TABLEAU_TO_TABLEAU) and not self._shuffle(game, m)]

    def _shuffle(self, game: Game, move: Move) -> bool:
        if (move.kind == TABLEAU_TO_TABLEAU and not game.piles[move.dst]
                and move.count == len(game.piles[move.src])):
            return True  # a whole pile into a space: the same layout
        after = game.copy()
        after.apply(move)
        return _layout(after) in self._been


def play_careless(deal: Deal, rules: Rules, seed: int | str = 0,
                  max_moves: int = DEFAULT_MAX_MOVES) -> Play:
    """One careless play of ``deal``; the same ``seed`` gives the same game."""
    return play_out(deal, rules, CarelessPlayer(random.Random(f"careless:{seed}")), max_moves)
