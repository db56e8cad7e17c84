"""Klondike and Double Klondike pictures: the board, the frames of a winning line (the board
after each move, as the referee plays it) and of a position's hints (the board after each legal
move, with the move's verdict)."""
from __future__ import annotations

from collections.abc import Sequence

from ..cards import SUITS
from ..klondike.deal import Deal
from ..klondike.moves import (FOUNDATION_TO_TABLEAU, REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN,
                              WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move)
from ..klondike.referee import Game
from ..klondike.result import Hint
from ..klondike.solution import narrate
from ..rules import Rules
from . import svg
from .page import Frame

MARGIN = 16
_TOP = MARGIN + 18        # the stock, waste and foundations row
_TABLEAU = _TOP + svg.CARD_H + 42
_FAN = 16                 # the waste's fan, draw 3
_TO_PILE = (WASTE_TO_TABLEAU, TABLEAU_TO_TABLEAU, FOUNDATION_TO_TABLEAU)


def board(deal: Deal, draw: int = 1, moved: Move | None = None) -> str:
    """``deal`` drawn as an ``<svg>``: the stock (a back, its size below), the waste (its top
    ``draw`` cards fanned), the foundations (their top cards) and the piles, face-down cards as
    backs; what ``moved`` (the move that led here) put down is outlined in yellow."""
    shape = deal.shape
    places = max(shape.columns, 3 + len(deal.foundations))
    width = 2 * MARGIN + places * svg.STEP - (svg.STEP - svg.CARD_W)
    parts = [svg.label(MARGIN, MARGIN + 6, f"stock, pass {deal.passes_used}"),
             svg.label(width - MARGIN, MARGIN + 6, "foundations", anchor="end")]
    kind = moved.kind if moved is not None else None
    if deal.stock:
        parts += [svg.back(MARGIN, _TOP, cls="stock"), svg.count(MARGIN, _TOP, len(deal.stock))]
    else:
        parts.append(svg.place(MARGIN, _TOP, "empty"))
    if kind == REDEAL:
        parts.append(svg.mark(MARGIN, _TOP))
    shown = deal.waste[-max(draw, 1):][-3:]
    waste_x = MARGIN + svg.STEP
    if not shown:
        parts.append(svg.place(waste_x, _TOP, "waste"))
    for k, card in enumerate(shown):
        parts.append(svg.card(waste_x + k * _FAN, _TOP, card, cls="waste"))
    if deal.waste:
        parts.append(svg.count(waste_x, _TOP, len(deal.waste)))
    if kind == TURN and shown:
        parts.append(svg.mark(waste_x + (len(shown) - 1) * _FAN, _TOP))
    first = width - MARGIN - len(deal.foundations) * svg.STEP + (svg.STEP - svg.CARD_W)
    homed = moved.card if moved is not None and kind in (WASTE_TO_FOUNDATION, TABLEAU_TO_FOUNDATION) else None
    for pile, height in enumerate(deal.foundations):
        x = first + pile * svg.STEP
        suit = pile % shape.suits
        top = (height - 1) * 4 + suit
        parts.append(svg.card(x, _TOP, top, cls="home") if height else svg.place(x, _TOP, SUITS[suit]))
        if height and top == homed:
            parts.append(svg.mark(x, _TOP))
            homed = None  # two decks: the first pile topped by the card
    bottom = _TABLEAU + svg.CARD_H
    for i, (pile, down) in enumerate(zip(deal.tableau, deal.face_down)):
        x, y = MARGIN + i * svg.STEP, _TABLEAU
        parts.append(svg.label(x + svg.CARD_W / 2, _TABLEAU - 8, str(i + 1), 12, "middle", colour="#cfe3cf"))
        if not pile:
            parts.append(svg.place(x, y))
        for k, card in enumerate(pile):
            parts.append(svg.back(x, y) if k < down else svg.card(x, y, card))
            if moved is not None and moved.dst == i and kind in _TO_PILE and k == len(pile) - moved.count:
                parts.append(svg.mark(x, y, (moved.count - 1) * svg.UP_GAP + svg.CARD_H))
            bottom = max(bottom, y + svg.CARD_H)
            y += svg.DOWN_GAP if k < down else svg.UP_GAP
    return svg.svg("".join(parts), width, bottom + MARGIN)


def line_frames(deal: Deal, rules: Rules, moves: Sequence[Move]) -> list[Frame]:
    """The deal, then the board after each of ``moves`` (played by the referee, so an illegal
    one raises), each captioned with its number, notation and what it does."""
    frames = [Frame(board(deal, rules.draw), f"the deal: {len(moves)} moves to win")]
    for step in narrate(deal, rules, moves):
        frames.append(Frame(board(step.board, rules.draw, step.move), f"{step.number}. {step.move}: {step.text}"))
    return frames


VERDICT_WORDS = {"winnable": "keeps", "unwinnable": "loses", "unknown": "unknown"}


def hint_frames(deal: Deal, rules: Rules, hints: Sequence[Hint]) -> list[Frame]:
    """The position, then the board after each hint's move, captioned with the move and whether
    it keeps the game winnable, loses it, or is unknown."""
    keeps = sum(h.verdict == "winnable" for h in hints)
    frames = [Frame(board(deal, rules.draw), f"the position: {len(hints)} legal moves, {keeps} keep it winnable")]
    game = Game(deal, rules)
    for k, h in enumerate(hints, 1):
        child = game.copy()
        child.apply(h.move)
        more = f" ({len(h.result.moves)} more moves)" if h.verdict == "winnable" else ""
        frames.append(Frame(board(child.position(), rules.draw, h.move),
                            f"hint {k} of {len(hints)}: {h.move}: {VERDICT_WORDS[h.verdict]}{more}, "
                            f"{h.move.describe()}"))
    return frames

