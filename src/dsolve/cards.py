"""Cards and deck shapes.

A card is an ``int``: ``rank * 4 + suit`` with rank 0..12 for A..K and suit 0..3 in the order
C, H, S, D (Solvitaire's order within a rank). With that order a card's colour is ``suit & 1``
(0 black, 1 red), and any prefix of the suits alternates colours, so a small deck of 2 or 3
suits still has both colours. Two-deck games hold each card twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .errors import InputError, shown

SUITS = "CHSD"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_ALIASES = {"T": 9, "1": 0}


def make_card(rank: int, suit: int) -> int:
    """Card number of a 0-based rank (A=0) and suit index (C, H, S, D)."""
    return rank * 4 + suit


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def is_red(card: int) -> bool:
    return bool(card & 1)


def card_name(card: int) -> str:
    """``"AS"``, ``"10H"``, ``"KD"``."""
    return RANKS[card >> 2] + SUITS[card & 3]


def parse_card(text: str) -> int:
    """Parse ``"10H"``, ``"TH"``, ``"ah"`` (case-insensitive) into a card number."""
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS:
        raise InputError(f"unknown card {shown(text)} (expected rank A,2..10,J,Q,K and suit C,D,H,S)")
    rank_text, suit = t[:-1], SUITS.index(t[-1])
    if rank_text in RANKS:
        rank = RANKS.index(rank_text)
    elif rank_text in _RANK_ALIASES:
        rank = _RANK_ALIASES[rank_text]
    else:
        raise InputError(f"unknown card {shown(text)} (expected rank A,2..10,J,Q,K and suit C,D,H,S)")
    return make_card(rank, suit)


@dataclass(frozen=True)
class DeckShape:
    """Which cards a game uses and how the tableau is dealt.

    ``suits`` takes the first suits of C, H, S, D; ``ranks`` the ranks A upward; ``columns`` piles
    of 1..columns cards; ``decks`` copies of every card. The standard game is 4 x 13, 7 columns.
    """

    suits: int = 4
    ranks: int = 13
    columns: int = 7
    decks: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.suits <= 4:
            raise InputError(f"suits must be 1..4, got {self.suits}")
        if not 1 <= self.ranks <= 13:
            raise InputError(f"ranks must be 1..13, got {self.ranks}")
        if not 1 <= self.decks <= 2:
            raise InputError(f"decks must be 1 or 2, got {self.decks}")
        if self.columns < 1 or self.columns * (self.columns + 1) // 2 > self.size:
            raise InputError(f"{self.columns} columns do not fit a deck of {self.size} cards")

    @property
    def size(self) -> int:
        return self.suits * self.ranks * self.decks

    @property
    def foundation_piles(self) -> int:
        """Piles of A..K a full game builds: one per suit and deck (pile i holds suit i % suits)."""
        return self.suits * self.decks

    @property
    def tableau_size(self) -> int:
        return self.columns * (self.columns + 1) // 2

    @property
    def stock_size(self) -> int:
        return self.size - self.tableau_size

    def cards(self) -> list[int]:
        """Every card of one deck, rank-major (A..K), suits C, H, S, D within a rank."""
        return [make_card(r, s) for r in range(self.ranks) for s in range(self.suits)]

    @cached_property
    def card_set(self) -> frozenset[int]:
        """The cards of :meth:`cards` as a set (made once per shape)."""
        return frozenset(self.cards())

    def contains(self, card: int) -> bool:
        return 0 <= card < 52 and rank_of(card) < self.ranks and suit_of(card) < self.suits

    @classmethod
    def parse(cls, text: str) -> "DeckShape":
        """``"4x13"`` or ``"3x5/4"`` (suits x ranks / columns) or ``"2x4x13/9"`` (decks first)."""
        try:
            body, _, cols = text.partition("/")
            parts = [int(p) for p in body.lower().split("x")]
            decks = 1
            if len(parts) == 3:
                decks, suits, ranks = parts
            else:
                suits, ranks = parts
            columns = int(cols) if cols else (9 if decks == 2 else 7)
        except ValueError:
            raise InputError(f"bad deck shape {shown(text)} (expected e.g. 4x13/7 or 3x5/4)") from None
        return cls(suits, ranks, columns, decks)

    def __str__(self) -> str:
        prefix = f"{self.decks}x" if self.decks != 1 else ""
        return f"{prefix}{self.suits}x{self.ranks}/{self.columns}"


STANDARD = DeckShape()
DOUBLE = DeckShape(decks=2, columns=9)


def full_shape(decks: int) -> DeckShape:
    """The full deck of a game with ``decks`` decks: the standard one, or two decks in 9 piles."""
    return DOUBLE if decks == 2 else STANDARD
