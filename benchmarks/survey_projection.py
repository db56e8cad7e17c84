"""Project the time of a whole recorded survey from a small stratified sample of its seeds.

    python3 benchmarks/survey_projection.py [--survey data/surveys/standard-1e6]
        [--strata 1000:30,10000:200,100000:1000,:5000] [--jobs 2] [--sampling-seed 1] [--json OUT]

The survey's rows give every seed's solve time when it was made. Its seeds are ranked by that time
and cut into strata (``--strata``: the rank each stratum ends at, and how many of its seeds to
solve; an empty rank is the last seed): by default the slowest 1,000, the next 9,000, the next
90,000 and the rest, of which 30, 200, 1,000 and 5,000 are drawn at random (``--sampling-seed``).
Each drawn seed is solved again under the survey's rules and limits (``--jobs`` processes), and
must get the survey's verdict. A stratum's time today is estimated by the ratio of today's to the
survey's time over its drawn seeds, times the survey's time of the whole stratum (a ratio
estimate: the old times rank the seeds, so the slow few that hold most of the time are all
represented); the projection is their sum, with a 95 % interval from resampling each stratum's
drawn seeds (2,000 bootstrap rounds), and the same for positions searched. Wall time on N cores is
the solve time over N, as a survey keeps its workers busy.

The solve times are the solver's own (``Result.seconds``, as the survey recorded them): run it on
otherwise idle cores, as the survey was.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

import click
import numpy as np

from report import Row, solve_seed  # benchmarks/report.py
from dsolve.errors import InputError
from dsolve.rules import Rules
from dsolve.survey import load

BOOTSTRAP_ROUNDS = 2000


def parse_strata(text: str) -> list[tuple[int | None, int]]:
    """``END:DRAWN,...`` as (end rank or None for the last seed, seeds to draw)."""
    strata = []
    for part in text.split(","):
        end, _, drawn = part.partition(":")
        try:
            strata.append((int(end) if end.strip() else None, int(drawn)))
        except ValueError:
            raise InputError(f"bad --strata part {part!r} (expected END:DRAWN, e.g. 1000:30)") from None
    if any(e is None for e, _ in strata[:-1]) or any(d < 2 for _, d in strata):
        raise InputError("--strata: only the last stratum may end at the last seed, and each draws 2 or more")
    return strata


def projection(old: list[np.ndarray], sampled_old: list[np.ndarray], sampled_new: list[np.ndarray],
               rng: np.random.Generator) -> tuple[float, float, float]:
    """The stratified ratio estimate of the strata's total today, and its 95 % bootstrap interval."""
    def estimate(pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
        return float(sum(total.sum() * new.sum() / o.sum() for total, (o, new) in zip(old, pairs)))

    point = estimate(list(zip(sampled_old, sampled_new)))
    rounds = []
    for _ in range(BOOTSTRAP_ROUNDS):
        pairs = []
        for o, new in zip(sampled_old, sampled_new):
            pick = rng.integers(0, len(o), len(o))
            pairs.append((o[pick], new[pick]))
        rounds.append(estimate(pairs))
    low, high = np.percentile(rounds, [2.5, 97.5])
    return point, float(low), float(high)


@click.command()
@click.option("--survey", default="data/surveys/standard-1e6", show_default=True, type=click.Path(exists=True))
@click.option("--strata", default="1000:30,10000:200,100000:1000,:5000", show_default=True,
              help="END:DRAWN per stratum of seeds ranked slowest first")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1))
@click.option("--cores", default=2, show_default=True, type=click.IntRange(1), help="the wall time projected on this many")
@click.option("--sampling-seed", default=1, show_default=True)
@click.option("--json", "json_out", type=click.Path(), help="also write the report and every solve here")
def main(survey: str, strata: str, jobs: int, cores: int, sampling_seed: int, json_out: str | None) -> None:
    manifest, table = load(survey)
    if len(manifest.settings) != 1:
        raise click.UsageError("a survey of one rule set")
    rules = Rules.parse(manifest.settings[0])
    limits = {k: v for k, v in asdict(manifest.limits).items() if v is not None}
    order = np.argsort(-table["seconds"].to_numpy(), kind="stable")
    seeds = table["seed"].to_numpy()[order]
    seconds = table["seconds"].to_numpy()[order]
    nodes = table["nodes"].to_numpy()[order].astype(float)
    verdicts = np.array(table["verdict"].to_pylist())[order]
    rng = np.random.default_rng(sampling_seed)
    bounds, start = [], 0
    for end, drawn in parse_strata(strata):
        stop = len(seeds) if end is None else min(end, len(seeds))
        picked = np.sort(rng.choice(np.arange(start, stop), size=min(drawn, stop - start), replace=False))
        bounds.append((start, stop, picked))
        start = stop
    todo = [int(seeds[i]) for _, _, picked in bounds for i in picked]
    begun = time.monotonic()
    with ProcessPoolExecutor(jobs) as pool:
        rows: dict[int, Row] = dict(zip(todo, pool.map(solve_seed, todo, [rules] * len(todo),
                                                     [manifest.convention] * len(todo), [limits] * len(todo))))
    wall = time.monotonic() - begun
    wrong = [s for s, i in zip(todo, (i for _, _, p in bounds for i in p)) if rows[s].verdict != verdicts[i]]
    report: dict = {"survey": survey, "rules": str(rules), "seeds": len(seeds), "solved": len(todo),
                    "wall_seconds": wall, "verdicts_differing": wrong, "strata": []}
    old_t, new_t, old_n, new_n, totals_t, totals_n = [], [], [], [], [], []
    for start, stop, picked in bounds:
        o_t, o_n = seconds[picked], nodes[picked]
        n_t = np.array([rows[int(seeds[i])].seconds for i in picked])
        n_n = np.array([rows[int(seeds[i])].nodes for i in picked], dtype=float)
        old_t.append(o_t); new_t.append(n_t); old_n.append(o_n); new_n.append(n_n)
        totals_t.append(seconds[start:stop]); totals_n.append(nodes[start:stop])
        report["strata"].append({
            "ranks": [start + 1, stop], "drawn": len(picked), "survey_seconds": float(seconds[start:stop].sum()),
            "time_ratio": float(n_t.sum() / o_t.sum()), "nodes_ratio": float(n_n.sum() / o_n.sum()),
            "seconds_drawn_then": float(o_t.sum()), "seconds_drawn_now": float(n_t.sum())})
    t, t_low, t_high = projection(totals_t, old_t, new_t, rng)
    n, n_low, n_high = projection(totals_n, old_n, new_n, rng)
    survey_total = float(seconds.sum())
    report.update({"survey_seconds": survey_total, "projected_seconds": [t, t_low, t_high],
                   "survey_nodes": float(nodes.sum()), "projected_nodes": [n, n_low, n_high],
                   "cores": cores, "projected_wall_hours": [x / cores / 3600 for x in (t, t_low, t_high)],
                   "survey_wall_hours": survey_total / cores / 3600})
    for s in report["strata"]:
        click.echo(f"ranks {s['ranks'][0]:>7}-{s['ranks'][1]:<7} {s['drawn']:>5} drawn: time x{s['time_ratio']:.3f}, "
                   f"positions x{s['nodes_ratio']:.3f} of the survey's ({s['survey_seconds']:.0f} s then)")
    click.echo(f"{len(todo)} seeds solved in {wall:.0f} s wall ({jobs} jobs); verdicts differing from the survey: "
               f"{len(wrong)}{' ' + str(wrong[:10]) if wrong else ''}")
    click.echo(f"{rules}, {len(seeds)} seeds: solve time {t:.0f} s [{t_low:.0f}, {t_high:.0f}] against the survey's "
               f"{survey_total:.0f} s (x{t / survey_total:.3f}); positions x{n / nodes.sum():.3f} "
               f"[{n_low / nodes.sum():.3f}, {n_high / nodes.sum():.3f}]; on {cores} cores "
               f"{t / cores / 3600:.2f} h [{t_low / cores / 3600:.2f}, {t_high / cores / 3600:.2f}] "
               f"against {survey_total / cores / 3600:.2f} h")
    if json_out:
        report["solves"] = [asdict(rows[s]) for s in todo]
        Path(json_out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
