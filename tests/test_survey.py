"""Surveys: chunk planning, Parquet chunks and manifest, resume, refusals, Dask, kills."""
from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import dsolve
from dsolve import survey
from dsolve.deals import make_deal
from dsolve.errors import InputError
from dsolve.moves import TURN, Move
from dsolve.result import Result
from dsolve.rules import Rules, preset
from dsolve.survey import Limits, load, parse_seeds, plan, run_survey

RULES = [preset("standard"), preset("casino")]
DELAY = 0.0  # seconds each fake solve takes


def fake_solve(deal, rules, *, max_nodes=None, timeout=None, memory_mb=None) -> Result:
    """A stand-in solver: a verdict and line length fixed by the deal's cards and the rules."""
    time.sleep(DELAY)
    key = sum(i * c for i, c in enumerate(deal.cards)) + 31 * rules.draw + (rules.passes or 0)
    verdict = "winnable" if key % 10 < 7 else "unwinnable" if key % 10 < 9 else "unknown"
    moves = (Move(TURN),) * (key % 40 + 1) if verdict == "winnable" else ()
    return Result(verdict, moves, nodes=key % 1000, seconds=(key % 7) / 1000, table_peak=1)


def install_fake_solver(delay: float = 0.0) -> None:
    """Put :func:`fake_solve` in place of the native solver (for a process of its own)."""
    global DELAY
    DELAY = delay
    _api().solve = fake_solve


def _api() -> types.ModuleType:
    try:
        return importlib.import_module("dsolve.api")
    except ImportError:  # the native solver has not landed: a placeholder module to patch
        module = sys.modules["dsolve.api"] = types.ModuleType("dsolve.api")
        dsolve.api = module
        return module


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(_api(), "solve", fake_solve, raising=False)


def expected_rows(seeds, rules=RULES, convention="solvitaire") -> list[tuple]:
    rows = []
    for seed in seeds:
        deal = make_deal(convention, seed)
        for r in rules:
            res = fake_solve(deal, r)
            rows.append((seed, str(r), res.verdict, len(res.moves) if res.verdict == "winnable" else None,
                         res.nodes, res.seconds))
    return rows


def rows_of(out) -> list[tuple]:
    table = load(out)[1]
    return sorted(zip(*(table[name].to_pylist() for name in survey.SCHEMA.names)), key=lambda r: r[:2])


def test_parse_seeds():
    assert parse_seeds("1-1000000") == range(1, 1000001)
    assert parse_seeds(" 7 ") == range(7, 8)
    assert parse_seeds("0-0") == range(0, 1)
    for bad in ("", "1-", "-5", "a-b", "10-1", "1-2-3", "1.5"):
        with pytest.raises(InputError, match="bad seed range"):
            parse_seeds(bad)


def test_plan_cuts_at_multiples_and_skips_done():
    assert plan(range(1, 26), [], 10) == [range(1, 10), range(10, 20), range(20, 26)]
    done = [range(10, 20), range(1, 10)]
    assert plan(range(1, 36), done, 10) == [range(20, 30), range(30, 36)]
    assert plan(range(5, 15), [range(0, 10)], 10) == [range(10, 15)]
    assert plan(range(0, 30), [range(12, 17)], 10) == [range(0, 10), range(10, 12), range(17, 20),
                                                        range(20, 30)]
    assert plan(range(1, 5), [range(0, 100)], 10) == []


def test_survey_writes_chunks_and_manifest(fake, tmp_path):
    out = tmp_path / "s"
    run = run_survey(out, range(1, 24), RULES, jobs=2, chunk_size=5, limits=Limits(max_nodes=1000))
    assert (run.seeds, run.seeds_done_before, run.chunks_written) == (23, 0, 5)
    names = sorted(p.name for p in out.iterdir())
    assert names == [".lock", "chunk-000000001.parquet", "chunk-000000005.parquet", "chunk-000000010.parquet",
                     "chunk-000000015.parquet", "chunk-000000020.parquet", "manifest.json"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rules"] == [str(r) for r in RULES] and manifest["convention"] == "solvitaire"
    assert manifest["seeds"] == [[1, 23]] and manifest["chunk_size"] == 5
    assert manifest["limits"] == {"max_nodes": 1000, "timeout": None, "memory_mb": None}
    assert manifest["dsolve_version"] == dsolve.__version__
    assert rows_of(out) == sorted(expected_rows(range(1, 24)), key=lambda r: r[:2])


def test_rerun_skips_finished_chunks_and_extends(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 30), RULES, jobs=1, chunk_size=10)
    (out / "chunk-000000010.parquet").unlink()
    kept = (out / "chunk-000000020.parquet").stat().st_mtime_ns
    (out / ".chunk-000000000.parquet.tmp").write_bytes(b"half a chunk")  # a killed run's leftover
    run = run_survey(out, range(0, 30), RULES, jobs=1, chunk_size=3)
    assert (run.seeds_done_before, run.chunks_written) == (20, 1)
    assert (out / "chunk-000000020.parquet").stat().st_mtime_ns == kept
    assert not list(out.glob(".*.tmp"))
    run = run_survey(out, range(25, 45), RULES, jobs=2)  # extends; keeps chunk size 10
    assert (run.seeds_done_before, run.chunks_written) == (5, 2)
    assert json.loads((out / "manifest.json").read_text())["seeds"] == [[0, 44]]
    assert rows_of(out) == sorted(expected_rows(range(0, 45)), key=lambda r: r[:2])


@pytest.mark.parametrize("change, reason", [
    ({"rules": [preset("standard")]}, "rule sets"),
    ({"convention": "greenfelt"}, "deal convention"),
    ({"limits": Limits(timeout=5)}, "limits"),
])
def test_refuses_to_mix_surveys(fake, tmp_path, change, reason):
    out = tmp_path / "s"
    run_survey(out, range(1, 5), RULES, jobs=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    args = {"rules": RULES, "convention": "solvitaire", "limits": Limits()} | change
    with pytest.raises(InputError, match=f"{reason} .* not mixed"):
        run_survey(out, range(1, 9), jobs=1, **args)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_bad_directories_and_inputs(fake, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="cannot write"):
        run_survey(tmp_path / "file" / "s", range(1, 3), RULES)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a survey directory"):
        run_survey(tmp_path / "other", range(1, 3), RULES)
    with pytest.raises(InputError, match="convention"):
        run_survey(tmp_path / "new", range(1, 3), RULES, convention="nope")
    assert not (tmp_path / "new").exists()
    with pytest.raises(InputError, match="not a survey directory"):
        load(tmp_path / "other")


def test_worker_error_stops_the_run_and_keeps_finished_chunks(monkeypatch, tmp_path):
    def failing(deal, rules, **limits):
        if deal == make_deal("solvitaire", 13):
            raise RuntimeError("solver bug")
        return fake_solve(deal, rules)

    monkeypatch.setattr(_api(), "solve", failing, raising=False)
    out = tmp_path / "s"
    with pytest.raises(RuntimeError, match="solver bug"):
        run_survey(out, range(0, 20), RULES, jobs=1, chunk_size=5)
    assert (out / "chunk-000000000.parquet").exists() and not (out / "chunk-000000010.parquet").exists()
    assert not list(out.glob(".*.tmp"))


def test_dask_dataset_is_identical(fake, tmp_path):
    distributed = pytest.importorskip("distributed")
    run_survey(tmp_path / "local", range(1, 18), RULES, jobs=2, chunk_size=4)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        run = run_survey(tmp_path / "dask", range(1, 18), RULES, scheduler=cluster.scheduler_address,
                         chunk_size=4)
    assert run.chunks_written == 5
    assert sorted(p.name for p in (tmp_path / "dask").glob("chunk-*")) == \
        sorted(p.name for p in (tmp_path / "local").glob("chunk-*"))
    assert rows_of(tmp_path / "dask") == rows_of(tmp_path / "local")


def test_unreachable_scheduler(fake, tmp_path, monkeypatch):
    monkeypatch.setattr(survey, "SCHEDULER_TIMEOUT", 0.5)
    out = tmp_path / "s"
    run_survey(out, range(1, 3), RULES, jobs=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        run_survey(out, range(1, 30), RULES, scheduler="tcp://127.0.0.1:9")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
