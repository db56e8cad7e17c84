"""dsolve against Solvitaire's verdicts at draw 3 (the rules dsolve calls ``standard``) on layouts
whose face-up cards need not be one run per pile, and on games in progress.

The data and how Solvitaire produced it: ``tests/data/solvitaire-face-up/README.md``. Rows
Solvitaire left undecided (timed out) are not compared.
"""
import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest

from dsolve.klondike import api
from dsolve.klondike.deal import Deal
from dsolve.klondike.dealfiles import dump_deal, load_deal
from dsolve.klondike.deals import solvitaire
from dsolve.klondike.referee import replay
from dsolve.klondike.result import UNKNOWN, WINNABLE
from dsolve.rules import Rules

DATA = Path(__file__).parent / "data" / "solvitaire-face-up"
RULES = Rules(3)  # draw 3, unlimited passes, kings in spaces, worrying back: Solvitaire's klondike
TIMEOUT = 20.0


def read_rows(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f))


def face_up_deal(seed: int, face_up: str) -> Deal:
    """Solvitaire seed ``seed`` with ``face_up`` (e.g. ``1-2-3-1-5-1-7``) cards face up per pile."""
    deal = solvitaire(seed)
    counts = [int(n) for n in face_up.split("-")]
    return replace(deal, face_down=tuple(len(p) - n for p, n in zip(deal.tableau, counts)))


def assert_agrees(deal: Deal, expected: str, what: str) -> None:
    result = api.solve(deal, RULES, timeout=TIMEOUT)
    assert result.verdict == expected, (
        f"{what}: dsolve says {result.verdict} ({result.seconds:.2f} s, {result.nodes} nodes"
        f"{', limit ' + result.limit if result.limit else ''}), Solvitaire says {expected}")
    if expected == WINNABLE:
        outcome = replay(deal, RULES, result.moves)
        assert outcome.won, f"{what}: the winning line does not replay: {outcome.error}"


DEAL_ROWS = read_rows("verdicts.csv")
POSITION_ROWS = read_rows("positions.csv")


def test_data_is_what_the_readme_describes():
    assert len(DEAL_ROWS) == 170 and len(POSITION_ROWS) == 60
    for row in DEAL_ROWS:
        counts = [int(n) for n in row["face_up"].split("-")]
        assert len(counts) == 7 and all(1 <= n <= size for n, size in zip(counts, range(1, 8)))
    all_up = [int(row["seed"]) for row in DEAL_ROWS if row["face_up"] == "1-2-3-4-5-6-7"]
    assert set(range(1, 21)) <= set(all_up)
    decided = [row for row in DEAL_ROWS + POSITION_ROWS if row["verdict"] != UNKNOWN]
    assert {row["verdict"] for row in decided} == {"winnable", "unwinnable"}


@pytest.mark.parametrize("row", [r for r in DEAL_ROWS if r["verdict"] != UNKNOWN],
                         ids=lambda r: f"{r['seed']}:{r['face_up']}")
def test_face_up_deal_agrees_with_solvitaire(row):
    deal = face_up_deal(int(row["seed"]), row["face_up"])
    assert_agrees(deal, row["verdict"], f"seed {row['seed']} face up {row['face_up']}")


@pytest.mark.parametrize("row", POSITION_ROWS, ids=lambda r: r["position"])
def test_dsolve_reads_and_writes_solvitaires_position_files(row):
    """The file Solvitaire was given is a dsolve deal file as it is, and dsolve writes the same
    position back as the same JSON (foundations as Solvitaire's flat list, no ``passes used`` in
    the first pass)."""
    path = DATA / "positions" / f"{row['position']}.solvitaire.json"
    deal = load_deal(path)
    assert deal.passes_used == 1
    def filled(text: str) -> dict:   # an empty waste or foundations may be written or left out
        return {key: value for key, value in json.loads(text).items() if value != []}

    assert filled(dump_deal(deal, "json")) == filled(path.read_text())


@pytest.mark.parametrize("row", [r for r in POSITION_ROWS if r["verdict"] != UNKNOWN],
                         ids=lambda r: r["position"])
def test_position_agrees_with_solvitaire(row):
    deal = load_deal(DATA / "positions" / f"{row['position']}.solvitaire.json")
    assert_agrees(deal, row["verdict"], row["position"])
