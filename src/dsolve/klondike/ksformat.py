"""Klondike-Solver's deal formats (ShootMe/Klondike-Solver): deck strings and PySol boards.

**Deck string** (its ``/DECK`` argument and a line of its deal files): 156 digits, three a card,
the rank ``01`` (ace) .. ``13`` (king) then the suit ``1`` clubs, ``2`` diamonds, ``3`` hearts,
``4`` spades, so ``014`` is the ace of spades (``Solitaire::LoadSolitaire``); spaces between
digits are ignored. The cards are in
dealing order (``Solitaire::ResetGame``): row by row, row r giving pile r its face-up card and
piles r+1..7 one face-down card each (28 cards); the other 24 are the stock, first turned first.

**PySol board** (``Solitaire::LoadPysol``, as in its ``TestDeals.txt``)::

    Talon: TC TS AD 4D QS 3H ... AS
    5C
    <7H> 9H
    <2D> <9S> AC
    ...

The talon lists the stock first turned first; then seven rows, piles 1..7, each bottom -> top
with face-down cards in ``<>``. Ten is ``T`` (``10`` is read too). What Klondike-Solver prints
with ``/OUT 1`` is read as well: a ``Foundations: H-0 C-0 D-0 S-0`` line first, the talon as
``Talon: WASTE ==> STOCK <==`` (the waste top card first) and each row starting with ``:``.
Cards on the foundations or in the waste make a game in progress (in its first pass).

**Game line** ``Game: N``, also in its deal files: Klondike-Solver's game N (``/GAME N``, see
:func:`dsolve.klondike.deals.klondike_solver`).

A file holds one deal; lines starting with ``#`` are comments and blank lines are skipped, as
Klondike-Solver does. Writing (:func:`dump_deck_string`, :func:`dump_board`) needs the standard
starting layout, the only one Klondike-Solver reads.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..cards import RANKS, STANDARD, SUITS, make_card, parse_card, rank_of, suit_of
from .deal import Deal, deal_from_order
from .deals import make_deal
from ..errors import InputError, shown

_DECK_DIGITS = 3 * STANDARD.size
_ROWS = STANDARD.columns
_SUIT_DIGITS = "CDHS"  # Klondike-Solver's suit digit 1..4 -> suit letter
_PYSOL_RANKS = "A23456789TJQK"
_EMPTY_FOUNDATION = "0"  # Klondike-Solver prints a foundation's top rank, 0 when it is empty
_DECK_LINE = re.compile(r"[0-9][0-9 \t]*")
_GAME_LINE = re.compile(r"game\b\s*:?\s*(.*)", re.IGNORECASE)
_FACE_DOWN = re.compile(r"<(\S+)>")
_FOUNDATIONS, _TALON = "foundations:", "talon:"
_FORMAT_OF_KIND = {"deck": "ks", "game": "ks", "board": "pysol"}


def detect(text: str) -> str | None:
    """``"ks"`` if the first line that is not blank or a comment is a deck string or a game line,
    ``"pysol"`` if it starts a PySol board, else ``None``."""
    first = next(_significant_lines(text), None)
    return _FORMAT_OF_KIND.get(_kind(first[1])) if first else None


def parse_deck_file(text: str) -> Deal:
    """The deal of a file holding one deck string or one ``Game: N`` line."""
    kind, lines = _one_deal(text, ("deck", "game"))
    number, line = lines[0]
    try:
        if kind == "game":
            return make_deal("klondike-solver", _GAME_LINE.fullmatch(line).group(1))
        return deal_from_order(_deck_cards("".join(line.split())))
    except InputError as err:
        raise InputError(f"line {number}: {err}") from None


def parse_board_file(text: str) -> Deal:
    """The deal of a file holding one PySol board."""
    _, lines = _one_deal(text, ("board",))
    return _Board.parse(lines).deal()


def dump_deck_string(deal: Deal) -> str:
    """The deal as a Klondike-Solver deck string (one line)."""
    digits = []
    for card in _dealing_order(deal):
        digits.append(f"{rank_of(card) + 1:02d}{_SUIT_DIGITS.index(SUITS[suit_of(card)]) + 1}")
    return "".join(digits) + "\n"


def dump_board(deal: Deal) -> str:
    """The deal as a PySol board: the talon line of ``TestDeals.txt``, then the rows as
    Klondike-Solver prints them, each after ``: ``. (Klondike-Solver reads a board only if it has
    211 characters or more; the ``TestDeals.txt`` layout has 205 with LF line endings, 213 with
    the CRLF endings it was written with.)"""
    _dealing_order(deal)  # refuses what Klondike-Solver cannot read
    lines = ["Talon: " + " ".join(map(_pysol_name, deal.stock))]
    for pile, down in zip(deal.tableau, deal.face_down):
        lines.append(" ".join([":", *(f"<{_pysol_name(c)}>" if i < down else _pysol_name(c)
                                      for i, c in enumerate(pile))]))
    return "\n".join(lines) + "\n"


# --- reading -----------------------------------------------------------------------------------

_Line = tuple[int, str]  # line number (from 1), text stripped


def _significant_lines(text: str) -> Iterator[_Line]:
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield number, line


def _kind(line: str) -> str | None:
    lower = line.lower()
    if lower.startswith((_FOUNDATIONS, _TALON)):
        return "board"
    if _DECK_LINE.fullmatch(line):
        return "deck"
    if _GAME_LINE.fullmatch(line):
        return "game"
    return None


def _one_deal(text: str, kinds: tuple[str, ...]) -> tuple[str, list[_Line]]:
    """The kind and lines of the file's only deal: a deck string or game line is one line, a
    board its optional foundations line, its talon line and seven rows."""
    lines = list(_significant_lines(text))
    if not lines:
        raise InputError("no deal: the file has only blank lines and comments")
    number, first = lines[0]
    kind = _kind(first)
    if kind not in kinds:
        expected = "a PySol board ('Talon: ...')" if kinds == ("board",) else \
            "a Klondike-Solver deck string (156 digits) or 'Game: N'"
        raise InputError(f"line {number}: expected {expected}, got {shown(first)}")
    size = 1
    if kind == "board":
        size = 1 + _ROWS + first.lower().startswith(_FOUNDATIONS)
        if len(lines) < size:
            raise InputError(f"line {number}: the PySol board has {len(lines) - size + _ROWS} "
                             f"tableau rows, expected {_ROWS}")
    if len(lines) > size:
        number, extra = lines[size]
        raise InputError(f"line {number}: more after the deal ({shown(extra)}); dsolve reads one "
                         f"deal a file")
    return kind, lines[:size]


def _deck_cards(digits: str) -> list[int]:
    if len(digits) != _DECK_DIGITS:
        raise InputError(f"the deck string has {len(digits)} digits, expected {_DECK_DIGITS} "
                         f"(52 cards of 3 digits: rank 01..13, suit 1..4)")
    cards: list[int] = []
    for index in range(STANDARD.size):
        code = digits[3 * index:3 * index + 3]
        rank, suit = int(code[:2]), int(code[2])
        where = f"card {index + 1} ({code})"
        if not 1 <= rank <= len(RANKS):
            raise InputError(f"{where}: rank {code[:2]} is not 01..13")
        if not 1 <= suit <= len(_SUIT_DIGITS):
            raise InputError(f"{where}: suit digit {suit} is not 1..4 "
                             f"(1 clubs, 2 diamonds, 3 hearts, 4 spades)")
        card = make_card(rank - 1, SUITS.index(_SUIT_DIGITS[suit - 1]))
        if card in cards:
            raise InputError(f"{where}: {_pysol_name(card)} again (card {cards.index(card) + 1})")
        cards.append(card)
    return cards


@dataclass(frozen=True)
class _Board:
    """What a PySol board says, checked for form only; :meth:`deal` decides what dsolve takes."""

    foundations: dict[int, int]  # suit -> how many cards its foundation holds
    waste: tuple[int, ...]  # bottom -> top
    stock: tuple[int, ...]  # first turned first
    tableau: tuple[tuple[int, ...], ...]  # bottom -> top
    face_down: tuple[int, ...]
    line: int  # where the board starts, for messages

    @classmethod
    def parse(cls, lines: list[_Line]) -> "_Board":
        """A board from its lines: an optional foundations line, the talon line, the rows."""
        foundations: dict[int, int] = {}
        first = number = lines[0][0]
        text = lines[0][1]
        if text.lower().startswith(_FOUNDATIONS):
            foundations = _foundations(text[len(_FOUNDATIONS):], number)
            lines = lines[1:]
            number, text = lines[0]
            if not text.lower().startswith(_TALON):
                raise InputError(f"line {number}: expected 'Talon: ...' after the foundations, "
                                 f"got {shown(text)}")
        waste, stock = _talon(text[len(_TALON):], number)
        rows = [_row(text, number) for number, text in lines[1:]]
        return cls(foundations, waste, stock, tuple(tuple(pile) for pile, _ in rows),
                   tuple(down for _, down in rows), first)

    def deal(self) -> Deal:
        """The position the board shows: a starting deal, or a game in progress (cards on the
        foundations or in the waste; a board does not say which pass it is in: the first)."""
        heights = tuple(self.foundations.get(suit, 0) for suit in range(len(SUITS)))
        return Deal(self.tableau, self.stock, STANDARD, self.face_down, self.waste, heights)


_FOUNDATION = re.compile(r"([CDHS])-(0|10|[A2-9TJQK])", re.IGNORECASE)


def _foundations(text: str, number: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    for item in text.split():
        match = _FOUNDATION.fullmatch(item)
        if not match:
            raise InputError(f"line {number}: bad foundation {shown(item)} "
                             f"(expected e.g. H-0 for an empty one, S-5 for spades up to 5)")
        suit, rank = match.groups()
        top = parse_card(rank + suit) if rank != _EMPTY_FOUNDATION else None
        suit_index = SUITS.index(suit.upper())
        if suit_index in counts:
            raise InputError(f"line {number}: foundation {suit.upper()} given twice")
        counts[suit_index] = 0 if top is None else rank_of(top) + 1
    return counts


def _talon(text: str, number: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(waste bottom -> top, stock first turned first) of a talon line's text."""
    if "==>" not in text:
        return (), tuple(_card(token, number) for token in text.split())
    waste, _, stock = text.partition("==>")
    stock = stock.strip().removesuffix("<==")
    return (tuple(_card(token, number) for token in reversed(waste.split())),
            tuple(_card(token, number) for token in stock.split()))


def _row(text: str, number: int) -> tuple[list[int], int]:
    """The cards of a tableau row (bottom -> top) and how many at its bottom are face down."""
    cards, down = [], 0
    for token in text.removeprefix(":").split():
        hidden = _FACE_DOWN.fullmatch(token)
        if hidden and down < len(cards):
            raise InputError(f"line {number}: face-down card {token} lies on a face-up card")
        cards.append(_card(hidden.group(1) if hidden else token, number))
        down += bool(hidden)
    return cards, down


def _card(token: str, number: int) -> int:
    try:
        return parse_card(token)
    except InputError:
        raise InputError(f"line {number}: bad card {shown(token)} in a PySol board "
                         f"(expected e.g. 9H, TC, or <7H> for a face-down card)") from None


# --- writing -----------------------------------------------------------------------------------

def _pysol_name(card: int) -> str:
    return _PYSOL_RANKS[rank_of(card)] + SUITS[suit_of(card)]


def _dealing_order(deal: Deal) -> list[int]:
    """The 52 cards in Klondike-Solver's dealing order; :class:`InputError` unless the deal is a
    standard starting layout (piles of 1..7 cards, all but the top face down)."""
    if deal.shape != STANDARD:
        raise InputError(f"Klondike-Solver plays the standard 4x13/7 game only, not {deal.shape}")
    for number, (pile, down) in enumerate(zip(deal.tableau, deal.face_down), 1):
        if len(pile) != number or down != number - 1:
            raise InputError(f"Klondike-Solver reads starting layouts only: pile {number} has "
                             f"{len(pile)} cards with {down} face down, expected {number} with "
                             f"{number - 1} face down")
    columns = STANDARD.columns
    order = [deal.tableau[pile][row] for row in range(columns) for pile in range(row, columns)]
    return order + list(deal.stock)
