"""What a solve returns."""
from __future__ import annotations

from dataclasses import dataclass

from .moves import Move

WINNABLE, UNWINNABLE, UNKNOWN = "winnable", "unwinnable", "unknown"
VERDICTS = (WINNABLE, UNWINNABLE, UNKNOWN)


@dataclass(frozen=True)
class Result:
    """A verdict with its evidence.

    ``verdict``: ``winnable`` (``moves`` is a winning line of single steps), ``unwinnable`` (the
    search was exhausted) or ``unknown`` (``limit`` says which budget ran out: ``nodes``,
    ``seconds`` or ``memory``). ``nodes``: positions expanded. ``seconds``: wall time.
    ``table_peak``: most positions held in the transposition table at once. ``dead_cards``: for
    a loss proved before any search, the cards that can never move again (see the core's dead-end
    test), else empty.
    """

    verdict: str
    moves: tuple[Move, ...]
    nodes: int
    seconds: float
    table_peak: int
    limit: str = ""
    dead_cards: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        return self.verdict != UNKNOWN


@dataclass(frozen=True)
class Hint:
    """A legal move and the verdict of the position it leads to (``result``: winnable keeps the
    game winnable, unwinnable loses it, unknown: the budget ran out)."""

    move: Move
    result: Result

    @property
    def verdict(self) -> str:
        return self.result.verdict
