"""What a solve returns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..cards import card_name
from .moves import Move

Verdict = Literal["winnable", "unwinnable", "unknown"]
WINNABLE: Verdict = "winnable"
UNWINNABLE: Verdict = "unwinnable"
UNKNOWN: Verdict = "unknown"
VERDICTS: tuple[Verdict, ...] = (WINNABLE, UNWINNABLE, UNKNOWN)


Limit = Literal["", "time", "table", "nodes", "memory", "interrupt"]
LIMITS: tuple[Limit, ...] = ("time", "table", "nodes", "memory", "interrupt")
"""Why a verdict is unknown: the time or node budget ran out (``table``: after the transposition
table filled, so that more memory is what would help most), the machine's memory for the search
itself, or an interrupt."""


@dataclass(frozen=True)
class Result:
    """A verdict with its evidence.

    ``verdict``: ``winnable`` (``moves`` is a winning line of single steps), ``unwinnable`` (the
    search was exhausted) or ``unknown`` (``limit`` says why, one of :data:`LIMITS`).
    ``nodes``: positions expanded. ``seconds``: wall time. ``table_peak``: most positions held
    in the transposition table at once. ``memory_mb``: the table's memory limit used.
    ``dead_cards``: for a loss proved before any search, the cards that can never move again
    (see the core's dead-end test), else empty.
    """

    verdict: Verdict
    moves: tuple[Move, ...]
    nodes: int
    seconds: float
    table_peak: int
    limit: Limit = ""
    memory_mb: float | None = None
    dead_cards: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        return self.verdict != UNKNOWN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``verdict``, ``moves`` (their notation), ``move_count``, ``nodes``,
        ``seconds``, ``table_peak``, ``limit`` (None when decided), ``memory_mb``, ``dead_cards``."""
        return {"verdict": self.verdict, "moves": [str(m) for m in self.moves],
                "move_count": len(self.moves), "nodes": self.nodes, "seconds": round(self.seconds, 6),
                "table_peak": self.table_peak, "limit": self.limit or None, "memory_mb": self.memory_mb,
                "dead_cards": [card_name(c) for c in self.dead_cards]}

    def describe(self) -> str:
        """The verdict for a person: the length of a winning line, the budget that ran out, or
        the cards that can never move of a loss proved without search."""
        if self.verdict == WINNABLE:
            return f"winnable in {len(self.moves)} moves"
        if self.limit == "table":
            return f"unknown (table full: {self.memory_mb:g} MB)"
        if self.verdict == UNKNOWN:
            return f"unknown ({self.limit} limit reached)"
        if self.dead_cards:
            return f"unwinnable (without search: {' '.join(map(card_name, self.dead_cards))} can never move)"
        return self.verdict

    def __repr__(self) -> str:
        """Short: the number of moves of a winning line, not the moves."""
        detail = {WINNABLE: f", {len(self.moves)} moves", UNKNOWN: f", limit={self.limit!r}"}.get(self.verdict, "")
        return (f"Result({self.verdict!r}{detail}, nodes={self.nodes}, seconds={self.seconds:.3f}, "
                f"table_peak={self.table_peak}, memory_mb={self.memory_mb})")


@dataclass(frozen=True)
class Hint:
    """A legal move and the verdict of the position it leads to (``result``: winnable keeps the
    game winnable, unwinnable loses it, unknown: the budget ran out)."""

    move: Move
    result: Result

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict
