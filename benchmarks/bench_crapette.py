"""Crapette rounds per second per core, by pairing of players.

Run with ``pytest benchmarks/bench_crapette.py`` (pytest-benchmark); ``extra_info`` holds
``rounds_per_second_per_core``.
"""
import pytest

from dsolve.crapette.rounds import play_rounds

PAIRINGS = {("greedy", "greedy"): range(1, 101), ("random", "random"): range(1, 101),
            ("greedy", "random"): range(1, 101), ("search", "greedy"): range(1, 11),
            ("search", "search"): range(1, 11)}


@pytest.mark.parametrize("players", list(PAIRINGS), ids=",".join)
def test_rounds_per_second(benchmark, players):
    seeds = PAIRINGS[players]
    rows = benchmark.pedantic(play_rounds, args=(seeds, [players]), rounds=2, iterations=1)
    assert len(rows) == len(seeds)
    benchmark.extra_info["rounds_per_second_per_core"] = len(seeds) / benchmark.stats.stats.mean
