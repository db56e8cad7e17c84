"""Crapette's rule options and the card tables the engine reads them through.

The engine names the 104 cards by id: ``deck * 52 + kind``, deck 0 for seat A and 1 for seat B,
``kind`` as in :mod:`dsolve.cards` (``rank * 4 + suit``, suits C, H, S, D, so a kind's colour is
``kind & 1``). Ids keep the two copies of a card apart, which makes every pile's content exact
(and the position key of the stalemate rule unique). Id :data:`HIDDEN` stands for a card a player
cannot see (a face-down reserve card, the draw piles); it fits nowhere.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..cards import card_name, parse_card
from ..errors import InputError

CARDS = 104
HIDDEN = 104
HOUSE_COUNT = 8
TARGET = 300

LOAD_MATCHES = ("colour", "suit")
EMPTY_HOUSE_RULES = ("any", "none")

# Per id (0..104): rank 0..12, suit 0..3 (HIDDEN: a rank nothing matches).
RANK = [(i % 52) >> 2 for i in range(CARDS)] + [99]
SUIT = [i & 3 for i in range(CARDS)] + [0]
# A house top t takes card c when HOUSE_KEY[c] == HOUSE_NEED[t]: one rank lower, other colour.
HOUSE_KEY = [RANK[i] * 2 + (i & 1) for i in range(CARDS)] + [-1]
HOUSE_NEED = [(RANK[i] - 1) * 2 + 1 - (i & 1) for i in range(CARDS)] + [-2]


def _load_tables(match: str) -> tuple[list[int], list[frozenset[int]]]:
    """(key per id, keys a top accepts per id) for loading onto an opponent's reserve or waste:
    one rank up or down, same colour (``colour``) or same suit (``suit``)."""
    width, mask = (2, 1) if match == "colour" else (4, 3)
    key = [RANK[i] * width + (i & mask) for i in range(CARDS)] + [-1]
    need = [frozenset({(RANK[i] - 1) * width + (i & mask), (RANK[i] + 1) * width + (i & mask)})
            for i in range(CARDS)] + [frozenset()]
    return key, need


LOAD_TABLES = {match: _load_tables(match) for match in LOAD_MATCHES}

# Bit masks over the 52 kinds, for counting which cards a position lets a player play.
HOUSE_ACCEPTS = [sum(1 << (r * 4 + s) for s in range(4) if (s & 1) != (i & 1))
                 if (r := RANK[i] - 1) >= 0 else 0 for i in range(CARDS)] + [0]
ALL_KINDS = (1 << 52) - 1


def load_accepts(match: str) -> list[int]:
    """Bit mask per id of the kinds that may be loaded onto it under ``match``."""
    mask = 1 if match == "colour" else 3
    out = []
    for i in range(CARDS):
        bits = 0
        for r in (RANK[i] - 1, RANK[i] + 1):
            if 0 <= r < 13:
                bits |= sum(1 << (r * 4 + s) for s in range(4) if (s & mask) == (i & mask))
        out.append(bits)
    return out + [0]


def name(card: int) -> str:
    """``"7H"`` for an id (either deck), ``"??"`` for :data:`HIDDEN`."""
    return "??" if card == HIDDEN else card_name(card % 52)


def kind_of(text: str) -> int:
    """The kind (0..51) of a card name such as ``"10H"``; :class:`InputError` if it is none."""
    return parse_card(text)


_YES, _NO = ("yes", "true", "on", "1"), ("no", "false", "off", "0")


def ascii_whole(text: str) -> int | None:
    """``text`` (surrounding blanks aside) as a whole number written in the ASCII digits 0-9,
    else None (``str.isdigit`` alone also takes digits such as ``²``, which ``int`` refuses)."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


@dataclass(frozen=True)
class Options:
    """The choices the page leaves open (see the README's Crapette section).

    ``load_match``: a card loaded onto the opponent's reserve or waste is one rank up or down
    and of the same ``colour`` (the page's words and example) or the same ``suit``.
    ``reserve_first``: the reserve top, when it can be played, must be played before any other
    move but a foundation move (the page: "that card must be played if able"); ``False``: it only
    has to be played before the next draw.
    ``load_from_houses``: house tops, not only the player's own reserve top and drawn card, may
    be loaded onto the opponent.
    ``empty_house``: what an empty house takes when its emptier had no reserve card to fill it:
    ``any`` card, or ``none``.
    ``turn_ends_turn``: turning the waste over into a new draw pile (when the draw pile is empty)
    ends the turn (the page: "once a player has discarded their waste pile, their turn ends").
    ``waste_playable``: with the draw pile empty, the waste's top card may be played (to a
    foundation, a house, the opponent's reserve or waste) like the reserve top (the page: "waste
    pile cards cannot be played until the draw pile is depleted"); ``False``: the waste is never
    played from, only turned over.
    ``max_turns``: a round still running after this many turns ends as a stalemate (``turn limit``).
    ``target``: the points that win a match.
    """

    load_match: str = "colour"
    reserve_first: bool = True
    load_from_houses: bool = True
    empty_house: str = "any"
    turn_ends_turn: bool = True
    waste_playable: bool = True
    max_turns: int = 3000
    target: int = TARGET

    def __post_init__(self) -> None:
        if self.load_match not in LOAD_MATCHES:
            raise InputError(f"load_match must be one of {', '.join(LOAD_MATCHES)}, got {self.load_match!r}")
        if self.empty_house not in EMPTY_HOUSE_RULES:
            raise InputError(f"empty_house must be one of {', '.join(EMPTY_HOUSE_RULES)}, "
                             f"got {self.empty_house!r}")
        for flag in ("reserve_first", "load_from_houses", "turn_ends_turn", "waste_playable"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"{flag} must be yes or no, got {getattr(self, flag)!r}")
        for number in ("max_turns", "target"):
            value = getattr(self, number)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{number} must be a positive whole number, got {value!r}")

    def __str__(self) -> str:
        def text(value: object) -> str:
            return ("yes" if value else "no") if isinstance(value, bool) else str(value)
        return ",".join(f"{f.name}={text(getattr(self, f.name))}" for f in fields(self))

    @classmethod
    def parse(cls, text: str) -> "Options":
        """``load_match=suit,reserve_first=no`` (any subset; the rest default)."""
        values: dict[str, object] = {}
        known = {f.name: f for f in fields(cls)}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = (s.strip() for s in part.partition("="))
            if not sep or key not in known:
                raise InputError(f"bad crapette rules item {part!r} (keys: {', '.join(known)})")
            default = known[key].default
            if isinstance(default, bool):
                if value.lower() not in _YES + _NO:
                    raise InputError(f"{key} must be yes or no, got {value!r}")
                values[key] = value.lower() in _YES
            elif isinstance(default, int):
                number = ascii_whole(value)
                if number is None:
                    raise InputError(f"{key} must be a positive whole number, got {value!r}")
                values[key] = number
            else:
                values[key] = value
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def recorded(cls, text: str) -> "Options":
        """The options as a record or a survey wrote them (``str`` of the options: every field).
        Text without ``waste_playable`` was written before the waste could be played: ``no``."""
        if text and "waste_playable=" not in text:
            text += ",waste_playable=no"
        return cls.parse(text)
