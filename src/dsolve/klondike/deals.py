"""Numbered deals: the seed conventions of other Klondike programs, reproduced exactly.

Each convention turns an integer seed into a :class:`~dsolve.klondike.deal.Deal` the way its program does,
so ``solvitaire(17)`` is the deal Solvitaire plays for ``--random 17``. A seed outside a
convention's range raises :class:`InputError`. ``exact``/``exact_index`` number every 52-card deal
(lonelybot's ``exact`` seed type) and so can name a deal from any convention.
"""
from __future__ import annotations

import math
import operator
import random
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from ..cards import DOUBLE, STANDARD, SUITS, DeckShape, make_card, rank_of, suit_of
from .deal import Deal, deal_from_order
from ..errors import InputError

_U32_MAX = 0xFFFFFFFF
_N_CARDS = STANDARD.size
_FACTORIAL_52 = math.factorial(_N_CARDS)


# --- shared helpers ---------------------------------------------------------------------------

def _checked_seed(seed: int, low: int, high: int, convention: str) -> int:
    """``seed`` as an int in ``low..high``, or :class:`InputError`."""
    try:
        value = operator.index(seed)
    except TypeError:
        raise InputError(f"bad seed {seed!r} for {convention}: expected an integer") from None
    if not low <= value <= high:
        raise InputError(f"bad seed {value} for {convention}: expected {low}..{high}")
    return value


def _suit_major(suits: str) -> list[int]:
    """A 52-card pack suit by suit in the order of ``suits`` (letters of C, H, S, D), A..K each."""
    return [make_card(rank, SUITS.index(s)) for s in suits for rank in range(13)]


def _rank_major(suits: str) -> list[int]:
    """A 52-card pack rank by rank (A..K), suits in the order of ``suits`` within a rank."""
    return [make_card(rank, SUITS.index(s)) for rank in range(13) for s in suits]


def _deal_to_piles(sequence: Sequence[int], targets: Sequence[int], shape: DeckShape) -> Deal:
    """Deal ``sequence[k]`` onto pile ``targets[k]`` (so each pile fills bottom -> top); the
    cards after the last target form the stock, first turned first."""
    piles: list[list[int]] = [[] for _ in range(shape.columns)]
    for card, pile in zip(sequence, targets):
        piles[pile].append(card)
    return Deal(tuple(tuple(p) for p in piles), tuple(sequence[len(targets):]), shape)


def _row_targets(rows: Iterable[int], columns: int, *, leftwards: bool) -> list[int]:
    """Pile targets of the given rows in turn, row r covering piles r..``columns - 1``, from the
    rightmost pile leftwards or from pile r rightwards."""
    return [pile for row in rows
            for pile in (reversed(range(row, columns)) if leftwards else range(row, columns))]


# --- Solvitaire: std::mt19937 + boost::random::uniform_int_distribution ---------------------

_MT19937 = np.random.MT19937()
_MT19937_SEEDER = np.random.RandomState(_MT19937)  # seed() is std::mt19937's 32-bit seeding
_MT19937_LOCK = threading.Lock()


def _mt19937_outputs(seed: int, chunk: int) -> Iterator[int]:
    """The 32-bit outputs of ``std::mt19937(seed)``, endlessly, computed ``chunk`` at a time."""
    drawn = 0
    while True:
        with _MT19937_LOCK:
            _MT19937_SEEDER.seed(seed)
            outputs = _MT19937.random_raw(drawn + chunk)
        yield from outputs[drawn:].tolist()
        drawn += chunk


def _boost_uniform_int(outputs: Iterator[int], high: int) -> int:
    """``boost::random::uniform_int_distribution<>(0, high)`` drawing from a 32-bit engine:
    divide an output by a bucket size and reject quotients above ``high``."""
    bucket = _U32_MAX // (high + 1) + (_U32_MAX % (high + 1) == high)
    while True:
        value = next(outputs) // bucket
        if value <= high:
            return value


def solvitaire(seed: int, shape: DeckShape = STANDARD) -> Deal:
    """Solvitaire's ``--random SEED`` deal (thecharlieblake/Solvitaire, ``game_state.cpp``).

    The pack is ``shape.cards()`` once per deck (rank-major, suits C, H, S, D), shuffled by
    Fisher-Yates from the last index down, swapping i with boost's
    ``uniform_int_distribution(0, i)`` on ``std::mt19937(seed)``. Cards are then taken from the
    back of the pack: the stock gets the last ``stock_size`` cards (so the first turned is the one
    just after the tableau cards), and the tableau is dealt row by row, each row from the
    rightmost pile leftwards. Seeds 0..2**32-1.
    """
    seed = _checked_seed(seed, 0, _U32_MAX, "solvitaire")
    pack = shape.cards() * shape.decks
    outputs = _mt19937_outputs(seed, len(pack))
    for i in range(len(pack) - 1, 0, -1):
        j = _boost_uniform_int(outputs, i)
        pack[i], pack[j] = pack[j], pack[i]
    tableau = shape.tableau_size
    return _deal_to_piles(pack[tableau - 1::-1] + pack[tableau:],
                          _row_targets(range(shape.columns), shape.columns, leftwards=True), shape)


# --- Klondike-Solver (ShootMe) /G game numbers ------------------------------------------------

def _signed_shift_right(value: int, bits: int) -> int:
    """``>>`` of a C ``int`` (arithmetic shift) on a 32-bit pattern."""
    return (((value ^ 0x80000000) - 0x80000000) >> bits) & _U32_MAX


class _ShootMeRandom:
    """Klondike-Solver's ``Random`` (``Random.cpp``: ``SetSeed``, ``Next1``) on 32-bit patterns."""

    def __init__(self, seed: int) -> None:
        self.value, self.mix, self.twist = seed, 51651237, 895213268
        for _ in range(50):
            self._step()
        self.value = 0x9417B3AF ^ seed ^ _signed_shift_right(seed, 15)
        for _ in range(950):
            self._step()

    def _step(self) -> None:
        value, mix, twist = self.value, self.mix, self.twist
        # C precedence makes the source's `value ^ twist - mix ^ value` equal to `twist - mix`.
        y = ((twist - mix) & _U32_MAX) ^ twist ^ value ^ mix
        mix ^= twist ^ value
        value ^= (twist - mix) & _U32_MAX
        twist ^= value ^ y
        value ^= ((twist << 7) & _U32_MAX) ^ _signed_shift_right(mix, 16) ^ ((y << 8) & _U32_MAX)
        self.value, self.mix, self.twist = value, mix, twist

    def next(self) -> int:
        self._step()
        return self.value & 0x7FFFFFFF


def klondike_solver(seed: int) -> Deal:
    """Klondike-Solver's ``/G SEED`` deal (ShootMe/Klondike-Solver, ``Solitaire::Shuffle1``).

    The pack is suit by suit C, D, S, H (A..K each); 269 times two outputs k, j of ShootMe's
    generator (each ``% 52``) swap cards k and j. The pack is dealt from the front row by row left
    to right; the rest is the stock, first turned first. Game numbers 0..2**31-1 (the program
    reads a C ``int``; -1 there means a random game, so negative numbers are refused).
    """
    seed = _checked_seed(seed, 0, 2**31 - 1, "klondike-solver")
    rng = _ShootMeRandom(seed)
    pack = _suit_major("CDSH")
    for _ in range(269):
        k = rng.next() % _N_CARDS
        j = rng.next() % _N_CARDS
        pack[k], pack[j] = pack[j], pack[k]
    return deal_from_order(pack)


# --- Greenfelt game numbers --------------------------------------------------------------------

_PARK_MILLER_MODULUS = 2**31 - 1


def greenfelt(seed: int) -> Deal:
    """Greenfelt's game number SEED (greenfelt.net), as ShootMe/MinimalKlondike's
    ``Board.ShuffleGreenFelt`` reproduces it (also Klondike-Solver's ``Shuffle2``).

    The generator is the Park-Miller "minimal standard" LCG (``s = s * 16807 mod 2**31-1``). The
    pack is suit by suit C, D, H, S (A..K each); seven passes over positions j = 0..51 swap card j
    with card ``next() % 52``; the pack is then reversed and dealt from the front row by row left
    to right, the rest being the stock, first turned first. Game numbers 1..2**31-2 (the
    generator's states).
    """
    state = _checked_seed(seed, 1, _PARK_MILLER_MODULUS - 1, "greenfelt")
    pack = _suit_major("CDHS")
    for _ in range(7):
        for j in range(_N_CARDS):
            state = state * 16807 % _PARK_MILLER_MODULUS
            k = state % _N_CARDS
            pack[j], pack[k] = pack[k], pack[j]
    pack.reverse()
    return deal_from_order(pack)


# --- PySolFC game numbers ----------------------------------------------------------------------

PYSOL_LCG_LIMIT = 32000
"""PySolFC deals game numbers below this with Microsoft's LCG, the rest with Mersenne Twister."""
PYSOL_MAX_SEED = 10**20 - 1
"""The largest PySolFC game number (20 digits; its random game numbers are below 10**20)."""


def _microsoft_shuffle(seed: int, pack: list[int]) -> None:
    """Microsoft FreeCell's shuffle: LCG ``x = x * 214013 + 2531011``,
    ``rand() = x >> 16 & 0x7fff``, swapping position i (from the last down to 1) with
    ``rand() % (i + 1)``."""
    state = seed
    for i in range(len(pack) - 1, 0, -1):
        state = (state * 214013 + 2531011) & _U32_MAX
        j = (state >> 16 & 0x7FFF) % (i + 1)
        pack[i], pack[j] = pack[j], pack[i]


def _python_random_shuffle(seed: int, pack: list[int]) -> None:
    """PySolFC's Mersenne Twister shuffle: Python's ``random.Random(seed)``, swapping position i
    (from the last down to 1) with ``int(random() * (i + 1))``."""
    rng = random.Random(seed)
    for i in range(len(pack) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        pack[i], pack[j] = pack[j], pack[i]


# PySolFC deals from the top (end) of the shuffled talon. Klondike (game 2): for r = 1..6 one
# face-down card to piles 6 down to r, then a face-up card to piles 6 down to 0. Double Klondike
# (game 21; "Double Klondike (Draw 3)", game 28, deals the same): for r = 1..8 one face-down card
# to piles r up to 8, then a face-up card to piles 0 up to 8. The rest is the stock; its first card
# goes to the waste at once, i.e. it is the first turned.
_PYSOL_TARGETS = {
    STANDARD: _row_targets([*range(1, STANDARD.columns), 0], STANDARD.columns, leftwards=True),
    DOUBLE: _row_targets([*range(1, DOUBLE.columns), 0], DOUBLE.columns, leftwards=False),
}


def pysol(seed: int, shape: DeckShape = STANDARD) -> Deal:
    """PySolFC's game number SEED of Klondike, or with the ``DOUBLE`` shape of Double Klondike
    (shlomif/PySolFC: ``pysolrandom.construct_random``, ``Game.createCards``, ``Game.shuffle``,
    ``Klondike.startGame``, ``DoubleKlondike.startGame``).

    PySolFC's pack is suit by suit C, S, H, D (A..K each), once per deck. Numbers 1..31999 shuffle
    it with Microsoft's FreeCell LCG, PySolFC first rearranging a 52-card pack rank by rank (suits
    C, D, H, S) as Microsoft's deals have it (a 104-card pack is shuffled as it is); from 32000 on,
    Python's Mersenne Twister ``random.Random(seed)``. PySolFC takes ``0 <= seed < 32000`` for
    the LCG, so 32000 is a Mersenne Twister game (pysol-cards switches at ``<= 32000`` instead); 0
    is refused by PySolFC's LCG.
    """
    targets = _PYSOL_TARGETS.get(shape)
    if targets is None:
        raise InputError(f"the pysol convention deals Klondike ({STANDARD}) and Double Klondike "
                         f"({DOUBLE}), not {shape}")
    seed = _checked_seed(seed, 1, PYSOL_MAX_SEED, "pysol")
    if seed < PYSOL_LCG_LIMIT:
        pack = _rank_major("CDHS") if shape.decks == 1 else _suit_major("CSHD") * shape.decks
        _microsoft_shuffle(seed, pack)
    else:
        pack = _suit_major("CSHD") * shape.decks
        _python_random_shuffle(seed, pack)
    return _deal_to_piles(pack[::-1], targets, shape)


# --- exact: lonelybot's permutation index ----------------------------------------------------

# lonelybot numbers a card rank * 4 + suit with suits H, D, C, S; its deal layout is pile 0..6,
# each bottom -> top, then the stock first turned first.
_LONELYBOT_SUITS = "HDCS"
_TO_LONELYBOT = [make_card(rank_of(c), _LONELYBOT_SUITS.index(SUITS[suit_of(c)]))
                 for c in range(_N_CARDS)]
_FROM_LONELYBOT = [_TO_LONELYBOT.index(i) for i in range(_N_CARDS)]
_LONELYBOT_TARGETS = [pile for pile in range(STANDARD.columns) for _ in range(pile + 1)]


def exact(index: int) -> Deal:
    """The deal numbered INDEX (0 <= INDEX < 52!) by lonelybot's ``exact`` seed type
    (vuonghy2442/lonelybot, ``shuffler.rs``: ``exact_shuffle``).

    Start from lonelybot's identity layout (card i at position i) and for i = 1..51 swap position i
    with position ``index mod (i + 1)``, then divide ``index`` by ``i + 1``.
    """
    index = _checked_seed(index, 0, _FACTORIAL_52 - 1, "exact")
    layout = list(range(_N_CARDS))
    for i in range(1, _N_CARDS):
        index, j = divmod(index, i + 1)
        layout[i], layout[j] = layout[j], layout[i]
    return _deal_to_piles([_FROM_LONELYBOT[c] for c in layout], _LONELYBOT_TARGETS, STANDARD)


def exact_index(deal: Deal) -> int:
    """The inverse of :func:`exact`: the index of a standard 52-card, 7-pile deal as dealt."""
    if deal.shape != STANDARD:
        raise InputError(f"exact indices number standard 4x13/7 deals, not {deal.shape}")
    if not deal.dealt:
        raise InputError("exact indices number deals as dealt, not games in progress or "
                         "layouts with more cards face up")
    layout = [_TO_LONELYBOT[c] for c in deal.cards]
    index = 0
    for i in range(_N_CARDS - 1, 0, -1):
        position = layout.index(i, 0, i + 1)
        index = index * (i + 1) + position
        layout[position] = layout[i]
    return index


# --- Microsoft Solitaire Collection seeds ----------------------------------------------------

def microsoft(seed: int) -> Deal:
    """Microsoft Solitaire Collection's deal for SEED (0 <= SEED < 52!, the number the game
    writes in its log), as lonelybot's ``microsoft`` seed type deals it (vuonghy2442/lonelybot,
    ``shuffler.rs``: ``microsoft_shuffle``).

    The pack is suit by suit S, H, C, D (A..K each); for i = 51 down to 1, position i is swapped
    with position ``SEED mod (i + 1)`` and SEED divided by ``i + 1``. The pack is then reversed
    and dealt from the front row by row left to right; the rest is the stock, first turned first.
    """
    seed = _checked_seed(seed, 0, _FACTORIAL_52 - 1, "microsoft")
    pack = _suit_major("SHCD")
    for i in range(_N_CARDS - 1, 0, -1):
        seed, j = divmod(seed, i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    pack.reverse()
    return deal_from_order(pack)


# --- by name ---------------------------------------------------------------------------------

CONVENTIONS: dict[str, Callable[[int], Deal]] = {
    "solvitaire": solvitaire,
    "klondike-solver": klondike_solver,
    "greenfelt": greenfelt,
    "pysol": pysol,
    "exact": exact,
    "microsoft": microsoft,
}
_SHAPED_CONVENTIONS: frozenset[Callable[..., Deal]] = frozenset({solvitaire, pysol})
"""The conventions that deal other shapes than the standard one (given as their second argument)."""
DEFAULT_CONVENTION = "solvitaire"
"""The convention of a seed given without one (the largest published per-deal datasets use it)."""

_DECIMAL = re.compile(r"[+-]?[0-9]+")
_MAX_SEED_DIGITS = 100  # every convention's seeds have fewer (52! has 68 digits)


def make_deal(convention: str, seed: int | str, shape: DeckShape = STANDARD) -> Deal:
    """The deal numbered ``seed`` (an int or a decimal string) in ``convention``. Solvitaire's
    convention deals every deck shape, PySolFC's the standard one and Double Klondike's, the others
    only the standard one."""
    function = CONVENTIONS.get(convention)
    if function is None:
        raise InputError(f"unknown seed convention {convention!r} "
                         f"(expected one of: {', '.join(CONVENTIONS)})")
    if isinstance(seed, str):
        text = seed.strip()
        if not _DECIMAL.fullmatch(text) or len(text) > _MAX_SEED_DIGITS:
            raise InputError(f"bad seed {seed[:_MAX_SEED_DIGITS]!r}: expected a decimal integer "
                             f"of at most {_MAX_SEED_DIGITS} digits")
        seed = int(text)
    if shape != STANDARD:
        if function not in _SHAPED_CONVENTIONS:
            raise InputError(f"the {convention} convention deals only the standard {STANDARD} game, "
                             f"not {shape}")
        return function(seed, shape)
    return function(seed)
