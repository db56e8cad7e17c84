"""Seconds to grade one seed for a race table at the defaults (dsolve.players.grade.grade).

Run with ``pytest benchmarks/bench_grade.py`` (pytest-benchmark); ``benchmarks/grade_report.py``
gives the median and p99 over a seed range and the rate on several cores.
"""
import pytest

from dsolve.klondike.deals import make_deal
from dsolve.players.grade import grade
from dsolve.rules import preset

SEEDS = (2, 3, 4)


@pytest.mark.parametrize("name", ("race", "standard"))
@pytest.mark.parametrize("seed", SEEDS)
def test_grade_one_seed(benchmark, name, seed):
    deal, rules = make_deal("solvitaire", seed), preset(name)
    result = benchmark.pedantic(grade, args=(deal, rules), rounds=2, iterations=1)
    assert result.verdict in ("winnable", "unwinnable")
    benchmark.extra_info["difficulty"] = result.difficulty
