"""Double solitaire races per second on 2 worker processes, by player pair and variant (locked
at draw 3, open at draw 1: the two pages' games), one pair of seeds raced in duplicate format.

Run with ``pytest benchmarks/bench_race.py`` (pytest-benchmark); ``extra_info`` holds
``races_per_second`` (wall) and ``cpu_seconds_per_race`` (this process and its workers: on a
shared machine the fairer figure for comparing two versions).
"""
import resource

import pytest

from dsolve.races.race import RaceSetup, play_races
from dsolve.races.table import RaceRules

PAIRS = [("hidden", "hidden"), ("hidden", "careless"), ("careless", "careless")]
GAMES = {"locked-3": RaceRules("locked", 3), "open-1": RaceRules("open", 1)}
PLAYS = {"hidden": 12, "careless": 40}


def cpu_seconds() -> float:
    """CPU time of this process and of its children waited for (the pool's workers, once shut down)."""
    return sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("players", PAIRS, ids=",".join)
def test_races_per_second(benchmark, players, game):
    plays = min(PLAYS[p] for p in players)
    setup = RaceSetup(GAMES[game], players=players)
    before = cpu_seconds()
    records = benchmark.pedantic(play_races, args=((1, 2), setup, plays, 2), rounds=1, iterations=1)
    assert len(records) == plays
    benchmark.extra_info["races_per_second"] = plays / benchmark.stats.stats.mean
    benchmark.extra_info["cpu_seconds_per_race"] = (cpu_seconds() - before) / plays
