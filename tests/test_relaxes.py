"""Rule sets that relax others (:meth:`Rules.relaxes`) and the survey verdicts shared through it.

A relation that claims too much would let a survey copy a wrong verdict; each check below fails
for a claim the games do not bear out: the established solvers' verdicts on the same seeds under
several rule sets, the brute force on small deals under every rule combination, and a survey solved
both ways.
"""
from __future__ import annotations

import csv
import json
import random
from itertools import product

import duckdb
import pytest

from dsolve.cards import DeckShape
from dsolve.klondike.brute import random_small_deal, search
from dsolve.klondike.result import UNWINNABLE, WINNABLE
from dsolve.rules import EMPTY_RULES, Rules, preset
from dsolve.survey import load, run_survey
from dsolve.survey.stats import summarize

from conftest import fails, ok, oracle_files, oracle_rules

D3 = Rules()


@pytest.mark.parametrize("loose, strict, expected", [
    (D3, D3, True),
    (Rules(draw=1), D3, True),                      # 1 divides 3
    (D3, Rules(draw=1), False),
    (Rules(draw=2), D3, False),                     # 2 does not divide 3
    (Rules(draw=3), Rules(draw=6), True),
    (D3, Rules(passes=1), True),                    # unlimited passes
    (Rules(passes=3), Rules(passes=2), True),
    (Rules(passes=2), Rules(passes=3), False),
    (Rules(passes=3), D3, False),
    (Rules(empty_rule="any"), D3, True),
    (D3, Rules(empty_rule="none"), True),
    (Rules(empty_rule="none"), D3, False),
    (D3, Rules(worry_back=False), True),
    (Rules(worry_back=False), D3, False),
    (Rules(draw=1, empty_rule="any"), Rules(passes=1, empty_rule="none", worry_back=False), True),
    (Rules(draw=1, empty_rule="king"), Rules(empty_rule="any"), False),   # wider in one, narrower in another
    (Rules(decks=2), D3, False),
    (Rules(decks=2, foundations=8), Rules(decks=2, foundations=4), False),
])
def test_relaxes(loose, strict, expected):
    assert loose.relaxes(strict) is expected


def _oracle_verdicts() -> dict[Rules, dict[int, str]]:
    """Every decided oracle row, by rule set and seed."""
    verdicts: dict[Rules, dict[int, str]] = {}
    for path in oracle_files("*verdicts-*.csv"):
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if row["verdict"] in (WINNABLE, UNWINNABLE):
                    verdicts.setdefault(oracle_rules(row), {})[int(row["seed"])] = row["verdict"]
    return verdicts


def _violations(verdicts: dict[int, str], looser: dict[int, str]) -> list[int]:
    """Seeds won under the stricter rules and lost under the looser."""
    return [seed for seed, verdict in verdicts.items() if verdict == WINNABLE and looser.get(seed) == UNWINNABLE]


def test_established_solvers_bear_out_relaxes():
    """For every two oracle rule sets where one relaxes the other, no seed is won under the
    stricter and lost under the looser; and the converse claim fails on the same data for most
    pairs (so the check has teeth): the looser rules win seeds the stricter ones lose."""
    verdicts = _oracle_verdicts()
    pairs = [(a, b) for a, b in product(verdicts, repeat=2) if a != b and a.relaxes(b)]
    for loose, strict in pairs:
        assert not _violations(verdicts[strict], verdicts[loose]), (loose, strict)
    assert sum(bool(_violations(verdicts[loose], verdicts[strict])) for loose, strict in pairs) >= 8, pairs


SMALL = {"3x4/4": 8, "2x6/3": 8, "2x7/2": 6}   # deck shape: deals (each solved under 54 rule sets)
ALL_RULES = [Rules(draw, passes, empty, worry) for draw in (1, 2, 3) for passes in (1, 2, None)
             for empty in EMPTY_RULES for worry in (True, False)]


def test_brute_force_bears_out_relaxes():
    """Small deals solved by the brute force under every rule combination: no deal is won under
    rules and lost under rules that relax them, while some pair unrelated by ``relaxes`` does
    split (a relation that claimed it would fail here)."""
    rng = random.Random("relaxes")
    checked, unrelated_splits = 0, 0
    for shape_text, count in SMALL.items():
        for _ in range(count):
            deal = random_small_deal(rng, DeckShape.parse(shape_text))
            won = {rules: search(deal, rules, 200_000).winnable for rules in ALL_RULES}
            for loose, strict in product(ALL_RULES, repeat=2):
                if won[loose] is None or won[strict] is None:
                    continue
                if loose.relaxes(strict):
                    checked += 1
                    assert won[loose] or not won[strict], (shape_text, str(loose), str(strict))
                elif won[strict] and not won[loose]:
                    unrelated_splits += 1
    assert checked > 1000 and unrelated_splits > 0, (checked, unrelated_splits)


SURVEY_RULES = ["standard", "standard-1", "single-pass-3", "simultaneous-fr", "draw=3,empty=any"]


def _rows(out) -> list[tuple]:
    return duckdb.sql(f"select seed, rules, verdict, nodes, implied_by from read_parquet('{out}/*.parquet') "
                      "order by seed, rules").fetchall()


def test_survey_shares_verdicts_between_rule_sets(tmp_path):
    """A survey of several rule sets takes verdicts that follow from another's (naming it, with no
    search) and gets every verdict a survey solving each rule set on its own gets."""
    rules = [str(preset(name)) if "=" not in name else str(Rules.parse(name)) for name in SURVEY_RULES]
    run_survey(tmp_path / "shared", range(1, 61), rules, jobs=1)
    run_survey(tmp_path / "each", range(1, 61), rules, jobs=1, params={"solve_each": True})
    shared, each = _rows(tmp_path / "shared"), _rows(tmp_path / "each")
    assert [r[:3] for r in shared] == [r[:3] for r in each]
    assert all(r[4] is None for r in each)
    implied = [r for r in shared if r[4] is not None]
    assert len(implied) >= 20
    verdict = {(r[0], r[1]): r for r in shared}
    for seed, text, outcome, nodes, source in implied:
        origin = verdict[seed, source]
        assert origin[4] is None and origin[2] == outcome and nodes == 0
        assert (Rules.parse(source).relaxes(Rules.parse(text)) if outcome == UNWINNABLE
                else Rules.parse(text).relaxes(Rules.parse(source)))
    counts = {s.rules: s.implied for s in summarize(load(tmp_path / "shared")[1])}
    assert sum(counts.values()) == len(implied) and counts[str(preset("standard-1"))] == 0


def test_solve_each_from_the_command_line(tmp_path):
    """``--solve-each`` is recorded with the survey (a resume must give the same choice) and solves
    every row; ``compare DIR`` refuses it, as any option that solves."""
    each, shared = tmp_path / "each", tmp_path / "shared"
    args = ["--seeds", "1-6", "--preset", "standard", "--rules", "draw=3,passes=1", "--jobs", "1"]
    ok("survey", *args, "--out", str(each), "--solve-each")
    ok("survey", *args, "--out", str(shared))
    assert json.loads((each / "_manifest.json").read_text())["params"] == {"solve_each": True}
    assert load(each)[1]["implied_by"].null_count == 12
    assert load(shared)[1]["implied_by"].null_count < 12
    assert "options" in fails("survey", *args, "--out", str(each))
    assert "--solve-each" in fails("compare", str(shared), "--solve-each")
    assert " implied " in ok("compare", str(shared)).splitlines()[2]
