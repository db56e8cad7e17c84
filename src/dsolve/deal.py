"""The Klondike deal: piles, face-down counts and stock, validated against a deck shape."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .cards import STANDARD, DeckShape, card_name
from .errors import InputError


@dataclass(frozen=True)
class Deal:
    """A starting layout.

    ``tableau``: one tuple per pile, bottom -> top. ``face_down``: how many cards at the bottom of
    each pile are face down (a dealt layout has ``len(pile) - 1``; ``None`` means that).
    ``stock``: the stock in the order it is turned, first turned first. ``shape``: the deck.
    """

    tableau: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    shape: DeckShape = STANDARD
    face_down: tuple[int, ...] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tableau", tuple(tuple(p) for p in self.tableau))
        object.__setattr__(self, "stock", tuple(self.stock))
        if self.face_down is None:
            object.__setattr__(self, "face_down", tuple(max(len(p) - 1, 0) for p in self.tableau))
        else:
            object.__setattr__(self, "face_down", tuple(self.face_down))
        self.validate()

    def validate(self) -> None:
        """Raise :class:`InputError` unless every card of the shape is present exactly ``decks`` times."""
        shape = self.shape
        if len(self.tableau) != shape.columns:
            raise InputError(f"deal has {len(self.tableau)} piles, expected {shape.columns}")
        if len(self.face_down) != len(self.tableau):
            raise InputError("face-down counts do not match the number of piles")
        for pile, down in zip(self.tableau, self.face_down):
            if not 0 <= down <= max(len(pile) - 1, 0):
                raise InputError(f"pile of {len(pile)} cards cannot have {down} face-down cards")
        cards = [c for p in self.tableau for c in p] + list(self.stock)
        if len(cards) != shape.size:
            raise InputError(f"deal has {len(cards)} cards, expected {shape.size}")
        counts = Counter(cards)
        for card, n in counts.items():
            if not shape.contains(card):
                raise InputError(f"card {card_name(card) if 0 <= card < 52 else card} is not in a {shape} deck")
            if n > shape.decks:
                raise InputError(f"duplicate card {card_name(card)} ({n} copies)")
        # Right size, no card too often: so every card is present exactly `decks` times.

    @property
    def cards(self) -> list[int]:
        """Tableau (pile by pile, bottom -> top) then stock (first turned first)."""
        return [c for p in self.tableau for c in p] + list(self.stock)


def deal_from_order(order: list[int], shape: DeckShape = STANDARD) -> Deal:
    """Deal an ordered pack the Klondike way: the first ``tableau_size`` cards row by row
    (pile i gets cards on rows 0..i; each row goes left to right starting at pile row), the
    remaining cards form the stock in the given order (first turned first)."""
    piles: list[list[int]] = [[] for _ in range(shape.columns)]
    k = 0
    for row in range(shape.columns):
        for col in range(row, shape.columns):
            piles[col].append(order[k])
            k += 1
    return Deal(tuple(tuple(p) for p in piles), tuple(order[k:]), shape)
