"""Deal files: Solvitaire's JSON deal format and a plain-text layout.

**JSON** (what Solvitaire reads: ``solvitaire --type klondike deal.json``)::

    {
      "tableau piles": [
        ["9D"],
        ["4c", "AS"],
        ["Qd", "10d", "JC"],
        ...
      ],
      "stock": ["6H", "KS", "10C", ..., "6C", "10S"]
    }

Piles are listed bottom -> top. A card is a rank ``A``, ``2``..``10``, ``J``, ``Q``, ``K`` (Solvitaire
also reads ``1``..``13``; it has no ``T``) and a suit letter ``C``, ``D``, ``H``, ``S``; a lower-case
suit letter marks a face-down card, as in Solvitaire (a pile written all upper case is all face up).
The stock is a pile too, bottom -> top: its LAST card is turned first, the reverse of
``Deal.stock``. A game in progress may also have ``"waste"`` (bottom -> top: its last card is the
one in play), ``"foundations"`` (Solvitaire's flat list of cards, each going onto its suit's
foundation in the order given, e.g. ``["AC", "2C", "AH"]``; a list of piles, ``[["AC", "2C"],
["AH"]]``, is read too) and ``"passes used"`` (passes through the stock begun, 1 in the first; a
dsolve key, written only past the first pass: Solvitaire refuses keys it does not know).

**Text**, for writing by hand::

    # Solvitaire seed 1
    pile 1: 9D
    pile 2: 4C | AS
    pile 3: QD 10D | JC
    ...
    stock: 10S 6C 3H 10H 7D ... 6H

One ``pile N:`` line per pile (numbered from 1), bottom -> top; cards left of ``|`` are face down,
right of it face up; without ``|`` all but the top card are face down, as dealt. ``stock:`` lists
the stock first turned first. Cards are case-insensitive and ``T`` means 10. ``#`` starts a
comment. An optional ``shape: 3x5/4`` line names the deck (see ``DeckShape.parse``). A game in
progress may add ``waste: ...`` (bottom -> top: the last card is the one in play),
``foundations: 3C AH`` (the top card of each foundation that has cards) and ``passes used: 2``.

Without a ``shape:`` line (and always in JSON) the deck is inferred from the cards: suits and ranks
up to the highest present, the number of piles, and two decks if there are more than one and a half
decks' worth of cards. ``Deal`` then checks the card counts and duplicates.

**Klondike-Solver**'s deck strings (``ks``) and PySol boards (``pysol``): see :mod:`dsolve.klondike.ksformat`.

:func:`load_deal` tells the formats apart by content (and a ``.json`` name) and reads at most
:data:`MAX_FILE_BYTES`, so an endless or huge file is refused, not read into memory.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from . import ksformat
from ..cards import (RANKS, STANDARD, SUITS, DeckShape, card_name, full_shape, make_card, parse_card, rank_of,
                     suit_of)
from .deal import Deal
from .deals import DEFAULT_CONVENTION, make_deal
from ..errors import InputError, shown

FORMATS = ("json", "text", "ks", "pysol")
MAX_FILE_BYTES = 1 << 20
"""The largest deal file read (a real one is a few KB)."""
_TABLEAU, _STOCK, _WASTE, _FOUNDATIONS, _PASSES = "tableau piles", "stock", "waste", "foundations", "passes used"
_MAX_JSON_DEPTH = 16  # a deal file nests 3 deep; json.loads recurses once per level


def load_deal(path: str | Path) -> Deal:
    """Read a deal file in the format :func:`detect_format` finds."""
    path = Path(path)
    text = _read_text(path)
    try:
        return parse_deal(text, detect_format(text, path.name))
    except InputError as err:
        raise InputError(f"{path}: {err}") from None


def detect_format(text: str, name: str = "") -> str:
    """JSON if the file is named ``*.json`` or starts with ``{``; Klondike-Solver's ``ks`` or
    ``pysol`` if its first line (not blank or a comment) is theirs; dsolve's ``text`` otherwise."""
    if name.lower().endswith(".json") or text.lstrip().startswith("{"):
        return "json"
    return ksformat.detect(text) or "text"


def parse_deal(text: str, fmt: str) -> Deal:
    """Parse the contents of a deal file in format ``fmt`` (one of :data:`FORMATS`)."""
    _check_format(fmt)
    return _PARSERS[fmt](text)


def dump_deal(deal: Deal, fmt: str) -> str:
    """The deal as the contents of a file in format ``fmt`` (one of :data:`FORMATS`)."""
    _check_format(fmt)
    return _WRITERS[fmt](deal)


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise InputError(f"unknown deal format {shown(fmt)} (expected one of: {', '.join(FORMATS)})")


def _read_text(path: Path) -> str:
    """The file's text, read in one bounded gulp (an endless file is cut off, then refused)."""
    def refuse(reason: str) -> InputError:
        return InputError(f"cannot read deal file {str(path)!r}: {reason}")

    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise refuse(err.strerror or str(err)) from None
    if len(data) > MAX_FILE_BYTES:
        raise refuse(f"larger than {MAX_FILE_BYTES >> 20} MiB (a deal file is a few KB)")
    try:
        if b"\0" not in data:
            return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    raise refuse("not a text file")


def _build(piles: list[list[int]], face_down: list[int], stock: list[int], shape: DeckShape | None,
           waste: Sequence[int] = (), home: Sequence[int] = (), passes_used: int = 1) -> Deal:
    """The deal of these parts; ``home`` lists the top card of each foundation that has cards."""
    if shape is None:
        shape = _infer_shape(piles, stock, waste, home)
    heights = [0] * shape.foundation_piles
    for card in home:
        if not shape.contains(card):
            raise InputError(f"foundation card {card_name(card)} is not in a {shape} deck")
        free = [i for i in range(suit_of(card), len(heights), shape.suits) if not heights[i]]
        if not free:
            raise InputError(f"{'two' if shape.decks == 1 else 'three'} foundations of "
                             f"{SUITS[suit_of(card)]} given")
        heights[free[0]] = rank_of(card) + 1
    return Deal(tuple(map(tuple, piles)), tuple(stock), shape, tuple(face_down), tuple(waste),
                tuple(heights), passes_used)


def _infer_shape(piles: list[list[int]], stock: list[int], waste: Sequence[int],
                 home: Sequence[int]) -> DeckShape:
    cards = [c for p in piles for c in p] + list(stock) + list(waste) + list(home)
    if not cards:
        raise InputError("the deal has no cards")
    suits = max(map(suit_of, cards)) + 1
    ranks = max(map(rank_of, cards)) + 1
    cards += [make_card(rank, suit_of(c)) for c in home for rank in range(rank_of(c))]
    decks = 2 if 2 * len(cards) > 3 * suits * ranks else 1
    return DeckShape(suits, ranks, len(piles), decks)


# --- Solvitaire JSON ---------------------------------------------------------------------------

# A JSON string (to the end of the text if it is not closed), or a bracket. Each string is matched
# once and never given back, so the scan is linear whatever the text.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[][{}]', re.DOTALL)


def _parse_json(text: str) -> Deal:
    _check_json_depth(text)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"bad JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except ValueError:  # int() refuses a number of thousands of digits
        raise InputError("bad JSON: a number too long to read") from None
    if not isinstance(doc, dict):
        raise InputError("a Solvitaire deal must be a JSON object")
    known = (_TABLEAU, _STOCK, _WASTE, _FOUNDATIONS, _PASSES)
    for key in doc:
        if key not in known:
            raise InputError(f"unknown key {shown(key)} (a Klondike deal has {', '.join(map(repr, known))})")
    for key in (_TABLEAU, _STOCK):
        if key not in doc:
            raise InputError(f"missing key {key!r}")
    piles = doc[_TABLEAU]
    if not isinstance(piles, list) or not all(isinstance(p, list) for p in piles):
        raise InputError(f"{_TABLEAU!r} must be a list of piles, each a list of cards")
    tableau, face_down = [], []
    for number, pile in enumerate(piles, 1):
        cards, down = _json_pile(pile, f"pile {number}")
        tableau.append(cards)
        face_down.append(down)
    stock, _ = _json_pile(doc[_STOCK], "stock")
    waste, _ = _json_pile(doc.get(_WASTE, []), "waste")
    home = _json_foundations(doc.get(_FOUNDATIONS, []))
    passes_used = doc.get(_PASSES, 1)
    if not isinstance(passes_used, int) or isinstance(passes_used, bool):
        raise InputError(f"{_PASSES!r} must be a whole number")
    return _build(tableau, face_down, stock[::-1], None, waste, home, passes_used)


def _json_foundations(items: object) -> list[int]:
    """The top card of each foundation with cards, from Solvitaire's flat list of cards (each
    goes onto its suit's foundation in the order given) or a list of piles (each A upward of one
    suit)."""
    if isinstance(items, list) and all(isinstance(item, str) for item in items):
        cards, _ = _json_pile(items, "foundations")
        piles: dict[int, list[int]] = {}
        for card in cards:
            piles.setdefault(suit_of(card), []).append(card)
        named = [(SUITS[suit], pile) for suit, pile in piles.items()]
    elif isinstance(items, list) and all(isinstance(item, list) for item in items):
        named = [(str(number), _json_pile(pile, f"foundation {number}")[0])
                 for number, pile in enumerate(items, 1)]
    else:
        raise InputError(f"{_FOUNDATIONS!r} must be a list of cards (Solvitaire's) or of piles")
    for name, cards in named:
        if cards != [make_card(rank, suit_of(cards[0])) for rank in range(len(cards))]:
            raise InputError(f"foundation {name} must hold A upward of one suit, got "
                             f"{' '.join(map(card_name, cards))}")
    return [cards[-1] for _, cards in named if cards]


def _check_json_depth(text: str) -> None:
    """Refuse arrays and objects nested deeper than a deal's, before ``json.loads`` recurses.

    Brackets inside strings do not count; where the strings found here and the JSON parser's
    differ, the text is not JSON and the parser stops there, before the difference."""
    depth = deepest = 0
    for token in _JSON_TOKEN.finditer(text):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif first in "]}":
            depth -= 1
    if deepest > _MAX_JSON_DEPTH:
        raise InputError(f"bad JSON: nested {deepest} deep (a deal file nests 3 deep)")


def _json_pile(items: object, where: str) -> tuple[list[int], int]:
    """Cards of a JSON pile and how many at its bottom are face down (lower-case suit)."""
    if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
        raise InputError(f"{where}: expected a list of card strings")
    cards, down = [], 0
    for i, item in enumerate(items):
        cards.append(_json_card(item, where))
        if item[-1:].islower():
            if down != i:
                raise InputError(f"{where}: face-down card {item!r} lies on a face-up card")
            down += 1
    return cards, down


def _json_card(item: str, where: str) -> int:
    rank = item[:-1]
    # Solvitaire's numeric ranks, 1 = A .. 13 = K
    if len(rank) <= 2 and rank.isdecimal() and 1 <= int(rank) <= len(RANKS):
        rank = RANKS[int(rank) - 1]
    try:
        return parse_card(rank + item[-1:])
    except InputError:
        raise InputError(f"{where}: unknown card {shown(item)} (expected e.g. AS, 10H, qd)") from None


def _dump_json(deal: Deal) -> str:
    def spell(card: int, down: bool) -> str:
        name = card_name(card)
        return name[:-1] + name[-1].lower() if down else name

    piles = [json.dumps([spell(c, i < down) for i, c in enumerate(pile)])
             for pile, down in zip(deal.tableau, deal.face_down)]
    stock = json.dumps([spell(c, False) for c in reversed(deal.stock)])
    body = ",\n    ".join(piles)
    extra = ""
    if deal.in_progress:  # as Solvitaire reads it; "passes used" (dsolve's) only past the first
        home = [card_name(c) for c in deal.home_cards]
        extra = (f',\n  "{_WASTE}": {json.dumps([card_name(c) for c in deal.waste])},\n'
                 f'  "{_FOUNDATIONS}": {json.dumps(home)}')
        if deal.passes_used > 1:
            extra += f',\n  "{_PASSES}": {deal.passes_used}'
    return f'{{\n  "{_TABLEAU}": [\n    {body}\n  ],\n  "{_STOCK}": {stock}{extra}\n}}\n'


# --- plain text --------------------------------------------------------------------------------

_PILE_KEY = re.compile(r"pile\s*([0-9]{1,9})")


_TEXT_KEYS = ("stock", "shape", "waste", "foundations", "passes used")


def _parse_text(text: str) -> Deal:
    piles: dict[int, tuple[list[int], int]] = {}
    stock: list[int] | None = None
    shape: DeckShape | None = None
    seen: dict[str, object] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        pile_key = _PILE_KEY.fullmatch(key)
        try:
            if not sep or not (pile_key or key in _TEXT_KEYS):
                raise InputError(f"expected 'pile N:' or one of {', '.join(k + ':' for k in _TEXT_KEYS)} "
                                 f"got {shown(line)}")
            if key in seen:
                raise InputError(f"{key} given twice")
            if key == "shape":
                shape = seen[key] = DeckShape.parse(value.strip())
            elif key == "stock":
                stock = seen[key] = _text_cards(value)
            elif key == "passes used":
                if not value.strip().isdecimal():
                    raise InputError(f"passes used must be a whole number, got {shown(value.strip())}")
                seen[key] = int(value)
            elif key in ("waste", "foundations"):
                seen[key] = _text_cards(value)
            else:
                index = int(pile_key.group(1))
                if index < 1 or index in piles:
                    raise InputError(f"pile {index} given twice" if index else "piles are numbered from 1")
                piles[index] = _text_pile(value)
        except InputError as err:
            raise InputError(f"line {number}: {err}") from None
    if not piles:
        raise InputError("no 'pile N:' lines")
    missing = [i for i in range(1, max(piles) + 1) if i not in piles]
    if missing:
        raise InputError(f"pile {missing[0]} missing")
    if stock is None:
        raise InputError("no 'stock:' line")
    ordered = [piles[i] for i in sorted(piles)]
    return _build([p for p, _ in ordered], [d for _, d in ordered], stock, shape,
                  seen.get("waste", []), seen.get("foundations", []), seen.get("passes used", 1))


def _text_pile(value: str) -> tuple[list[int], int]:
    parts = value.split("|")
    if len(parts) > 2:
        raise InputError("more than one '|' in a pile")
    if len(parts) == 2:
        down = _text_cards(parts[0])
        return down + _text_cards(parts[1]), len(down)
    cards = _text_cards(value)
    return cards, max(len(cards) - 1, 0)


def _text_cards(value: str) -> list[int]:
    return [parse_card(word) for word in value.split()]


def _dump_text(deal: Deal) -> str:
    lines = ["# dsolve deal: piles bottom -> top, '|' between face-down and face-up cards;",
             "# stock first turned first"]
    if deal.shape != STANDARD:
        lines.append(f"shape: {deal.shape}")
    for number, (pile, down) in enumerate(zip(deal.tableau, deal.face_down), 1):
        names = [card_name(c) for c in pile]
        if len(pile) > 1:
            names.insert(down, "|")
        lines.append(" ".join([f"pile {number}:", *names]))
    lines.append(" ".join(["stock:", *map(card_name, deal.stock)]))
    if deal.in_progress:
        lines.append(" ".join(["waste:", *map(card_name, deal.waste)]))
        lines.append(" ".join(["foundations:", *(card_name(make_card(height - 1, suit))
                                                 for suit, height in enumerate(deal.foundations)
                                                 if height)]))
        lines.append(f"passes used: {deal.passes_used}")
    return "\n".join(lines) + "\n"


_PARSERS = {"json": _parse_json, "text": _parse_text,
            "ks": ksformat.parse_deck_file, "pysol": ksformat.parse_board_file}
_WRITERS = {"json": _dump_json, "text": _dump_text,
            "ks": ksformat.dump_deck_string, "pysol": ksformat.dump_board}


def choose_deal(seed: str | None = None, convention: str | None = None, deal_file: str | None = None,
                shape: str | None = None, decks: int = 1) -> Deal:
    """The deal a user chose (as the CLI's deal options): from ``deal_file``, else ``seed`` (default
    1) dealt by ``convention`` (default solvitaire) with the ``shape`` deck (default: the standard
    one, or with ``decks`` 2 the two-deck one)."""
    if deal_file is not None:
        given = [name for name, value in (("SEED", seed), ("--deal", convention), ("--shape", shape))
                 if value is not None]
        if given:
            raise InputError(f"--file gives the whole deal; drop {', '.join(given)}")
        return load_deal(deal_file)
    deck = DeckShape.parse(shape) if shape is not None else full_shape(decks)
    return make_deal(convention or DEFAULT_CONVENTION, "1" if seed is None else seed, deck)
