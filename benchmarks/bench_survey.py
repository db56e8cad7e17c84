"""Survey throughput: seeds per second per core, by rule set.

Run with ``pytest benchmarks/bench_survey.py`` (pytest-benchmark); ``extra_info`` holds
``seeds_per_second_per_core``.
"""
import itertools
import os

import pytest

from dsolve.rules import preset
from dsolve.klondike.rows import solve_chunk
from dsolve.survey import Limits, Task, run_survey

SEEDS = range(1, 21)
LIMITS = Limits(timeout=2)  # a seed that hits it costs 2 s: the rates count unknowns at that price
PRESETS = ("standard", "standard-1", "casino", "single-pass", "double-klondike")


@pytest.mark.parametrize("name", PRESETS)
def test_chunk_throughput(benchmark, name):
    """One worker solving one chunk: the per-core rate of a survey under one rule set."""
    task = Task("solve", "solvitaire", SEEDS.start, SEEDS.stop, (str(preset(name)),), LIMITS)
    table = benchmark.pedantic(solve_chunk, args=(task,), rounds=2, iterations=1)
    assert table.num_rows == len(SEEDS)
    benchmark.extra_info["seeds_per_second_per_core"] = len(SEEDS) / benchmark.stats.stats.mean


def test_survey_throughput(benchmark, tmp_path):
    """The whole pipeline on every core: chunks, workers, Parquet writes (standard rules)."""
    cores = os.cpu_count() or 1
    dirs = (tmp_path / str(i) for i in itertools.count())
    run = benchmark.pedantic(
        run_survey, setup=lambda: ((next(dirs), SEEDS, [preset("standard")]),
                                   {"limits": LIMITS, "jobs": cores, "chunk_size": 5}),
        rounds=2, iterations=1)
    assert (run.seeds_done_before, run.chunks_written) == (0, 5)
    benchmark.extra_info["seeds_per_second_per_core"] = len(SEEDS) / benchmark.stats.stats.mean / cores
