"""Showing a deal: a drawing for a person and a JSON-ready dict in the oracle vectors' orientation."""
from __future__ import annotations

import textwrap
from itertools import zip_longest

from ..cards import RANKS, STANDARD, SUITS, card_name
from .deal import Deal
from .deals import exact_index

_CELL = 5  # widest cell: "[10D]"


def render(deal: Deal) -> str:
    """The piles side by side (bottom card first, face-down cards in brackets), then the stock."""
    columns = [[f"[{card_name(c)}]" if i < down else f" {card_name(c)} " for i, c in enumerate(pile)]
               for pile, down in zip(deal.tableau, deal.face_down)]
    lines = [" ".join(f"{n:>{_CELL - 1}} " for n in range(1, len(columns) + 1)).rstrip()]
    for row in zip_longest(*columns, fillvalue=""):
        lines.append(" ".join(cell.rjust(_CELL) for cell in row).rstrip())
    stock = " ".join(map(card_name, deal.stock)) or "(empty)"
    lines.append("")
    lines.extend(textwrap.wrap(f"stock, {len(deal.stock)} cards, first turned first: {stock}",
                               width=78, subsequent_indent="  "))
    if deal.in_progress:
        waste = " ".join(map(card_name, deal.waste)) or "(empty)"
        lines.extend(textwrap.wrap(f"waste, bottom to top: {waste}", width=78, subsequent_indent="  "))
        home = [f"{SUITS[suit]}: {RANKS[height - 1] if height else '-'}"
                for suit, height in enumerate(deal.foundations)]
        lines.append(f"foundations {'  '.join(home)}   pass {deal.passes_used}")
    lines.append("[..] = face down")
    return "\n".join(lines)


def deal_json(deal: Deal) -> dict:
    """``tableau`` (piles bottom -> top), ``stock`` (first turned first), ``face_down`` (per pile);
    for a game in progress ``waste`` (bottom -> top), ``foundations`` (heights by suit, C H S D)
    and ``passes_used``; for a standard 52-card deal as dealt, ``exact`` (its 256-bit index, a
    decimal string)."""
    out: dict = {
        "tableau": [[card_name(c) for c in pile] for pile in deal.tableau],
        "stock": [card_name(c) for c in deal.stock],
        "face_down": list(deal.face_down),
    }
    if deal.in_progress:
        out.update(waste=[card_name(c) for c in deal.waste], foundations=list(deal.foundations),
                   passes_used=deal.passes_used)
    if deal.shape == STANDARD and deal.dealt:
        out["exact"] = str(exact_index(deal))
    return out
