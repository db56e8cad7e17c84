"""A line of moves told for a player: what each move turns up, and the board after it."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..cards import card_name
from .deal import Deal
from .moves import REDEAL, TURN, Move
from .referee import Game
from ..rules import Rules


@dataclass(frozen=True)
class Step:
    """One move of a line: ``text`` says it in words with what it brings into play (the waste
    card a turn shows, the face-down card a move turns up); ``board`` is the position after it."""

    number: int
    move: Move
    text: str
    board: Deal


def narrate(deal: Deal, rules: Rules, moves: Iterable[Move]) -> list[Step]:
    """Play ``moves`` from ``deal`` through the referee (an illegal one raises
    :class:`dsolve.klondike.referee.IllegalMove`), telling each."""
    game = Game(deal, rules)
    steps = []
    for number, move in enumerate(moves, 1):
        down_before = list(game.face_down)
        game.apply(move)
        text = move.describe()
        if move.kind == TURN:
            text += f": the waste shows {card_name(game.waste[-1])}"
        elif move.kind == REDEAL:
            text += f", pass {game.passes_used}"
        elif move.src >= 0 and game.face_down[move.src] < down_before[move.src]:
            text += f", turning up {card_name(game.piles[move.src][-1])}"
        steps.append(Step(number, move, text, game.position()))
    return steps
