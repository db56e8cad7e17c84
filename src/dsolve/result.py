"""What a solve returns."""
from __future__ import annotations

from dataclasses import dataclass

from .moves import Move

WINNABLE, UNWINNABLE, UNKNOWN = "winnable", "unwinnable", "unknown"
VERDICTS = (WINNABLE, UNWINNABLE, UNKNOWN)


LIMITS = ("time", "table", "nodes", "memory", "interrupt")
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

    verdict: str
    moves: tuple[Move, ...]
    nodes: int
    seconds: float
    table_peak: int
    limit: str = ""
    memory_mb: float | None = None
    dead_cards: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        return self.verdict != UNKNOWN

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
    def verdict(self) -> str:
        return self.result.verdict
