"""The core's verdicts against established solvers (lonelybot, Solvitaire) on Solvitaire seeds.

Every decided row of the single-deck ``tests/data/oracle/verdicts-*.csv`` files must agree
(``unknown`` oracle rows carry no information and are left out). A solve that hits the per-solve
timeout is skipped, not counted as a disagreement; the ``-ra`` summary counts those skips.

The default run checks a stratified sample of each file (rows of both verdicts, spread over its
seeds); ``pytest -m slow tests/test_oracle_verdicts.py`` checks every row
(``DSOLVE_ORACLE_TIMEOUT`` seconds per solve, default 10).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from dsolve.klondike.api import check
from dsolve.klondike.dealfiles import dump_deal
from dsolve.klondike.deals import make_deal
from dsolve.klondike.referee import replay
from dsolve.klondike.result import UNKNOWN, UNWINNABLE, WINNABLE

from conftest import oracle_files, oracle_rules

FILES = oracle_files("verdicts-*.csv")  # single deck; the two-deck files are double-*
RULE_SETS = ("d1-p0-king-w1", "d1-p1-king-w1", "d3-p0-any-w1", "d3-p0-king-w0", "d3-p0-king-w1",
             "d3-p1-king-w1")  # draw, passes (0 = unlimited), spaces, worrying back
SAMPLE_PER_VERDICT = 20   # rows of each verdict per file in the default run
SAMPLE_TIMEOUT = 2.0
FULL_TIMEOUT = float(os.environ.get("DSOLVE_ORACLE_TIMEOUT", "10"))
UNDECIDED = "the core did not decide within the per-solve timeout (not a disagreement)"


def decided_rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        rows = [row for row in csv.DictReader(f) if row["verdict"] != UNKNOWN]
    assert all(row["verdict"] in (WINNABLE, UNWINNABLE) for row in rows), path
    return rows


def spread(rows: list[dict], n: int) -> list[dict]:
    """``n`` rows evenly spaced over ``rows`` (all of them if there are no more than ``n``)."""
    if len(rows) <= n:
        return rows
    return [rows[i * len(rows) // n] for i in range(n)]


def sample(path: Path) -> list[dict]:
    rows = decided_rows(path)
    return sorted((row for verdict in (WINNABLE, UNWINNABLE)
                   for row in spread([r for r in rows if r["verdict"] == verdict], SAMPLE_PER_VERDICT)),
                  key=lambda row: int(row["seed"]))


def params(pick) -> list:
    return [pytest.param(path.name, row, id=f"{path.stem}-seed{row['seed']}")
            for path in FILES for row in pick(path)]


def agree(name: str, row: dict, timeout: float) -> None:
    rules, seed = oracle_rules(row), int(row["seed"])
    result = check(seed, rules, timeout=timeout)
    if result.verdict == UNKNOWN:
        pytest.skip(UNDECIDED)
    deal = make_deal("solvitaire", seed)
    assert result.verdict == row["verdict"], (
        f"{name}: Solvitaire seed {seed}, rules {rules}: the core says {result.verdict}, "
        f"{row['solver']} says {row['verdict']}\n{dump_deal(deal, 'text')}")
    if result.verdict == WINNABLE:
        outcome = replay(deal, rules, result.moves)
        assert outcome.won, f"{name}: seed {seed}: the winning line fails: {outcome.error}"


def test_oracle_files_are_single_deck_and_cover_both_verdicts():
    assert {path.stem for path in FILES} == {f"verdicts-{rules}" for rules in RULE_SETS}
    for path in FILES:
        rows = decided_rows(path)
        assert rows and {row["verdict"] for row in rows} == {WINNABLE, UNWINNABLE}, path
        assert all(row.get("decks", "1") == "1" for row in rows), path
        named = {f"verdicts-d{r['draw']}-p{r['passes']}-{r['empty']}-w{r['worry']}" for r in rows}
        assert named == {path.stem}, path  # each file holds the rules its name gives


@pytest.mark.parametrize("name, row", params(sample))
def test_sample_agrees_with_oracle(name, row):
    agree(name, row, SAMPLE_TIMEOUT)


@pytest.mark.slow
@pytest.mark.parametrize("name, row", params(decided_rows))
def test_every_row_agrees_with_oracle(name, row):
    agree(name, row, FULL_TIMEOUT)
