"""dsolve and lonelybot side by side on the same deals: verdicts and CPU seconds.

    python3 benchmarks/versus_lonelybot.py --lonelybot PATH --seeds 1-200 --draw 3 --timeout 20
    python3 benchmarks/versus_lonelybot.py --lonelybot PATH --seeds 1-50 --draw 3 --timeout 10 --hop

PATH is lonelybot's command-line program ``lonecli``, built outside this repository (docs/speed.md
says how). Seeds are Solvitaire's, which lonelybot deals as its ``solvitaire`` seed type: before a
seed is solved, the deal ``lonecli print solvitaire SEED`` prints is checked against dsolve's.
Both play thoughtful Klondike, unlimited passes, kings to spaces, foundation cards playable back.

dsolve solves in this process (``dsolve.klondike.api.check``; CPU: ``time.process_time`` around
it, dealing and expanding the winning line included); lonelybot runs ``lonecli solve solvitaire
SEED DRAW``, one process at a time (CPU: user + system time of the reaped child, from
``RUSAGE_CHILDREN``). After ``--timeout`` wall seconds lonecli gets SIGINT, on which it stops its
search and says ``Terminated``: unknown, as dsolve's own time-out. The report: per solver
winnable / unwinnable / unknown, total, median, p99 and maximum CPU seconds, dsolve's total over
lonelybot's, and every seed where both decided and disagree.

``--hop``: lonelybot's hidden-information player instead (``lonecli hop solvitaire SEED DRAW``,
which plays without seeing face-down cards and has no guard against looping): ended after
``--timeout`` CPU seconds (rounded up; CPU, as its games are long and the machine may be shared),
a loss. The report: wins, losses, time-outs, CPU seconds per game.
"""
from __future__ import annotations

import json
import math
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np

from dsolve.errors import InputError
from dsolve.klondike.api import check
from dsolve.klondike.dealfiles import dump_deal
from dsolve.klondike.deals import make_deal
from dsolve.rules import preset
from dsolve.survey import parse_seeds
from dsolve.survey.stats import Spread

GRACE_SECONDS = 5  # after SIGINT, how long lonecli may take to stop before it is killed
BACKSTOP = 10  # with a CPU cap, wall seconds allowed per CPU second
SLOWEST = 10  # seeds listed side by side, those dsolve spent the most CPU on
LONELYBOT_VERDICTS = {"Solvable in": "winnable", "Impossible": "unwinnable"}  # else unknown


@dataclass(frozen=True)
class Run:
    verdict: str  # winnable / unwinnable / unknown; for --hop: won / lost / timeout
    cpu: float
    positions: int = 0  # positions searched (see the module docstring); 0 for --hop


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_lonecli(args: list[str], timeout: float, *, cpu_cap: bool) -> tuple[str, float, bool]:
    """Standard output, CPU seconds and whether time ran out, of one lonecli run. ``timeout``:
    wall seconds, then SIGINT (on which lonecli's solver stops and reports); with ``cpu_cap``
    CPU seconds instead, rounded up (RLIMIT_CPU: SIGXCPU ends it), wall seconds only as a
    backstop against a stalled run."""
    def limit_cpu() -> None:
        seconds = math.ceil(timeout)
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))

    before = children_cpu()
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          preexec_fn=limit_cpu if cpu_cap else None) as proc:
        try:
            out, _ = proc.communicate(timeout=BACKSTOP * timeout if cpu_cap else timeout)
            timed_out = proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
    return out, children_cpu() - before, timed_out


def check_deal(lonecli: str, seed: int) -> None:
    """Refuse to go on if lonelybot deals ``seed`` otherwise than dsolve does."""
    out = subprocess.run([lonecli, "print", "solvitaire", str(seed)], capture_output=True,
                         text=True, check=True).stdout
    ours = dump_deal(make_deal("solvitaire", seed), "json")
    if any(json.loads(out)[key] != json.loads(ours)[key] for key in ("tableau piles", "stock")):
        raise click.ClickException(f"seed {seed}: lonelybot deals\n{out}\ndsolve deals\n{ours}")


def solve_dsolve(seed: int, draw: int, timeout: float) -> Run:
    rules = preset("standard" if draw == 3 else "standard-1")
    start = time.process_time()
    result = check(seed, rules, timeout=timeout)
    return Run(result.verdict, time.process_time() - start, result.nodes)


def solve_lonelybot(lonecli: str, seed: int, draw: int, timeout: float) -> Run:
    out, cpu, _ = run_lonecli([lonecli, "solve", "solvitaire", str(seed), str(draw)], timeout,
                              cpu_cap=False)
    verdict = next((v for line in out.splitlines() for key, v in LONELYBOT_VERDICTS.items()
                    if line.startswith(key)), "unknown")
    misses = [line.split(":")[1] for line in out.splitlines() if line.startswith("Miss state:")]
    return Run(verdict, cpu, int(misses[-1]) if misses else 0)


def play_hop(lonecli: str, seed: int, draw: int, timeout: float) -> Run:
    out, cpu, timed_out = run_lonecli([lonecli, "hop", "solvitaire", str(seed), str(draw)], timeout,
                                      cpu_cap=True)
    won = not timed_out and out.rstrip().endswith("Solved")
    return Run("timeout" if timed_out else "won" if won else "lost", cpu)


def cpu_line(runs: list[Run]) -> str:
    spread = Spread.of(np.array([r.cpu for r in runs]))
    assert spread is not None
    return (f"CPU s: total {sum(r.cpu for r in runs):.2f}, median {spread.median:.4f}, "
            f"p99 {spread.p99:.3f}, max {spread.max:.3f}")


def positions_line(runs: list[Run]) -> str:
    positions, cpu = sum(r.positions for r in runs), sum(r.cpu for r in runs)
    return f"positions: {positions:,}, {positions / cpu / 1e6:.2f} M a CPU second" if cpu else ""


def counts(runs: list[Run], verdicts: tuple[str, ...]) -> str:
    return ", ".join(f"{v} {sum(r.verdict == v for r in runs)}" for v in verdicts)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--lonelybot", "lonecli", required=True, type=click.Path(exists=True, dir_okay=False),
              help="lonelybot's lonecli binary")
@click.option("--seeds", required=True, metavar="FIRST-LAST", help="Solvitaire seeds, inclusive")
@click.option("--draw", type=click.Choice(["1", "3"]), default="3", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=20.0,
              show_default=True, metavar="S", help="wall seconds per solve (with --hop: CPU seconds per game)")
@click.option("--hop", is_flag=True, help="play lonelybot's hidden-information player instead")
def main(lonecli: str, seeds: str, draw: str, timeout: float, hop: bool) -> None:
    """Solve --seeds with dsolve and with lonelybot and compare (see the module docstring)."""
    try:
        seed_range = parse_seeds(seeds)
    except InputError as err:
        raise click.UsageError(str(err)) from None
    lonecli = str(Path(lonecli).resolve())
    head = f"solvitaire seeds {seeds}, draw {draw}, {timeout:g} s cap"
    if hop:
        games = []
        for seed in seed_range:
            check_deal(lonecli, seed)
            games.append(play_hop(lonecli, seed, int(draw), timeout))
        click.echo(f"{head}, lonelybot hop: {counts(games, ('won', 'lost', 'timeout'))}; "
                   f"CPU s per game: mean {np.mean([g.cpu for g in games]):.2f}\n  {cpu_line(games)}")
        return
    ours, theirs = [], []
    for seed in seed_range:
        check_deal(lonecli, seed)
        ours.append(solve_dsolve(seed, int(draw), timeout))
        theirs.append(solve_lonelybot(lonecli, seed, int(draw), timeout))
    verdicts = ("winnable", "unwinnable", "unknown")
    click.echo(head)
    for name, runs in (("dsolve", ours), ("lonelybot", theirs)):
        click.echo(f"{name:>9}: {counts(runs, verdicts)}\n           {cpu_line(runs)}\n"
                   f"           {positions_line(runs)}")
    total_theirs = sum(r.cpu for r in theirs)
    if total_theirs:
        click.echo(f"CPU dsolve / lonelybot: {sum(r.cpu for r in ours) / total_theirs:.2f}")
    click.echo(f"dsolve's {SLOWEST} slowest: seed, verdict, CPU s and positions of dsolve, then of lonelybot")
    slowest = sorted(range(len(ours)), key=lambda k: ours[k].cpu, reverse=True)[:SLOWEST]
    for k in slowest:
        a, b = ours[k], theirs[k]
        click.echo(f"  {seed_range[k]:>7} {a.verdict:>10} {a.cpu:7.2f} {a.positions:>11,}   "
                   f"{b.verdict:>10} {b.cpu:7.2f} {b.positions:>11,}")
    unknown = [(s, a.verdict, b.verdict) for s, a, b in zip(seed_range, ours, theirs)
               if "unknown" in (a.verdict, b.verdict) and a.verdict != b.verdict]
    differ = [(s, a.verdict, b.verdict) for s, a, b in zip(seed_range, ours, theirs)
              if "unknown" not in (a.verdict, b.verdict) and a.verdict != b.verdict]
    for label, rows in (("decided by one only", unknown), ("DISAGREE", differ)):
        for seed, a, b in rows:
            click.echo(f"{label}: seed {seed}: dsolve {a}, lonelybot {b}")
    click.echo(f"verdicts disagree on {len(differ)} seed(s)")


if __name__ == "__main__":
    main()
