"""Two-seat games (Crapette, double solitaire races): who sits in each seat."""
from __future__ import annotations

from collections.abc import Iterable

from .errors import InputError


def parse_seats(text: str, players: Iterable[str], example: str) -> tuple[str, str]:
    """``"A,B"`` as typed (seat A's player, seat B's), or one name for both seats; each one of
    ``players`` (InputError otherwise, showing ``example``)."""
    known = list(players)
    names = [n.strip().lower() for n in text.split(",")]
    if len(names) == 1:
        names *= 2
    if len(names) != 2:
        raise InputError(f"bad players {text!r} (expected A,B, e.g. {example})")
    for name in names:
        if name not in known:
            raise InputError(f"unknown player {name!r} (players: {', '.join(known)})")
    return names[0], names[1]
