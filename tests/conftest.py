"""Shared by the tests: the ``slow`` marker, the other solvers' reference data, the CLI runner
and a stand-in solver (the ``fake`` fixture).

Tests marked ``slow`` run only when asked for: ``pytest -m slow`` (or any ``-m`` expression that
selects them); a plain ``pytest`` deselects them.

The reference data (deal vectors and verdicts of other solvers) lives in ``tests/data/oracle``;
its README says what each file holds. A missing file is a failure, never a skip.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dsolve.klondike import api
from dsolve.cli import main
from dsolve.klondike.deals import make_deal
from dsolve.klondike.moves import TURN, Move
from dsolve.klondike.result import Result
from dsolve.rules import Rules

ORACLE = Path(__file__).resolve().parent / "data" / "oracle"


def oracle_files(pattern: str) -> list[Path]:
    """The reference files matching ``pattern``, sorted; finding none fails the collection."""
    paths = sorted(ORACLE.glob(pattern))
    assert paths, f"no reference files {pattern} in {ORACLE}"
    return paths


def oracle_rules(row: dict) -> Rules:
    """The rules of a row of the oracle verdicts: ``passes`` 0 is unlimited; the two-deck rows
    (``decks`` 2) are Solvitaire's, with 8 foundations."""
    two = row.get("decks", "1") == "2"
    return Rules(int(row["draw"]), int(row["passes"]) or None, row["empty"], row["worry"] == "1",
                 decks=2 if two else 1, foundations=8 if two else 4)


def pytest_collection_modifyitems(config, items):
    if config.option.markexpr:
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


# --- the command line ------------------------------------------------------------------------

def run(*args: str):
    """``dsolve ARGS`` in this process; the click result (stdout and stderr apart)."""
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, list(args), prog_name="dsolve")


def ok(*args: str) -> str:
    """The standard output of ``dsolve ARGS``, which must exit 0."""
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def fails(*args: str) -> str:
    """Exit code 2 and exactly one line on stderr, ``dsolve: error: ...``; returns that line."""
    result = run(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dsolve: error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# --- a stand-in solver -----------------------------------------------------------------------

DELAY = 0.0  # seconds each fake solve takes
SLOW: tuple = (None, 0.0)  # a deal that takes longer, and how many seconds


def fake_solve(deal, rules, *, max_nodes=None, timeout=None, memory_mb=None) -> Result:
    """A stand-in solver: a verdict and line length fixed by the deal's cards and the rules."""
    time.sleep(SLOW[1] if deal == SLOW[0] else DELAY)
    key = sum(i * c for i, c in enumerate(deal.cards)) + 31 * rules.draw + (rules.passes or 0)
    verdict = "winnable" if key % 10 < 7 else "unwinnable" if key % 10 < 9 else "unknown"
    moves = (Move(TURN),) * (key % 40 + 1) if verdict == "winnable" else ()
    limit = ("nodes", "time")[key % 2] if verdict == "unknown" else ""
    return Result(verdict, moves, nodes=key % 1000, seconds=(key % 7) / 1000, table_peak=1, limit=limit)


def install_fake_solver(delay: float = 0.0, slow_seed: int | None = None, slow_delay: float = 0.0) -> None:
    """Put :func:`fake_solve` in place of the native solver (for a process of its own); each solve
    takes ``delay`` seconds, those of ``slow_seed`` ``slow_delay``."""
    global DELAY, SLOW
    DELAY = delay
    SLOW = (None if slow_seed is None else make_deal("solvitaire", slow_seed), slow_delay)
    api.solve = fake_solve


@pytest.fixture
def fake(monkeypatch):
    """The stand-in solver in place of the native one."""
    monkeypatch.setattr(api, "solve", fake_solve)
