"""Where the time of the long tail goes: solve a sample of the slowest seeds of a survey and
report positions and time by search and by phase of the core.

    python3 benchmarks/tail_profile.py [--survey data/surveys/standard-1e6] [--first 100000]
        [--tail 0.01] [--every 8] [--perf] [--json OUT]

The sample: of seeds 1..--first of the survey, the slowest --tail share by the survey's solve
time, ranked, and of those every --every-th from the middle of each block of --every (so each
sampled seed stands for --every seeds of the tail, and the sums times --every estimate the
tail's). Each is solved in this process, one after the other, under the survey's rules and
limits. For each: the verdict (which must be the survey's), positions searched by each of the
core's three searches (the game's, the relaxation's, the random-order restarts; see
``dsolve._core.last_counts``), which of them decided, the children pruned as already in the
table and by the dead-end test, and the seconds.

``--perf``: sample the process with Linux ``perf`` while it solves, and split the time by the
core's source files (move generation, keys, table, dead-end tests, positions and safe moves, the
search loop) and the kernel (mostly zeroing the table's new pages as it grows). The core must be
built with line information for that (``CFLAGS=-g python3 setup.py build_ext --inplace``: the
same code, with its source lines), as its functions are inlined into a few.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import click
import duckdb

from dsolve import _core
from dsolve.klondike.api import check
from dsolve.rules import Rules

PHASES = {
    "_core_movegen.pxi": "move generation",
    "_core_keys.pxi": "keys",
    "_core_table.pxi": "table",
    "_core_dead_ends.pxi": "dead-end tests",
    "_core_state.pxi": "positions and safe moves",
    "_core_search.pxi": "search loop",
    "_core.pyx": "search loop",
}


def tail_sample(survey: Path, first: int, tail: float, every: int) -> list[tuple[int, str, float]]:
    """(seed, verdict, survey seconds) of the sample, slowest first (see the module's help)."""
    rows = duckdb.sql(
        f"select seed, verdict, seconds from read_parquet('{survey}/*.parquet') "
        f"where seed <= {first} order by seconds desc").fetchall()
    slowest = rows[:round(len(rows) * tail)]
    return [slowest[k] for k in range(every // 2, len(slowest), every)]


def survey_rules(survey: Path) -> tuple[Rules, str, dict[str, Any]]:
    manifest = json.loads((survey / "_manifest.json").read_text())
    limits = manifest["limits"]
    return (Rules.parse(manifest["rules"][0]), manifest["convention"],
            {"timeout": limits["timeout"], "memory_mb": limits["memory_mb"],
             "max_nodes": limits["max_nodes"]})


def c_line_sources(c_file: Path) -> list[tuple[str, int]]:
    """For each line of the generated C file (index = line number), the core source file and
    line it was generated from (Cython's "src/dsolve/FILE":LINE comments)."""
    where, out = ("", 0), [("", 0)]
    marker = re.compile(r'/\* "src/dsolve/([^"]+)":(\d+)')
    for line in c_file.read_text().splitlines():
        m = marker.search(line)
        if m:
            where = (m.group(1), int(m.group(2)))
        out.append(where)
    return out


def perf_phases(data: str, top: int = 12) -> tuple[dict[str, float], list[tuple[float, str]]]:
    """Share of the samples by phase, and the ``top`` core source lines with the most."""
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "-g", "none", "--sort", "dso,srcline",
         "--percent-limit", "0", "-F", "overhead,dso,srcline"],
        capture_output=True, text=True, check=True).stdout
    here = Path(_core.__file__).parent
    sources = c_line_sources(here / "_core.c")
    text = {name: (here / name).read_text().splitlines() for name in PHASES}
    share: dict[str, float] = defaultdict(float)
    lines: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        pct, dso, where = float(parts[0].rstrip("%")), parts[1], parts[-1]
        m = re.match(r"_core\.c:(\d+)$", where)
        if m and int(m.group(1)) < len(sources) and sources[int(m.group(1))][0] in PHASES:
            name, number = sources[int(m.group(1))]
            share[PHASES[name]] += pct
            lines[f"{name}:{number}: {text[name][number - 1].strip()}"] += pct
        elif dso == "[kernel.kallsyms]":
            share["kernel"] += pct
        elif dso.startswith("_core"):
            share["other"] += pct
        else:
            share["python and libraries"] += pct
    hottest = sorted(((round(p, 2), where) for where, p in lines.items()), reverse=True)[:top]
    return {k: round(v, 2) for k, v in sorted(share.items(), key=lambda kv: -kv[1])}, hottest


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--survey", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=Path("data/surveys/standard-1e6"), show_default=True)
@click.option("--first", type=int, default=100_000, show_default=True, help="seeds 1..FIRST of it")
@click.option("--tail", type=float, default=0.01, show_default=True, help="the slowest share")
@click.option("--every", type=int, default=8, show_default=True, help="sample every N-th of them")
@click.option("--perf", "use_perf", is_flag=True, help="split the time by phase with Linux perf")
@click.option("--json", "out", type=click.Path(path_type=Path), help="write the rows and summary")
def main(survey: Path, first: int, tail: float, every: int, use_perf: bool, out: Path | None) -> None:
    """Profile a sample of the slowest seeds of a survey."""
    rules, convention, limits = survey_rules(survey)
    sample = tail_sample(survey, first, tail, every)
    perf = data = None
    if use_perf:
        data = tempfile.mktemp(suffix=".perf")
        perf = subprocess.Popen(["perf", "record", "-F", "499", "-p", str(os.getpid()), "-o", data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    rows = []
    for seed, verdict, survey_seconds in sample:
        r = check(seed, rules, deal=convention, **limits)
        counts = _core.last_counts()
        if r.verdict != verdict:
            sys.exit(f"seed {seed}: {r.verdict}, the survey says {verdict}")
        rows.append({"seed": seed, "verdict": r.verdict, "nodes": r.nodes, "seconds": r.seconds,
                     "survey_seconds": survey_seconds, **counts})
        print(f"seed {seed:>6} {r.verdict:<10} {r.seconds:7.2f} s {r.nodes:>11,} positions  "
              + " ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}"
                         for k, v in counts.items()), flush=True)
    summary: dict[str, Any] = {"seeds": len(rows), "every": every}
    for verdict in ("winnable", "unwinnable"):
        part = [r for r in rows if r["verdict"] == verdict]
        summary[verdict] = {
            "seeds": len(part), "seconds": sum(r["seconds"] for r in part),
            "nodes": sum(r["nodes"] for r in part),
            **{k: sum(r[k] for r in part) for k in rows[0] if k.endswith("_nodes") or k in ("known", "dead")},
            "decided_by": {d: sum(r["decided_by"] == d for r in part)
                           for d in sorted({r["decided_by"] for r in part})},
        }
    if perf is not None:
        perf.send_signal(signal.SIGINT)
        perf.wait()
        summary["phases_percent"], summary["hottest_lines_percent"] = perf_phases(data)
        os.unlink(data)
    print(json.dumps(summary, indent=2))
    if out:
        out.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
