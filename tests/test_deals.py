"""Seed conventions: reference deals, the exact index, PySolFC via pysol-cards, bad seeds."""
from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from dsolve.cards import DOUBLE, STANDARD, DeckShape, parse_card
from dsolve.klondike.deal import Deal
from dsolve.klondike.deals import (
    CONVENTIONS,
    PYSOL_LCG_LIMIT,
    PYSOL_MAX_SEED,
    _boost_uniform_int,
    _mt19937_outputs,
    exact,
    exact_index,
    greenfelt,
    klondike_solver,
    make_deal,
    microsoft,
    pysol,
    solvitaire,
)
from dsolve.errors import InputError

from conftest import ORACLE
from conftest import fails, ok

ORACLE_FILES = {
    "deals-solvitaire.jsonl": 1000,
    "deals-solvitaire-double.jsonl": 200,
    "deals-klondike-solver.jsonl": 1000,
    "deals-greenfelt.jsonl": 200,
    "deals-microsoft.jsonl": 200,
}


def oracle_deal(line: dict) -> Deal:
    if line["convention"] == "solvitaire-double":
        return solvitaire(line["seed"], DOUBLE)
    return make_deal(line["convention"], line["seed"])


def expected_deal(line: dict, shape: DeckShape) -> Deal:
    return Deal([[parse_card(c) for c in pile] for pile in line["tableau"]],
                [parse_card(c) for c in line["stock"]], shape)


def test_oracle_files_are_all_covered() -> None:
    assert {p.name for p in ORACLE.glob("deals-*.jsonl")} == set(ORACLE_FILES)


@pytest.mark.parametrize("name", sorted(ORACLE_FILES))
def test_every_oracle_line_matches(name: str) -> None:
    lines = [json.loads(text) for text in (ORACLE / name).read_text().splitlines() if text.strip()]
    assert len(lines) == ORACLE_FILES[name]
    for line in lines:
        deal = oracle_deal(line)
        assert deal == expected_deal(line, deal.shape), (name, line["seed"])
        if "exact" in line:
            index = int(line["exact"])
            assert exact_index(deal) == index, (name, line["seed"])
            assert exact(index) == deal, (name, line["seed"])


def test_microsoft_oracle_lines_through_the_cli() -> None:
    lines = [json.loads(text) for text in (ORACLE / "deals-microsoft.jsonl").read_text().splitlines()]
    for line in lines:
        shown = json.loads(ok("show", line["seed"], "--deal", "microsoft", "--json"))
        assert (shown["tableau"], shown["stock"]) == (line["tableau"], line["stock"]), line["seed"]


@pytest.mark.parametrize("seed, message", [
    ("-1", r"bad seed -1 for microsoft: expected 0\.\.8065817517"),
    (str(math.factorial(52)), "bad seed 8065817517.* for microsoft: expected 0"),
    ("12abc", "bad seed '12abc': expected a decimal integer"),
])
def test_bad_microsoft_seeds_are_one_line(seed: str, message: str) -> None:
    assert re.search(message, fails("show", seed, "--deal", "microsoft"))


def test_microsoft_extreme_seeds() -> None:
    # The pack is S, H, C, D (A..K each), dealt reversed. The largest seed swaps nothing: KD is
    # dealt first, AS turned last. Seed 0 swaps every i with 0: AS goes last, so is dealt first,
    # then KD, QD, ... and the stock ends with 3S, 2S.
    last = microsoft(math.factorial(52) - 1)
    assert [p[0] for p in last.tableau[:3]] == [parse_card(c) for c in ("KD", "QD", "JD")]
    assert last.stock[-1] == parse_card("AS")
    first = microsoft(0)
    assert [p[0] for p in first.tableau[:3]] == [parse_card(c) for c in ("AS", "KD", "QD")]
    assert first.stock[-2:] == (parse_card("3S"), parse_card("2S"))


def test_exact_numbers_lonelybot_layouts() -> None:
    # lonelybot's card order is A H, A D, A C, A S, 2 H, ... (card i at layout position i, piles
    # then stock). The last index leaves that order alone; index 0 swaps every i with position 0.
    identity = exact(math.factorial(52) - 1)
    assert identity.tableau[0] == (parse_card("AH"),)
    assert identity.tableau[1] == (parse_card("AD"), parse_card("AC"))
    assert identity.tableau[6][-1] == parse_card("7S")
    assert identity.stock[0] == parse_card("8H") and identity.stock[-1] == parse_card("KS")
    rotated = exact(0)
    assert rotated.tableau[0] == (parse_card("KS"),)
    assert rotated.tableau[1] == (parse_card("AH"), parse_card("AD"))
    assert rotated.stock[-1] == parse_card("KC")


def test_exact_round_trip() -> None:
    rng = random.Random(2024)
    last = math.factorial(52) - 1
    indices = [0, 1, 51, last] + [rng.randrange(last + 1) for _ in range(300)]
    for index in indices:
        assert exact_index(exact(index)) == index
    assert len({exact(i) for i in indices}) == len(indices)


def test_exact_index_round_trips_convention_deals() -> None:
    for deal in [solvitaire(5), klondike_solver(5), greenfelt(5), pysol(5), pysol(10**12)]:
        assert exact(exact_index(deal)) == deal


def test_exact_index_needs_the_standard_shape() -> None:
    with pytest.raises(InputError, match="standard"):
        exact_index(solvitaire(1, DeckShape(3, 5, 4)))


# --- Solvitaire's generator pieces -----------------------------------------------------------


def test_mt19937_matches_the_cpp_standard() -> None:
    # std::mt19937 with the default seed 5489: first output, and the 10000th output required by
    # the C++ standard. A small chunk makes the generator continue across many re-draws.
    outputs = _mt19937_outputs(5489, 7)
    values = [next(outputs) for _ in range(10000)]
    assert values[0] == 3499211612
    assert values[-1] == 4123659995
    one_chunk = _mt19937_outputs(5489, 10000)
    assert [next(one_chunk) for _ in range(10000)] == values


def test_boost_uniform_int_rejects_like_boost() -> None:
    bucket_52 = 0xFFFFFFFF // 52  # 82595524; 52 buckets cover outputs below 4294967248
    assert _boost_uniform_int(iter([0xFFFFFFFF, 5 * bucket_52 + 3]), 51) == 5
    assert _boost_uniform_int(iter([52 * bucket_52 - 1]), 51) == 51
    # 2**32 divisible by high + 1: buckets are exactly 2**30 wide, nothing is rejected.
    assert _boost_uniform_int(iter([0xFFFFFFFF]), 3) == 3
    assert _boost_uniform_int(iter([(1 << 30) - 1]), 3) == 0


@pytest.mark.parametrize("shape", [DeckShape(3, 5, 4), DeckShape(1, 13, 4), DeckShape(2, 4, 3),
                                   DeckShape(4, 13, 5), DOUBLE, DeckShape(2, 13, 4, decks=2)],
                         ids=str)
def test_solvitaire_small_and_double_shapes(shape: DeckShape) -> None:
    deals = [solvitaire(seed, shape) for seed in range(40)]
    expected_cards = Counter(shape.cards() * shape.decks)
    for deal in deals:
        assert deal.shape == shape
        assert [len(p) for p in deal.tableau] == list(range(1, shape.columns + 1))
        assert len(deal.stock) == shape.stock_size
        assert Counter(deal.cards) == expected_cards
    assert len(set(deals)) >= 35
    assert make_deal("solvitaire", "7", shape) == deals[7]


# --- determinism and seeds --------------------------------------------------------------------

@pytest.mark.parametrize("convention", sorted(CONVENTIONS))
def test_deterministic_and_seed_dependent(convention: str) -> None:
    seeds = [1, 2, 3, 1000, 31999, 32000, 123456789]
    deals = [make_deal(convention, seed) for seed in seeds]
    assert deals == [make_deal(convention, seed) for seed in seeds]
    assert len(set(deals)) == len(seeds)
    for deal in deals:
        assert deal.shape == STANDARD
        assert sorted(deal.cards) == list(range(52))


@pytest.mark.parametrize("function, seed", [
    (solvitaire, -1), (solvitaire, 2**32),
    (klondike_solver, -1), (klondike_solver, 2**31),
    (greenfelt, 0), (greenfelt, 2**31 - 1),
    (pysol, 0), (pysol, 10**20),
    (exact, -1), (exact, math.factorial(52)),
    (microsoft, -1), (microsoft, math.factorial(52)), (microsoft, "5"),
    (solvitaire, "5"), (pysol, 2.0), (exact, None),
])
def test_out_of_range_seeds_raise(function, seed) -> None:
    with pytest.raises(InputError, match="bad seed"):
        function(seed)


def test_seed_range_edges_are_accepted() -> None:
    for deal in [solvitaire(0), solvitaire(2**32 - 1), klondike_solver(0),
                 klondike_solver(2**31 - 1), greenfelt(1), greenfelt(2**31 - 2), pysol(1),
                 pysol(PYSOL_MAX_SEED), exact(math.factorial(52) - 1),
                 microsoft(0), microsoft(math.factorial(52) - 1)]:
        assert sorted(deal.cards) == list(range(52))


def test_make_deal_parses_decimal_strings() -> None:
    assert make_deal("solvitaire", "17") == solvitaire(17)
    assert make_deal("greenfelt", " 42 ") == greenfelt(42)
    big = math.factorial(52) - 12345
    assert make_deal("exact", str(big)) == exact(big)
    assert make_deal("klondike-solver", 9) == klondike_solver(9)


@pytest.mark.parametrize("seed", ["", "abc", "12x", "1.5", "0x10", "1" * 101])
def test_make_deal_rejects_non_decimal_seeds(seed: str) -> None:
    with pytest.raises(InputError, match="bad seed"):
        make_deal("solvitaire", seed)


def test_make_deal_rejects_negative_string_seed_by_range() -> None:
    with pytest.raises(InputError, match=r"bad seed -3 for solvitaire: expected 0\.\.4294967295"):
        make_deal("solvitaire", "-3")


def test_make_deal_unknown_convention_lists_the_valid_ones() -> None:
    with pytest.raises(InputError) as info:
        make_deal("casino", 1)
    message = str(info.value)
    assert "casino" in message
    for name in CONVENTIONS:
        assert name in message


def test_other_shapes_only_from_the_conventions_that_deal_them() -> None:
    with pytest.raises(InputError, match="the greenfelt convention deals only the standard 4x13/7 game, "
                                         "not 2x4x13/9"):
        make_deal("greenfelt", 5, DOUBLE)
    for shape in (DeckShape(3, 5, 4), DeckShape(4, 13, 9), DeckShape(4, 13, 7, decks=2)):
        with pytest.raises(InputError, match=r"the pysol convention deals Klondike \(4x13/7\) and "
                                             rf"Double Klondike \(2x4x13/9\), not {shape}$"):
            make_deal("pysol", 5, shape)


# --- PySolFC's Double Klondike ------------------------------------------------------------------

PYSOLFC_DOUBLE = Path(__file__).parent / "data" / "pysolfc-double-klondike.jsonl"


def pysolfc_double_vectors() -> list[dict]:
    """PySolFC's own Double Klondike deals (tests/data/README.md says how they were made)."""
    return [json.loads(text) for text in PYSOLFC_DOUBLE.read_text().splitlines() if text.strip()]


def test_pysol_double_klondike_matches_pysolfc() -> None:
    lines = pysolfc_double_vectors()
    assert len(lines) == 40
    assert {line["random"] for line in lines} == {"LCRandom31", "MTRandom"}
    for line in lines:
        assert (line["random"] == "LCRandom31") == (int(line["seed"]) < PYSOL_LCG_LIMIT), line["seed"]
        assert pysol(int(line["seed"]), DOUBLE) == expected_deal(line, DOUBLE), line["seed"]


def test_pysol_double_klondike_through_the_cli() -> None:
    for line in pysolfc_double_vectors()[::13]:
        shown = json.loads(ok("show", line["seed"], "--deal", "pysol", "--decks", "2", "--json"))
        assert (shown["tableau"], shown["stock"]) == (line["tableau"], line["stock"]), line["seed"]


@pytest.mark.parametrize("seed", ["0", "-4", str(PYSOL_MAX_SEED + 1)])
def test_bad_pysol_double_klondike_seeds_are_one_line(seed: str) -> None:
    expected = rf"bad seed {seed} for pysol: expected 1\.\.{PYSOL_MAX_SEED}$"
    assert re.search(expected, fails("show", seed, "--deal", "pysol", "--decks", "2"))
    assert re.search(expected, fails("check", seed, "--deal", "pysol", "--preset", "double-klondike"))
