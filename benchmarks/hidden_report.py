"""Play the hidden-information player once on each seed of a range and report its strength and cost.

    PYTHONPATH=src python benchmarks/hidden_report.py --seeds 1-500 --preset standard \
        [--option samples=16 --option max_nodes=8000 ...] [--sampling 0] [--jobs N] \
        [--out FILE.jsonl] [--json]

Each seed is first solved with all cards known (``--timeout`` seconds): a deal proven unwinnable
counts as a lost play and is not played; every other deal is played once by
:func:`dsolve.players.hidden.play_hidden` with the sampling seed ``f"{sampling}:{seed}"`` and
:class:`~dsolve.players.hidden.HiddenOptions` changed by ``--option NAME=VALUE``. The report: the
win rate over all seeds and over the winnable ones (95 % Wilson intervals), the CPU seconds of a
play (median, 99th percentile, maximum; CPU time, which other work on the machine does not
inflate) and the core's solves per play. ``--out`` keeps one JSON line per seed and is resumed:
seeds already in it are not played again, so a long run can be stopped and started; the rules,
options and sampling seed it was made with are kept beside it (``FILE.settings.json``) and a
resume with others is refused.
"""
from __future__ import annotations

import dataclasses
import json
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import click

from dsolve.cli import rules_options
from dsolve.klondike import api
from dsolve.klondike.deals import make_deal
from dsolve.klondike.result import UNWINNABLE, WINNABLE
from dsolve.players.hidden import HiddenOptions, seeded_player
from dsolve.players.view import play_out
from dsolve.rules import choose_rules
from dsolve.survey import parse_seeds
from dsolve.survey.stats import quantile, wilson


def parse_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` for a field of HiddenOptions, the value typed as the field's default."""
    name, _, value = text.partition("=")
    fields = {f.name: f for f in dataclasses.fields(HiddenOptions)}
    if name not in fields:
        raise click.BadParameter(f"no hidden-player option {name!r} (one of {', '.join(fields)})")
    default = fields[name].default
    if isinstance(default, bool):
        return name, value.lower() in ("1", "yes", "true", "on")
    if value.lower() == "none":
        return name, None
    return name, (float(value) if isinstance(default, float) else int(value))


def play_seed(job: tuple) -> dict:
    seed, rules, options, sampling, timeout = job
    deal = make_deal("solvitaire", seed)
    verdict = api.solve(deal, rules, timeout=timeout).verdict
    row = {"seed": seed, "verdict": verdict, "won": False, "cpu_s": 0.0, "solves": 0, "moves": 0}
    if verdict != UNWINNABLE:
        started = time.process_time()
        player = seeded_player(rules, f"{sampling}:{seed}", options)  # as play_hidden plays it
        play = play_out(deal, rules, player)
        row.update(won=play.won, cpu_s=round(time.process_time() - started, 4), solves=player.solves,
                   moves=len(play.moves))
    return row


def summary(rows: list[dict], options: HiddenOptions, rules: str) -> dict:
    played = [r for r in rows if r["verdict"] != UNWINNABLE]
    wins = sum(r["won"] for r in rows)
    winnable = [r for r in rows if r["verdict"] == WINNABLE]
    cpu = [r["cpu_s"] for r in played] or [0.0]
    return {
        "rules": rules, "options": dataclasses.asdict(options), "seeds": len(rows),
        "winnable": len(winnable), "wins": wins,
        "win_rate": wins / len(rows), "interval": wilson(wins, len(rows)),
        "win_rate_winnable": sum(r["won"] for r in winnable) / max(1, len(winnable)),
        "median_cpu_s": statistics.median(cpu), "p99_cpu_s": quantile(cpu, 0.99), "max_cpu_s": max(cpu),
        "mean_cpu_s": statistics.fmean(cpu),
        "solves_per_play": statistics.fmean([r["solves"] for r in played] or [0]),
    }


def check_settings(out: str, settings: dict) -> None:
    """Record ``settings`` beside ``out``, or refuse (exit 2) if it was made with others."""
    path = out + ".settings.json"
    if os.path.exists(path):
        with open(path) as f:
            kept = json.load(f)
        if kept != json.loads(json.dumps(settings)):
            raise click.UsageError(f"{out} was made with other settings ({path}): {kept}")
    else:
        with open(path, "w") as f:
            json.dump(settings, f, indent=1)


@click.command()
@click.option("--seeds", default="1-200", show_default=True)
@rules_options
@click.option("--option", "option_texts", multiple=True, help="a HiddenOptions field: NAME=VALUE")
@click.option("--sampling", type=int, default=0, show_default=True)
@click.option("--timeout", type=float, default=10.0, show_default=True, help="the thoughtful solve's")
@click.option("--jobs", type=int, default=1, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="JSON lines, resumed")
@click.option("--json", "as_json", is_flag=True)
def main(seeds: str, option_texts: tuple[str, ...], sampling: int, timeout: float, jobs: int,
         out: str | None, as_json: bool, **rules) -> None:
    chosen = choose_rules(**rules)
    options = dataclasses.replace(HiddenOptions(), **dict(parse_option(t) for t in option_texts))
    wanted = parse_seeds(seeds)
    done: dict[int, dict] = {}
    if out:
        check_settings(out, {"rules": str(chosen), "options": dataclasses.asdict(options),
                             "sampling": sampling, "timeout": timeout})
    if out and os.path.exists(out):
        asked = set(wanted)
        with open(out) as f:
            done = {row["seed"]: row for row in map(json.loads, f) if row["seed"] in asked}
    todo = [(seed, chosen, options, sampling, timeout) for seed in wanted if seed not in done]
    sink = open(out, "a") if out else None
    with ProcessPoolExecutor(jobs) as pool:
        for i, row in enumerate(pool.map(play_seed, todo, chunksize=1), 1):
            done[row["seed"]] = row
            if sink:
                sink.write(json.dumps(row) + "\n")
                sink.flush()
            if i % 100 == 0:
                click.echo(f"{len(done)}/{len(wanted)} seeds, {sum(r['won'] for r in done.values())} won",
                           err=True)
    if sink:
        sink.close()
    report = summary([done[s] for s in wanted], options, str(chosen))
    click.echo(json.dumps(report, indent=2) if as_json else "\n".join(f"{k}: {v}" for k, v in report.items()))


if __name__ == "__main__":
    main()
