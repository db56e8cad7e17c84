"""Solve a range of seeds and report how fast, how often decided, and how much memory.

    python benchmarks/report.py --seeds 1-1000 --preset standard [--timeout S] [--jobs 1] [--json]

Each seed is solved in this process, one after the other (``--jobs N``: N worker processes).
The report: seeds solved, winnable / unwinnable / unknown, the median, 99th percentile and maximum
solve time, total time, nodes (also of the wins and of the losses apart: a move order changes the
wins' alone) and nodes per second overall, peak memory (maximum resident set size of this process
and of its workers, and the largest transposition table: table_peak x 16 bytes) and the slowest
seeds. Times are the solver's own (``Result.seconds``); ``wall`` adds dealing and the
expansion of winning lines. Ctrl-C stops early and reports the seeds finished so far.
"""
from __future__ import annotations

import json
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import click
import numpy as np

from dsolve.cli import rules_options
from dsolve.rules import choose_rules
from dsolve.klondike.deals import CONVENTIONS, DEFAULT_CONVENTION
from dsolve.errors import InputError
from dsolve.rules import Rules
from dsolve.survey.stats import Spread
from dsolve.survey import parse_seeds

TABLE_ENTRY_BYTES = 16  # two 64-bit halves of a position key


@dataclass(frozen=True)
class Row:
    seed: int
    verdict: str
    moves: int
    nodes: int
    seconds: float
    table_peak: int
    limit: str


def solve_seed(seed: int, rules: Rules, convention: str, limits: dict[str, Any]) -> Row:
    from dsolve.klondike.api import check

    r = check(seed, rules, deal=convention, **limits)
    return Row(seed, r.verdict, len(r.moves), r.nodes, r.seconds, r.table_peak, r.limit)


def max_rss_mb() -> float:
    """Peak resident set size of this process and of its (finished) workers, MB (Linux: KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 1024 / 1024
    return max(own, children) * scale


def summarize(rows: list[Row], wall: float, slowest: int) -> dict[str, Any]:
    times = [r.seconds for r in rows]
    spread = Spread.of(np.array(times))   # the survey reports' percentiles
    count = {v: sum(r.verdict == v for r in rows) for v in ("winnable", "unwinnable", "unknown")}
    total = sum(times)
    nodes = sum(r.nodes for r in rows)
    peak = max((r.table_peak for r in rows), default=0)
    return {
        "n": len(rows), **count,
        "winnable_percent": 100 * count["winnable"] / len(rows) if rows else None,
        "median_seconds": spread.median if spread else None,
        "p99_seconds": spread.p99 if spread else None,
        "max_seconds": spread.max if spread else None,
        "total_seconds": total, "wall_seconds": wall,
        "nodes": nodes, "nodes_per_second": nodes / total if total else None,
        **{f"nodes_{v}": sum(r.nodes for r in rows if r.verdict == v) for v in ("winnable", "unwinnable")},
        "max_rss_mb": max_rss_mb(),
        "largest_table_peak": peak, "largest_table_mb": peak * TABLE_ENTRY_BYTES / 2 ** 20,
        "slowest": [asdict(r) for r in sorted(rows, key=lambda r: -r.seconds)[:slowest]],
    }


def format_report(head: str, s: dict[str, Any]) -> str:
    if not s["n"]:
        return f"{head}\nno seeds solved"
    lines = [
        head,
        f"n {s['n']}: winnable {s['winnable']} ({s['winnable_percent']:.1f} %), "
        f"unwinnable {s['unwinnable']}, unknown {s['unknown']}",
        f"seconds per seed: median {s['median_seconds']:.4f}, p99 {s['p99_seconds']:.3f}, "
        f"max {s['max_seconds']:.3f}; total {s['total_seconds']:.2f} (wall {s['wall_seconds']:.2f})",
        f"nodes: {s['nodes']:,} in total (winnable {s['nodes_winnable']:,}, unwinnable "
        f"{s['nodes_unwinnable']:,}), {s['nodes_per_second'] or 0:,.0f} nodes/s",
        f"peak memory: max RSS {s['max_rss_mb']:.1f} MB; largest table {s['largest_table_peak']:,} "
        f"positions x {TABLE_ENTRY_BYTES} B = {s['largest_table_mb']:.1f} MB",
        f"slowest {len(s['slowest'])} seeds:",
    ]
    for r in s["slowest"]:
        verdict = f"{r['verdict']} ({r['limit']})" if r["limit"] else r["verdict"]
        lines.append(f"  seed {r['seed']:>8}  {r['seconds']:8.3f} s  {r['nodes']:>12,} nodes  {verdict}")
    return "\n".join(lines)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--seeds", required=True, metavar="FIRST-LAST", help="seeds to solve, inclusive, e.g. 1-1000")
@rules_options
@click.option("--deal", "convention", metavar="CONVENTION",
              help=f"how seeds number deals: {', '.join(CONVENTIONS)} (default {DEFAULT_CONVENTION})")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="S", help="seconds per solve")
@click.option("--max-nodes", type=click.IntRange(min=1), metavar="N", help="positions per solve")
@click.option("--memory", type=click.FloatRange(min=0, min_open=True), metavar="MB",
              help="transposition table memory per solve (default: dsolve.klondike.api.default_memory_mb)")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="worker processes (1: solve in this process)")
@click.option("--slowest", type=click.IntRange(min=0), default=10, show_default=True,
              help="how many of the slowest seeds to list")
@click.option("--json", "as_json", is_flag=True, help="print the report as one JSON object")
def main(seeds: str, convention: str | None, timeout: float | None, max_nodes: int | None,
         memory: float | None, jobs: int, slowest: int, as_json: bool, **rule_options: Any) -> None:
    """Solve --seeds under one rule set and report verdicts, times, speed and memory."""
    try:
        seed_range = parse_seeds(seeds)
        rules = choose_rules(**rule_options)
        convention = convention or DEFAULT_CONVENTION
        if convention not in CONVENTIONS:
            raise InputError(f"unknown convention {convention!r} (expected one of {', '.join(CONVENTIONS)})")
    except InputError as err:
        raise click.UsageError(str(err)) from None
    limits = {"timeout": timeout, "max_nodes": max_nodes, "memory_mb": memory}
    rows: list[Row] = []
    interrupted = False
    start = time.perf_counter()
    try:
        if jobs == 1:
            for seed in seed_range:
                rows.append(solve_seed(seed, rules, convention, limits))
        else:
            with ProcessPoolExecutor(jobs) as pool:
                n = len(seed_range)
                rows.extend(pool.map(solve_seed, seed_range, [rules] * n, [convention] * n,
                                     [limits] * n, chunksize=max(1, min(50, n // (4 * jobs)))))
    except KeyboardInterrupt:
        interrupted = True
    except InputError as err:
        raise click.UsageError(str(err)) from None
    wall = time.perf_counter() - start
    summary = summarize(rows, wall, slowest)
    given = [f"{k}={v}" for k, v in (("timeout", timeout), ("max_nodes", max_nodes), ("memory_mb", memory)) if v]
    head = (f"{convention} seeds {seeds.strip()}, {rules}, limits: {', '.join(given) or 'none'}, "
            f"{jobs} job{'s' if jobs > 1 else ''}" + (f"; interrupted after {len(rows)} seeds" if interrupted else ""))
    if as_json:
        click.echo(json.dumps({"convention": convention, "seeds": [seed_range.start, seed_range.stop - 1],
                               "rules": str(rules), "limits": limits, "jobs": jobs,
                               "interrupted": interrupted, **summary}, indent=2))
    else:
        click.echo(format_report(head, summary))
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
