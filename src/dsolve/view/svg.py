"""SVG drawing primitives: the card faces and backs (defined once as symbols, placed with
``<use>``), empty places, labels, and the ``<svg>`` element.

Every card placed carries a class saying where it lies, which a reader of the picture (or a
test) can count: ``down`` a face-down card, ``up`` a face-up one, ``home`` a foundation's top
card, ``stock`` a stock or draw pile (drawn as one back), ``waste`` a waste card.
"""
from __future__ import annotations

from html import escape

from ..cards import RANKS, card_name, is_red

CARD_W, CARD_H = 60, 84
STEP = 70            # one place to the next, left to right
DOWN_GAP, UP_GAP = 9, 24  # a pile's fan: under a face-down card, under a face-up one
SVG_NS = "http://www.w3.org/2000/svg"
_SUIT_GLYPHS = "\u2663\u2665\u2660\u2666"  # clubs, hearts, spades, diamonds (the order of dsolve.cards)
_INK = ("#161616", "#c8102e")  # black, red
_EDGES = ("#7a7a7a", "#c08a1e")  # deck 0's and deck 1's card edges (two-deck games tell the decks apart)
_BACKS = (("#244f8f", "#3d6fb8"), ("#8f2c24", "#b8483d"))  # deck 0's and deck 1's back colours
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def face_id(card: int, deck: int = 0) -> str:
    """The symbol id of ``card``'s face in ``deck`` (0 or 1): ``a7H``, ``b10S``."""
    return "ab"[deck] + card_name(card)


def _face(card: int, deck: int) -> str:
    ink = _INK[is_red(card)]
    rank, suit = RANKS[card >> 2], _SUIT_GLYPHS[card & 3]
    return (f'<symbol id="{face_id(card, deck)}" overflow="visible">'
            f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" fill="#fff" '
            f'stroke="{_EDGES[deck]}" stroke-width="{1 + deck}"/>'
            f'<text x="4" y="17" font-size="16" font-weight="bold" fill="{ink}">{rank}</text>'
            f'<text x="{CARD_W - 5}" y="17" font-size="16" text-anchor="end" fill="{ink}">{suit}</text>'
            f'<text x="{CARD_W // 2}" y="{CARD_H - 16}" font-size="34" text-anchor="middle" '
            f'fill="{ink}">{suit}</text></symbol>')


def _back(deck: int) -> str:
    dark, light = _BACKS[deck]
    return (f'<symbol id="back{"ab"[deck]}" overflow="visible">'
            f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" fill="{dark}" '
            f'stroke="#fff" stroke-width="1"/>'
            f'<rect x="5" y="5" width="{CARD_W - 10}" height="{CARD_H - 10}" rx="3" fill="none" '
            f'stroke="{light}" stroke-width="3" stroke-dasharray="4 3"/></symbol>')


def defs(decks: int = 1) -> str:
    """The ``<defs>`` of every face and back of ``decks`` decks (a page holds them once)."""
    faces = "".join(_face(card, deck) for deck in range(decks) for card in range(52))
    return f'<defs>{faces}{"".join(_back(deck) for deck in range(decks))}</defs>'


def card(x: float, y: float, card_: int, deck: int = 0, cls: str = "up") -> str:
    """A face-up card with its top left corner at (x, y)."""
    return f'<use href="#{face_id(card_, deck)}" x="{x:g}" y="{y:g}" class="{cls}"/>'


def back(x: float, y: float, deck: int = 0, cls: str = "down") -> str:
    """A face-down card with its top left corner at (x, y)."""
    return f'<use href="#back{"ab"[deck]}" x="{x:g}" y="{y:g}" class="{cls}"/>'


def place(x: float, y: float, label: str = "") -> str:
    """An empty place (a dashed outline), with ``label`` in it."""
    mark = (f'<text x="{x + CARD_W / 2:g}" y="{y + CARD_H / 2 + 5:g}" font-size="13" text-anchor="middle" '
            f'fill="#cfe3cf">{escape(label)}</text>') if label else ""
    return (f'<rect x="{x + 0.5:g}" y="{y + 0.5:g}" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" '
            f'fill="none" stroke="#cfe3cf" stroke-width="1.5" stroke-dasharray="5 4"/>{mark}')


def label(x: float, y: float, text: str, size: int = 13, anchor: str = "start", cls: str = "",
          bold: bool = False, colour: str = "#f4f4ea") -> str:
    """A line of text with its baseline starting (``anchor``: or centred, or ending) at (x, y)."""
    extra = (f' class="{cls}"' if cls else "") + (' font-weight="bold"' if bold else "")
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" fill="{colour}"{extra}>'
            f'{escape(text)}</text>')


def count(x: float, y: float, n: int) -> str:
    """How many cards a squared pile holds, under the pile at (x, y) (class ``count``)."""
    return label(x + CARD_W / 2, y + CARD_H + 14, str(n), 12, "middle", "count")


def svg(body: str, width: float, height: float) -> str:
    """An ``<svg>`` element of ``width`` x ``height`` on the green cloth, using a page's card symbols."""
    return (f'<svg xmlns="{SVG_NS}" viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
            f'font-family="{FONT}"><rect width="100%" height="100%" fill="#1f6b3a"/>{body}</svg>')


def standalone(element: str, decks: int = 1) -> str:
    """An :func:`svg` element made a picture of its own: the card symbols of ``decks`` decks put in."""
    head, sep, rest = element.partition(">")
    return f"{head}{sep}{defs(decks)}{rest}"


def mark(x: float, y: float, height: float = CARD_H) -> str:
    """A yellow outline around what the last move put at (x, y), ``height`` high (a run's fan)."""
    return (f'<rect x="{x - 2:g}" y="{y - 2:g}" width="{CARD_W + 4}" height="{height + 4:g}" rx="6" fill="none" '
            f'stroke="#ffd34d" stroke-width="3" class="moved"/>')
