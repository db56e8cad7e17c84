"""Positions searched on every decided row of the oracle verdicts (tests/data/oracle), to check a
change of the core against the build before it: same verdicts, no row searching more.

    python3 benchmarks/oracle_nodes.py --out after.jsonl [--timeout 30] [--compare before.jsonl]

Each row (one deck and two) is solved in this process, one after the other; a line of JSON a row
(file, seed, the oracle's verdict, the core's, positions, seconds) goes to --out as it is solved.
``--compare``: a file this script wrote with another build; prints per file the positions of both,
the rows searching more and fewer, and any row whose verdict is not the oracle's in either, and
exits 1 on such a row. Run the other build from its own checkout (``PYTHONPATH=that/src``).
"""
from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

import click

from dsolve.klondike.api import check
from dsolve.klondike.result import UNWINNABLE, WINNABLE

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))
from conftest import ORACLE, oracle_rules  # noqa: E402  (the tests' reading of an oracle row)


def compare(before: list[dict], after: list[dict]) -> bool:
    """Print the comparison; whether every verdict is the oracle's."""
    if [(r["file"], r["seed"]) for r in before] != [(r["file"], r["seed"]) for r in after]:
        raise click.UsageError("the two files hold other rows")
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    agree = True
    for b, a in zip(before, after):
        t = totals[a["file"]]
        t[0] += b["nodes"]
        t[1] += a["nodes"]
        t[2] += a["nodes"] > b["nodes"]
        t[3] += a["nodes"] < b["nodes"]
        for run in (b, a):
            if run["verdict"] != run["oracle"]:
                agree = False
                click.echo(f"{run['file']} seed {run['seed']}: {run['verdict']}, the oracle says {run['oracle']}")
    for name, (nb, na, more, fewer) in totals.items():
        click.echo(f"{name}: {nb:,} -> {na:,} positions ({na / max(nb, 1):.4f}); "
                   f"rows searching more {more}, fewer {fewer}")
    return agree


@click.command()
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="JSON lines, a row each")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="seconds per solve")
@click.option("--compare", "before", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="the same run with another build")
def main(out: Path, timeout: float, before: Path | None) -> None:
    rows = []
    with out.open("w") as f:
        for path in sorted(ORACLE.glob("*verdicts-*.csv")):
            with path.open(newline="") as g:
                for row in csv.DictReader(g):
                    if row["verdict"] not in (WINNABLE, UNWINNABLE):
                        continue
                    result = check(int(row["seed"]), oracle_rules(row), timeout=timeout)
                    rows.append({"file": path.stem, "seed": int(row["seed"]), "oracle": row["verdict"],
                                 "verdict": result.verdict, "nodes": result.nodes, "seconds": result.seconds})
                    f.write(json.dumps(rows[-1]) + "\n")
                    f.flush()
    if before is not None:
        with before.open() as f:
            if not compare([json.loads(line) for line in f], rows):
                sys.exit(1)


if __name__ == "__main__":
    main()
