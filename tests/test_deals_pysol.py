"""--deal pysol against PySolFC's own dealing, through pysol-cards (a test extra: skipped without it)."""
from __future__ import annotations

import pytest

pytest.importorskip("pysol_cards")

from pysol_cards.cards import createCards  # noqa: E402
from pysol_cards.deal_game import Game  # noqa: E402
from pysol_cards.random import MTRandom  # noqa: E402
from pysol_cards.random_base import RandomBase  # noqa: E402

from dsolve.cards import make_card  # noqa: E402
from dsolve.klondike.deal import Deal  # noqa: E402
from dsolve.klondike.deals import PYSOL_MAX_SEED, pysol  # noqa: E402


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


# --- Solvitaire's generator pieces -----------------------------------------------------------
