"""dsolve: decide Klondike-family deals fast and soundly.

    >>> import dsolve
    >>> dsolve.check(2).verdict
    'winnable'

The light parts (cards, deals, rules, results) load with the package; the native solver loads
on first use of :func:`check`, :func:`solve` or :func:`hints`, so ``import dsolve`` stays fast.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import DOUBLE, STANDARD, DeckShape, card_name, parse_card
from .klondike.deal import Deal
from .klondike.dealfiles import dump_deal, load_deal
from .klondike.deals import CONVENTIONS, DEFAULT_CONVENTION, make_deal
from .errors import InputError, SolverBug
from .klondike.moves import Move
from .klondike.result import Hint, Result, Verdict
from .rules import PRESETS, EmptyRule, Rules, preset

if TYPE_CHECKING:
    from .klondike.api import check, hints, solve

__version__ = "0.1.0"

__all__ = ["CONVENTIONS", "DOUBLE", "Deal", "DeckShape", "EmptyRule", "Hint", "InputError", "Move",
           "PRESETS", "Result", "Rules", "STANDARD", "SolverBug", "Verdict", "card_name", "check",
           "deal", "dump_deal", "hints", "load_deal", "parse_card", "preset", "solve",
           "__version__"]

_SOLVER = ("check", "solve", "hints")


def deal(seed: int | str, convention: str = DEFAULT_CONVENTION, shape: DeckShape = STANDARD) -> Deal:
    """The deal numbered ``seed`` in a seed ``convention`` (see :data:`CONVENTIONS`)."""
    return make_deal(convention, seed, shape)


def __getattr__(name: str) -> Any:
    """The solver's functions, imported (with the native core) on first use."""
    if name in _SOLVER:
        from .klondike import api

        return getattr(api, name)
    raise AttributeError(f"module 'dsolve' has no attribute {name!r}")
