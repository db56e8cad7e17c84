"""--deal pysol against PySolFC's own dealing, through pysol-cards (a test extra: skipped without it)."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("pysol_cards")

from pysol_cards.cards import createCards  # noqa: E402
from pysol_cards.deal_game import Game  # noqa: E402
from pysol_cards.random import MTRandom, shuffle  # noqa: E402
from pysol_cards.random_base import RandomBase  # noqa: E402

from dsolve.cards import DOUBLE, make_card  # noqa: E402
from dsolve.klondike.deal import Deal  # noqa: E402
from dsolve.klondike.deals import PYSOL_LCG_LIMIT, PYSOL_MAX_SEED, pysol  # noqa: E402


def from_pysol_card(card) -> int:
    """pysol-cards' card (rank 1..13, suit index into "CSHD") as a dsolve card."""
    return make_card(card.rank - 1, "CHSD".index("CSHD"[card.suit]))


def pysol_cards_deal(game: Game) -> Deal:
    game.deal()
    game.klondike()
    return Deal([[from_pysol_card(c) for c in col] for col in game.board.columns.cols],
                [from_pysol_card(c) for c in game.board.talon])


class MersenneTwisterGame(Game):
    """pysol-cards' Klondike, always shuffled by Mersenne Twister (PySolFC's choice from 32000)."""

    def deal(self) -> None:
        cards = MTRandom(self.game_num).shuffle(createCards(1))
        cards.reverse()
        self.new_cards(cards)


PYSOL_SEEDS = [*range(1, 201), *range(31990, 32000), *range(32001, 32011),
               10**6 + 7, 2**31 - 1, 2**31, 2**32 + 5, 2**40 + 3, 10**17 + 9, PYSOL_MAX_SEED]


def test_pysol_matches_pysol_cards() -> None:
    for seed in PYSOL_SEEDS:
        expected = pysol_cards_deal(Game("klondike", seed, RandomBase.DEALS_PYSOLFC))
        assert pysol(seed) == expected, seed


def test_pysol_32000_is_a_mersenne_twister_game() -> None:
    # PySolFC (construct_random) uses the LCG for 0 <= seed < 32000; pysol-cards for seed <= 32000.
    mersenne = pysol_cards_deal(MersenneTwisterGame("klondike", 32000, RandomBase.DEALS_PYSOLFC))
    lcg = pysol_cards_deal(Game("klondike", 32000, RandomBase.DEALS_PYSOLFC))
    assert pysol(32000) == mersenne
    assert pysol(32000) != lcg
    assert pysol(31999) == pysol_cards_deal(Game("klondike", 31999, RandomBase.DEALS_PYSOLFC))


# --- Double Klondike --------------------------------------------------------------------------

def pysolfc_double_klondike(seed: int) -> Deal:
    """PySolFC's Double Klondike (game 21) dealt from pysol-cards' shuffle of its two-deck pack.

    pysol-cards does not lay this game out; PySolFC's ``DoubleKlondike.startGame`` deals from the
    end of the shuffled pack: rows 1..8 face down, each to piles r..8 left to right, then a face-up
    row to piles 0..8; the stock's next card (the pack's new end) is the first turned."""
    talon = [from_pysol_card(c) for c in shuffle(createCards(2), seed, RandomBase.DEALS_PYSOLFC)]
    piles: list[list[int]] = [[] for _ in range(9)]
    for row in [*range(1, 9), 0]:
        for pile in range(row, 9):
            piles[pile].append(talon.pop())
    return Deal(piles, talon[::-1], DOUBLE)


def test_pysol_double_klondike_matches_pysol_cards_shuffle() -> None:
    rng = random.Random(28)
    seeds = [*range(1, 101), *range(31990, PYSOL_LCG_LIMIT), *range(32001, 32011),
             *(rng.randrange(10**19, PYSOL_MAX_SEED + 1) for _ in range(100)), PYSOL_MAX_SEED]
    for seed in seeds:
        assert pysol(seed, DOUBLE) == pysolfc_double_klondike(seed), seed
