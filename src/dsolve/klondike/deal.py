"""The Klondike layout, dealt or in progress: piles, face-down counts, stock, waste, foundations,
validated against a deck shape."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..cards import RANKS, STANDARD, SUITS, DeckShape, card_name, make_card
from ..errors import InputError


@dataclass(frozen=True)
class Deal:
    """A layout: a starting deal, or a game in progress.

    ``tableau``: one tuple per pile, bottom -> top. ``face_down``: how many cards at the bottom of
    each pile are face down (a dealt layout has ``len(pile) - 1``; ``None`` means that); the rest
    are face up, and any of them may be, not only one run. ``stock``: the stock in the order it is
    turned, first turned first. ``shape``: the deck. A game in progress also has ``waste`` (bottom
    -> top, its top the playable card), ``foundations`` (how many cards, A upward, each foundation
    pile holds, in the suit order C, H, S, D; with two decks two piles a suit, the suits' first
    piles then their second ones; empty means none) and ``passes_used`` (passes through the
    stock begun: 1 in the first, 2 after one redeal).
    """

    tableau: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    shape: DeckShape = STANDARD
    face_down: tuple[int, ...] = field(default=None)  # type: ignore[assignment]
    waste: tuple[int, ...] = ()
    foundations: tuple[int, ...] = ()
    passes_used: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "tableau", tuple(tuple(p) for p in self.tableau))
        object.__setattr__(self, "stock", tuple(self.stock))
        object.__setattr__(self, "waste", tuple(self.waste))
        if self.face_down is None:
            object.__setattr__(self, "face_down", tuple(max(len(p) - 1, 0) for p in self.tableau))
        else:
            object.__setattr__(self, "face_down", tuple(self.face_down))
        if not self.foundations:
            object.__setattr__(self, "foundations", (0,) * self.shape.foundation_piles)
        else:
            object.__setattr__(self, "foundations", tuple(self.foundations))
        self.validate()

    def validate(self) -> None:
        """Raise :class:`InputError` unless every card of the shape is present exactly ``decks``
        times (on the tableau, in the stock or waste, or on a foundation), every foundation holds
        A upward of its suit, and face-down cards lie only under face-up ones."""
        shape = self.shape
        if len(self.tableau) != shape.columns:
            raise InputError(f"deal has {len(self.tableau)} piles, expected {shape.columns}")
        if len(self.face_down) != len(self.tableau):
            raise InputError("face-down counts do not match the number of piles")
        for number, (pile, down) in enumerate(zip(self.tableau, self.face_down), 1):
            if not 0 <= down <= max(len(pile) - 1, 0):
                raise InputError(f"pile {number} of {len(pile)} cards cannot have {down} face-down "
                                 "cards (a face-down card lies only under a face-up one)")
        if len(self.foundations) != shape.foundation_piles:
            raise InputError(f"{len(self.foundations)} foundations given, expected {shape.foundation_piles}")
        for pile, height in enumerate(self.foundations):
            if not 0 <= height <= shape.ranks:
                raise InputError(f"the {SUITS[pile % shape.suits]} foundation cannot hold {height} cards "
                                 f"(ranks A..{RANKS[shape.ranks - 1]})")
        if self.passes_used < 1:
            raise InputError(f"passes used must be at least 1, got {self.passes_used}")
        cards = self.cards + self.home_cards
        if len(cards) != shape.size:
            raise InputError(f"deal has {len(cards)} cards, expected {shape.size}")
        if shape.decks == 1 and set(cards) == shape.card_set:
            return  # right size, every card of the shape: each present once
        counts = Counter(cards)
        for card, n in counts.items():
            if not shape.contains(card):
                raise InputError(f"card {card_name(card) if 0 <= card < 52 else card} is not in a {shape} deck")
            if n > shape.decks:
                raise InputError(f"duplicate card {card_name(card)} ({n} copies)")
        # Right size, no card too often: so every card is present exactly `decks` times.

    @property
    def cards(self) -> list[int]:
        """Tableau (pile by pile, bottom -> top), then stock (first turned first), then waste."""
        return [c for p in self.tableau for c in p] + list(self.stock) + list(self.waste)

    @property
    def home_cards(self) -> list[int]:
        """The cards on the foundations."""
        return [make_card(rank, pile % self.shape.suits) for pile, height in enumerate(self.foundations)
                for rank in range(height)]

    @property
    def in_progress(self) -> bool:
        """Whether this is a game in progress: cards home, a waste, or a later pass."""
        return bool(self.waste) or any(self.foundations) or self.passes_used > 1

    @property
    def dealt(self) -> bool:
        """Whether this is a layout as dealt: piles of 1, 2, ... cards (the shape's), only the top
        card of each face up, nothing played."""
        return (not self.in_progress
                and all(len(p) == i + 1 for i, p in enumerate(self.tableau))
                and all(down == len(p) - 1 for p, down in zip(self.tableau, self.face_down)))

    @property
    def talon(self) -> list[int]:
        """The waste (bottom -> top) then the stock (first turned first): the order in which the
        talon's cards come round."""
        return list(self.waste) + list(self.stock)


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
