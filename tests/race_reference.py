"""Reference race records: the cases of ``tests/data/race-records.jsonl.gz`` and how that file is
made.

The file holds, per case, the records of ``plays`` races of a pair (duplicate format) as the code
played them once the ends were made those of the rules pages (a seat emptied by the other's move
wins; a race ends blocked only when the progress check finds no seat can progress; the win line
recorded in the rules) and the open-race players took the other tableau's top card: a speed-up
must leave every record (every move, think time, end, winner and count) exactly as it was.
``test_races.py`` plays them again and compares. To make the file again (only when the races are *meant* to
change): ``PYTHONPATH=src python3 tests/race_reference.py``.
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from dsolve.players.hidden import FAST, HiddenOptions
from dsolve.races.race import RaceRecord, RaceSetup, play_races
from dsolve.races.table import RaceRules
from dsolve.races.timing import Clock

RECORDS = Path(__file__).parent / "data" / "race-records.jsonl.gz"

# name: (pair, setup, plays). Locked draw 3 and open draw 1 (the two pages' games) with every player
# pair, the turns mode, a pass limit, uneven think times, another sampling seed.
CASES: dict[str, tuple[tuple[int, int], RaceSetup, int]] = {
    "locked3-careless": ((1, 2), RaceSetup(RaceRules("locked", 3), players=("careless", "careless")), 20),
    "locked3-hidden-careless": ((3, 4), RaceSetup(RaceRules("locked", 3), players=("hidden", "careless"),
                                                  hidden=FAST), 8),
    "locked3-hidden": ((1, 2), RaceSetup(RaceRules("locked", 3), players=("hidden", "hidden"), hidden=FAST), 8),
    "locked3-random": ((5, 6), RaceSetup(RaceRules("locked", 3), players=("random", "random")), 4),
    "open1-careless": ((1, 2), RaceSetup(RaceRules("open", 1), players=("careless", "careless")), 20),
    "open1-hidden-careless": ((7, 8), RaceSetup(RaceRules("open", 1), players=("careless", "hidden"),
                                                hidden=FAST), 8),
    "open1-hidden": ((1, 2), RaceSetup(RaceRules("open", 1), players=("hidden", "hidden"), hidden=FAST), 8),
    "open1-random": ((9, 10), RaceSetup(RaceRules("open", 1), players=("random", "random")), 4),
    "open3-passes3-careless": ((11, 12), RaceSetup(RaceRules("open", 3, 3), players=("careless", "careless"),
                                                   sampling_seed=7), 20),
    "locked1-turns-careless": ((13, 14), RaceSetup(RaceRules("locked", 1), "turns", ("careless", "careless")), 20),
    "open3-turns-hidden": ((15, 16), RaceSetup(RaceRules("open", 3), "turns", ("hidden", "careless"),
                                               hidden=HiddenOptions(samples=4, max_nodes=FAST.max_nodes)), 6),
    "open1-think-careless": ((17, 18), RaceSetup(RaceRules("open", 1), players=("careless", "careless"),
                                                 clock=Clock((0.5, 2.0))), 20),
}


def record_data(record: RaceRecord) -> dict:
    """A record as stored: :meth:`RaceRecord.to_dict` with the think times unrounded."""
    return {**record.to_dict(), "times": list(record.times)}


def play_case(name: str, jobs: int = 1) -> list[dict]:
    """The records of case ``name`` played by the code as it is now."""
    pair, setup, plays = CASES[name]
    return [record_data(r) for r in play_races(pair, setup, plays, jobs)]


def read_reference() -> dict[str, list[dict]]:
    """The stored records, by case."""
    with gzip.open(RECORDS, "rt") as f:
        lines = [json.loads(line) for line in f]
    cases: dict[str, list[dict]] = {}
    for line in lines:
        cases.setdefault(line["case"], []).append(line["record"])
    return cases


def main(jobs: int = 2) -> None:
    with gzip.open(RECORDS, "wt") as f:
        for name in CASES:
            for record in play_case(name, jobs):
                f.write(json.dumps({"case": name, "record": record}, separators=(",", ":")) + "\n")
            print(name, file=sys.stderr)


if __name__ == "__main__":
    main()
