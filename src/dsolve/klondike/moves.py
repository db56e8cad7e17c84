"""Single moves of Klondike, as the solver reports them and the referee replays them.

Notation (``str(move)`` and :func:`parse_move`), piles numbered from 1 as a player counts them:

========================  =====================================================
``turn``                  turn up to ``draw`` cards from the stock onto the waste
``redeal``                turn the waste over to form the stock again
``W>F``                   waste top card to its foundation
``W>3``                   waste top card to pile 3
``2>F``                   top card of pile 2 to its foundation
``2>5`` / ``2>5x3``       top card (or top 3 cards as a run) of pile 2 to pile 5
``F>6``                   a foundation's top card to pile 6 (``card`` says which)
========================  =====================================================

``card`` names the card moved (the head of a run): the referee checks it, and it makes a line
readable on its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..cards import card_name, parse_card
from ..errors import InputError

TURN, REDEAL = "turn", "redeal"
WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU = "waste-foundation", "waste-tableau"
TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU = "tableau-foundation", "tableau-tableau"
FOUNDATION_TO_TABLEAU = "foundation-tableau"
KINDS = (TURN, REDEAL, WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, TABLEAU_TO_FOUNDATION,
         TABLEAU_TO_TABLEAU, FOUNDATION_TO_TABLEAU)


@dataclass(frozen=True)
class Move:
    """One step. ``src``/``dst`` are 0-based pile indices (-1 where not a pile); ``count`` is the
    number of cards a tableau-to-tableau move carries; ``card`` the card moved (-1 for turn/redeal)."""

    kind: str
    src: int = -1
    dst: int = -1
    count: int = 1
    card: int = -1

    def __str__(self) -> str:
        k = self.kind
        if k in (TURN, REDEAL):
            return k
        src = "W" if k.startswith("waste") else "F" if k.startswith("foundation") else str(self.src + 1)
        dst = "F" if k.endswith("foundation") else str(self.dst + 1)
        run = f"x{self.count}" if k == TABLEAU_TO_TABLEAU and self.count > 1 else ""
        return f"{src}>{dst}{run} {card_name(self.card)}"

    def describe(self) -> str:
        """A sentence for a person: ``move 9H (3 cards) from pile 2 to pile 5``."""
        k = self.kind
        if k == TURN:
            return "turn the stock"
        if k == REDEAL:
            return "turn the waste over (redeal)"
        name = card_name(self.card)
        if k == WASTE_TO_FOUNDATION:
            return f"play {name} from the waste to its foundation"
        if k == WASTE_TO_TABLEAU:
            return f"play {name} from the waste to pile {self.dst + 1}"
        if k == TABLEAU_TO_FOUNDATION:
            return f"play {name} from pile {self.src + 1} to its foundation"
        if k == FOUNDATION_TO_TABLEAU:
            return f"take {name} back from its foundation to pile {self.dst + 1}"
        run = f" ({self.count} cards)" if self.count > 1 else ""
        return f"move {name}{run} from pile {self.src + 1} to pile {self.dst + 1}"


_MOVE_RE = re.compile(r"^(W|F|\d+)>(F|\d+)(?:x(\d+))?(?:\s+(\S+))?$", re.IGNORECASE)


def parse_move(text: str) -> Move:
    """Parse the notation of :meth:`Move.__str__`."""
    t = text.strip()
    if t.lower() in (TURN, REDEAL):
        return Move(t.lower())
    m = _MOVE_RE.match(t)
    if not m:
        raise InputError(f"bad move {text!r}")
    src, dst, count, card = m.groups()
    src, dst = src.upper(), dst.upper()
    card_no = parse_card(card) if card else -1
    n = int(count) if count else 1
    if src == "W":
        if dst == "F":
            return Move(WASTE_TO_FOUNDATION, card=card_no)
        return Move(WASTE_TO_TABLEAU, dst=int(dst) - 1, card=card_no)
    if src == "F":
        if dst == "F":
            raise InputError(f"bad move {text!r}")
        return Move(FOUNDATION_TO_TABLEAU, dst=int(dst) - 1, card=card_no)
    if dst == "F":
        return Move(TABLEAU_TO_FOUNDATION, src=int(src) - 1, card=card_no)
    return Move(TABLEAU_TO_TABLEAU, src=int(src) - 1, dst=int(dst) - 1, count=n, card=card_no)
