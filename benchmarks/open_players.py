"""A player against another at the double solitaire table: the win share of the first, with its
95 % interval (Wilson), seats and decks swapped.

Pair k races seed 2k-1 against seed 2k four times, with the same random numbers (think times,
choices) for the four: the first player in seat A with either deck against the second in seat B
with the other, then the two players' seats exchanged (duplicate format, see
:mod:`dsolve.races.race`). So each player holds each deck from each seat once. The default
compares the open-race careless player with the one that ignores the other tableau's cards::

    PYTHONPATH=src nice -n 10 python3 benchmarks/open_players.py --pairs 250
    PYTHONPATH=src nice -n 10 python3 benchmarks/open_players.py --new hidden --old hidden-own --pairs 25
    PYTHONPATH=src nice -n 10 python3 benchmarks/open_players.py --win count --pairs 250
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

from dsolve.players.hidden import HiddenOptions
from dsolve.races.race import RaceSetup, play_races
from dsolve.races.table import RaceRules
from dsolve.survey.stats import wilson


def duel(new: str, old: str, pairs: int, rules: RaceRules, hidden: HiddenOptions, jobs: int) -> Counter[str]:
    """The races of pairs 1..``pairs`` (four each, see the module docstring), counted: ``new``
    and ``old`` (races each won), ``draw``, and the same by end (``end:finished:new``, ...)."""
    counts: Counter[str] = Counter()
    for k in range(1, pairs + 1):
        for seats in ((new, old), (old, new)):
            setup = RaceSetup(rules, players=seats, hidden=hidden)
            for record in play_races((2 * k - 1, 2 * k), setup, 2, jobs):
                who = "draw" if record.winner is None else ("new", "old")[seats.index(new) != record.winner]
                counts[who] += 1
                counts[f"end:{record.end}:{who}"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--new", default="careless")
    parser.add_argument("--old", default="careless-own")
    parser.add_argument("--pairs", type=int, default=250, help="pairs of seeds, four races each")
    parser.add_argument("--variant", default="open")
    parser.add_argument("--draw", type=int, default=1)
    parser.add_argument("--win", default="first", help="first (the first seat out wins) or count")
    parser.add_argument("--samples", type=int, default=HiddenOptions.samples, help="the hidden player's worlds")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    start = time.process_time()
    counts = duel(args.new, args.old, args.pairs, RaceRules(args.variant, args.draw, win=args.win),
                  HiddenOptions(samples=args.samples), args.jobs)
    n = 4 * args.pairs
    low, high = wilson(counts["new"], n)
    decided = counts["new"] + counts["old"]
    d_low, d_high = wilson(counts["new"], decided)
    names = {"new": args.new, "old": args.old, "draw": "drawn"}
    by_end: dict[str, list[str]] = {}
    for key, count in sorted(counts.items()):
        if key.startswith("end:"):
            _, end, who = key.split(":")
            by_end.setdefault(end, []).append(f"{names[who]} {count}")
    ends = "; ".join(f"{end}: {', '.join(parts)}" for end, parts in by_end.items())
    print(f"{args.variant} draw {args.draw} win {args.win}: {args.new} against {args.old}, {n} races ({args.pairs} pairs)")
    print(f"  {args.new} won {counts['new']}, {args.old} won {counts['old']}, draws {counts['draw']}")
    print(f"  win share of {args.new}: {100 * counts['new'] / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]; "
          f"of the races won: {100 * counts['new'] / max(decided, 1):.1f}% [{100 * d_low:.1f}, {100 * d_high:.1f}]")
    print(f"  by end: {ends}")
    print(f"  CPU {time.process_time() - start:.0f} s (this process)")


if __name__ == "__main__":
    main()
