"""Grade a range of seeds for race tables and report how fast, and what the grades look like.

    python benchmarks/grade_report.py --seeds 1-200 --preset race [--plays N] [--samples N]
        [--sample-nodes N] [--confirm N] [--jobs N] [--repeat K] [--json]

Each seed is graded (dsolve.players.grade.grade) in ``--jobs`` worker processes. The report: the
median, 99th percentile and maximum seconds to grade one seed (wall time, and the worker's CPU
time, which other work on a shared machine does not inflate), seeds graded per second of wall
time, the verdicts, the hidden-information and careless players' win rates over all plays of
winnable deals (95 % Wilson intervals), traps per lost hidden play, and the difficulty classes.
``--repeat K`` grades every seed K times with sampling seeds 0..K-1 and reports how often a seed's
class and its hidden win rate (within 0.25) agree with the first grading: the grade's stability.
"""
from __future__ import annotations

import dataclasses
import json
import statistics
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import click

from dsolve.cli import rules_options
from dsolve.rules import choose_rules
from dsolve.klondike.deals import make_deal
from dsolve.players.grade import DEFAULT_PLAYS, grade
from dsolve.players.hidden import HiddenOptions
from dsolve.survey.stats import wilson
from dsolve.survey import parse_seeds


def _grade(job: tuple) -> dict:
    seed, rules, plays, options, sampling = job
    started = time.process_time()
    row = grade(make_deal("solvitaire", seed), rules, plays, seed=seed, sampling=sampling,
                options=options).to_dict()
    return {**row, "cpu_seconds": time.process_time() - started}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@click.command()
@click.option("--seeds", default="1-200", show_default=True)
@rules_options
@click.option("--plays", type=int, default=None, help="plays per player (default: grade's)")
@click.option("--samples", type=int, default=None)
@click.option("--sample-nodes", type=int, default=None)
@click.option("--confirm", type=int, default=None)
@click.option("--jobs", type=int, default=1, show_default=True)
@click.option("--repeat", type=int, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def main(seeds: str, plays: int | None, samples: int | None, sample_nodes: int | None, confirm: int | None,
         jobs: int, repeat: int, as_json: bool, **rules) -> None:
    chosen = choose_rules(**rules)
    defaults = HiddenOptions()
    options = dataclasses.replace(defaults, samples=samples or defaults.samples,
                                  max_nodes=sample_nodes or defaults.max_nodes, confirm=confirm)
    play_count = plays or DEFAULT_PLAYS
    jobs_list = [(seed, chosen, play_count, options, k) for k in range(repeat) for seed in parse_seeds(seeds)]
    started = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        grades = list(pool.map(_grade, jobs_list, chunksize=1))
    wall = time.perf_counter() - started
    first = [g for g, job in zip(grades, jobs_list) if job[4] == 0]
    won = [g for g in first if g["verdict"] == "winnable"]
    seconds, cpu = [g["seconds"] for g in first], [g["cpu_seconds"] for g in first]
    h_wins, c_wins = sum(g["hidden_wins"] for g in won), sum(g["careless_wins"] for g in won)
    games = sum(g["hidden_plays"] for g in won)
    lost = games - h_wins
    report = {
        "rules": str(chosen), "seeds": seeds, "plays": play_count, "samples": options.samples,
        "sample_nodes": options.max_nodes, "confirm": options.confirm_worlds, "jobs": jobs,
        "median_s": statistics.median(seconds), "p99_s": percentile(seconds, 0.99), "max_s": max(seconds),
        "median_cpu_s": statistics.median(cpu), "p99_cpu_s": percentile(cpu, 0.99),
        "seeds_per_s": len(grades) / wall, "verdicts": dict(Counter(g["verdict"] for g in first)),
        "hidden_win_rate": h_wins / games if games else 0.0, "hidden_interval": wilson(h_wins, games),
        "careless_win_rate": c_wins / games if games else 0.0, "careless_interval": wilson(c_wins, games),
        "hidden_below_half": sum(g["hidden_win_rate"] < 0.5 for g in won) / len(won) if won else 0.0,
        "traps_per_lost_play": sum(g["traps"] for g in won) / lost if lost else 0.0,
        "difficulty": dict(Counter(g["difficulty"] for g in first)),
    }
    if repeat > 1:
        by_seed: dict[int, list[dict]] = {}
        for g, job in zip(grades, jobs_list):
            by_seed.setdefault(job[0], []).append(g)
        again = [(gs[0], g) for gs in by_seed.values() if gs[0]["verdict"] == "winnable" for g in gs[1:]]
        report["same_class"] = sum(a["difficulty"] == b["difficulty"] for a, b in again) / len(again)
        report["rate_within_0.25"] = sum(abs(a["hidden_win_rate"] - b["hidden_win_rate"]) <= 0.25
                                         for a, b in again) / len(again)
    click.echo(json.dumps(report, indent=2) if as_json else "\n".join(f"{k}: {v}" for k, v in report.items()))


if __name__ == "__main__":
    main()
