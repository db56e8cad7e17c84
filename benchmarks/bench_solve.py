"""Single solves: a few representative Solvitaire seeds per rule set, winnable and unwinnable.

Run with ``pytest benchmarks/bench_solve.py`` (pytest-benchmark); ``extra_info`` holds the
verdict, nodes and nodes per second. For a whole seed range use ``benchmarks/report.py``.
"""
import pytest

from dsolve.klondike.api import check
from dsolve.rules import preset

TIMEOUT = 30.0  # a regression to "unknown" shows as a failure, not a hang
CASES = {
    # preset: seeds (a quick win, a slower win, an unwinnable one where the preset has one)
    "standard": (2, 8, 1),
    "standard-1": (5, 10, 1),
    "casino": (7, 6, 3),
    "single-pass": (2, 3, 8),
    "simultaneous-fr": (5, 8, 1),
    "double-klondike": (3,),
}


@pytest.mark.parametrize("name, seed", [pytest.param(name, seed, id=f"{name}-seed{seed}")
                                        for name, seeds in CASES.items() for seed in seeds])
def test_check(benchmark, name, seed):
    rules = preset(name)
    result = benchmark.pedantic(check, args=(seed, rules), kwargs={"timeout": TIMEOUT},
                                rounds=3, iterations=1, warmup_rounds=1)
    assert result.decided, f"seed {seed} under {name}: unknown ({result.limit})"
    benchmark.extra_info.update(verdict=result.verdict, nodes=result.nodes,
                                moves=len(result.moves), table_peak=result.table_peak,
                                nodes_per_second=result.nodes / max(result.seconds, 1e-9))
