"""Surveys: chunk planning, Parquet chunks and manifest, resume, refusals, Dask, kills."""
from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import fails, fake_solve, ok

import dsolve
from dsolve import survey
from dsolve.klondike import api
from dsolve import limits as limits_module
from dsolve.cards import DOUBLE, STANDARD
from dsolve.klondike.deals import make_deal
from dsolve.errors import InputError
from dsolve.klondike.moves import TURN, Move
from dsolve.klondike.result import Result
from dsolve.rules import Rules, preset
from dsolve.klondike.rows import SCHEMA, solve_chunk
from dsolve.survey import Limits, executors, load, parse_seeds, retry_unknown, run, run_survey, store
from dsolve.survey.stats import WinRange
from dsolve.survey.store import plan

# Two rule sets neither of which relaxes the other (Rules.relaxes), so a survey solves both: the
# stand-in solver's verdicts do not bear out that relation, and a shared verdict would differ.
RULES = [preset("standard"), Rules(draw=1, passes=3)]


def expected_rows(seeds, rules=RULES, convention="solvitaire") -> list[tuple]:
    rows = []
    for seed in seeds:
        deal = make_deal(convention, seed)
        for r in rules:
            res = fake_solve(deal, r)
            rows.append((seed, str(r), res.verdict, len(res.moves) if res.verdict == "winnable" else None,
                         res.nodes, res.seconds, res.limit or None))
    return rows


def rows_of(out) -> list[tuple]:
    table = load(out)[1]
    return sorted(zip(*(table[name].to_pylist() for name in SCHEMA.names)), key=lambda r: r[:2])


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
    assert names == [".lock", "_manifest.json", "chunk-000000001.parquet", "chunk-000000005.parquet",
                     "chunk-000000010.parquet", "chunk-000000015.parquet", "chunk-000000020.parquet"]
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["settings"] == [str(r) for r in RULES] and manifest["job"] == "solve" and manifest["convention"] == "solvitaire"
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
    assert json.loads((out / "_manifest.json").read_text())["seeds"] == [[0, 44]]
    assert rows_of(out) == sorted(expected_rows(range(0, 45)), key=lambda r: r[:2])


def test_chunks_record_their_run_and_the_wall_time_adds_up_over_runs(fake, tmp_path):
    out = tmp_path / "s"
    bounds = []
    for seeds, jobs in ((range(0, 30), 2), (range(0, 50), 1)):
        begin = time.time()
        run_survey(out, seeds, RULES, jobs=jobs, chunk_size=10)
        bounds.append((begin, time.time()))
    chunks = survey.open_survey(out).chunks
    assert [c.seeds for c in chunks] == [range(i, i + 10) for i in range(0, 50, 10)]
    for c in chunks:
        begin, end = bounds[c.seeds.start >= 30]
        assert begin <= c.run_started <= c.written <= end
        assert c.workers == (2 if c.seeds.start < 30 else 1)
    assert len({c.run_started for c in chunks}) == 2
    wall = survey.RunTime.of(chunks)
    assert (wall.runs, wall.seeds, wall.untimed_seeds) == (2, 50, 0)
    assert 0 < wall.seconds <= sum(end - begin for begin, end in bounds)
    assert str(wall).startswith("wall time 0.00 h in 2 runs (each from its start to its last chunk), ")


def test_run_time_sums_each_run_and_counts_untimed_chunks():
    chunks = [survey.Chunk(range(0, 10), 100.0, 130.0, 2), survey.Chunk(range(10, 20), 100.0, 160.0, 2),
              survey.Chunk(range(20, 25), 500.0, 520.0, 1), survey.Chunk(range(25, 30))]
    wall = survey.RunTime.of(chunks)
    assert wall == survey.RunTime(runs=2, seconds=80.0, seeds=25, untimed_seeds=5)
    assert str(wall) == ("wall time 0.02 h in 2 runs (each from its start to its last chunk), "
                         "0.3125 seeds/s; not recorded for 5 seeds")
    assert str(survey.RunTime.of(chunks[3:])) == "wall time not recorded"
    # a retry (run 900-910) rewrote the first run's last chunk: that run still ends at 160
    retried = survey.Chunk(range(10, 20), 900.0, 910.0, 2, earlier=((100.0, 160.0),))
    assert survey.RunTime.of([chunks[0], retried, chunks[2]]) == survey.RunTime(3, 90.0, 25, 0)


def tally_text(seeds) -> str:
    """The counts a run shows for the rows of ``seeds`` (all of :data:`RULES`)."""
    counts = {str(r): [0, 0, 0] for r in RULES}
    for _, rules, verdict, *_ in expected_rows(seeds):
        counts[rules][0] += 1
        counts[rules][1] += verdict == "winnable"
        counts[rules][2] += verdict == "unknown"
    ranges = [WinRange(*c) for c in counts.values()]
    return f"unknown {sum(r.unknown for r in ranges)}, winnable " + " | ".join(map(str, ranges))


def test_progress_of_a_resumed_run_counts_the_chunks_done_before(fake, tmp_path, capsys):
    out = tmp_path / "s"
    run_survey(out, range(0, 40), RULES, jobs=1, chunk_size=10)
    (out / "chunk-000000020.parquet").unlink()
    capsys.readouterr()
    run_survey(out, range(10, 40), RULES, jobs=1, progress=True)  # seeds 10..19 and 30..39 done before
    lines = capsys.readouterr().err.splitlines()  # not a terminal: lines, not a bar
    assert lines[0].startswith("dsolve survey started: 20/30 seeds (66.7%), 0 seeds/s, elapsed 0:00:00, ETA -; ")
    assert lines[0].endswith("; " + tally_text([*range(10, 20), *range(30, 40)]))
    assert lines[-1].startswith("dsolve survey finished: 30/30 seeds (100.0%), ")
    assert lines[-1].endswith(", ETA 0:00:00; " + tally_text(range(10, 40)))


@pytest.mark.parametrize("change, reason", [
    ({"settings": [preset("standard")]}, "rule sets"),
    ({"convention": "greenfelt"}, "deal convention"),
    ({"limits": Limits(timeout=5)}, "limits"),
])
def test_refuses_to_mix_surveys(fake, tmp_path, change, reason):
    out = tmp_path / "s"
    run_survey(out, range(1, 5), RULES, jobs=1)
    assert json.loads((out / "_manifest.json").read_text())["chunk_size"] == run.DEFAULT_CHUNK_ROWS // 2
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    args = {"settings": RULES, "convention": "solvitaire", "limits": None} | change
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
    run_survey(tmp_path / "old", range(1, 3), RULES, jobs=1)
    manifest = tmp_path / "old" / "_manifest.json"
    manifest.write_text(manifest.read_text().replace('"format": 2', '"format": 3'))
    with pytest.raises(InputError, match="survey format 3; this dsolve reads formats 1, 2"):
        load(tmp_path / "old")


def test_failed_write_is_an_input_error_and_leaves_no_temporary_file(fake, tmp_path, monkeypatch):
    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.pq, "write_table", disk_full)
    out = tmp_path / "s"
    with pytest.raises(InputError, match="cannot write .*chunk-000000000.parquet: No space left on device"):
        run_survey(out, range(0, 10), RULES, jobs=1, chunk_size=5)
    assert sorted(p.name for p in out.iterdir()) == [".lock", "_manifest.json"]


def test_worker_error_stops_the_run_and_keeps_finished_chunks(monkeypatch, tmp_path):
    def failing(deal, rules, **limits):
        if deal == make_deal("solvitaire", 13):
            raise RuntimeError("solver bug")
        return fake_solve(deal, rules)

    monkeypatch.setattr(api, "solve", failing)
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


def test_real_solver_locally_and_on_dask(tmp_path):
    """The native solver under a node limit: the same rows as solving each seed directly, and the
    same dataset from local workers and from Dask."""
    distributed = pytest.importorskip("distributed")
    limits = Limits(max_nodes=20000)
    run_survey(tmp_path / "local", range(1, 7), RULES, limits=limits, jobs=2, chunk_size=3)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        run_survey(tmp_path / "dask", range(1, 7), RULES, limits=limits, scheduler=cluster.scheduler_address,
                   chunk_size=3)
    direct = []
    for seed in range(1, 7):
        for rules in RULES:
            res = api.solve(make_deal("solvitaire", seed), rules, max_nodes=limits.max_nodes)
            direct.append((seed, str(rules), res.verdict, len(res.moves) if res.verdict == "winnable" else None,
                           res.nodes))
    local = rows_of(tmp_path / "local")
    assert [row[:5] for row in local] == sorted(direct, key=lambda r: r[:2])
    assert [row[:5] for row in rows_of(tmp_path / "dask")] == [row[:5] for row in local]
    assert {row[2] for row in local} >= {"winnable", "unknown"}

    done = retry_unknown(tmp_path / "local", Limits(), jobs=2)  # no limit: every row decided
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        assert retry_unknown(tmp_path / "dask", Limits(), scheduler=cluster.scheduler_address) == \
            dataclasses.replace(done, out=tmp_path / "dask")
    unlimited = [(seed, str(rules), (res := api.solve(make_deal("solvitaire", seed), rules)).verdict,
                  len(res.moves) if res.verdict == "winnable" else None)
                 for seed in range(1, 7) for rules in RULES]
    assert done.rows == sum(row[2] == "unknown" for row in local) and done.still_unknown == 0
    assert [row[:4] for row in rows_of(tmp_path / "local")] == sorted(unlimited, key=lambda r: r[:2])
    assert [row[:5] for row in rows_of(tmp_path / "dask")] == [row[:5] for row in rows_of(tmp_path / "local")]


def limited_solve(deal, rules, *, max_nodes=None, timeout=None, memory_mb=None) -> Result:
    """:func:`fake_solve`, whose unknowns are decided (won in one move) when there is no node limit."""
    res = fake_solve(deal, rules)
    if res.verdict == "unknown" and max_nodes is None:
        return Result("winnable", (Move(TURN),), nodes=5, seconds=0.5, table_peak=1)
    return res


def test_retry_unknown_rewrites_only_the_unknown_rows(monkeypatch, tmp_path):
    monkeypatch.setattr(api, "solve", limited_solve)
    out, limits = tmp_path / "s", Limits(max_nodes=1000)
    run_survey(out, range(1, 40), RULES, limits=limits, jobs=2, chunk_size=3)
    before = rows_of(out)
    unknown = [row for row in before if row[2] == "unknown"]
    assert unknown and len(unknown) < len(before)
    first_chunks = survey.open_survey(out).chunks
    untouched = {c.seeds.start: c.written for c in first_chunks
                 if not any(c.seeds.start <= row[0] < c.seeds.stop for row in unknown)}
    assert untouched

    done = retry_unknown(out, Limits(timeout=60), jobs=2)
    assert (done.rows, done.still_unknown) == (len(unknown), 0)
    assert done.chunks_written == 14 - len(untouched)
    after = rows_of(out)
    assert after == [(*row[:2], "winnable", 1, row[4] + 5, row[5] + 0.5, None) if row[2] == "unknown" else row
                     for row in before]
    chunks = survey.open_survey(out).chunks
    assert {c.seeds.start: c.written for c in chunks if c.seeds.start in untouched} == untouched
    first_run = {c.seeds.start: (c.run_started, c.written) for c in first_chunks}
    assert all(c.earlier == (first_run[c.seeds.start],) for c in chunks if c.seeds.start not in untouched)
    assert survey.RunTime.of(chunks).runs == 2  # the retry's wall time counts
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["retries"] == [{"max_nodes": None, "timeout": 60, "memory_mb": None}]
    assert "; unknowns retried with max_nodes=none, timeout=60, memory_mb=none;" in ok("stats", str(out))

    assert retry_unknown(out, Limits(timeout=60)) == survey.RetryRun(out, 0, 0, 0)  # nothing left
    run_survey(out, range(1, 50), RULES, limits=limits, jobs=1)  # the survey still extends
    assert rows_of(out)[:len(after)] == after and len(rows_of(out)) == 2 * 49


def test_without_dask_a_scheduler_names_the_extra(fake, tmp_path, monkeypatch):
    """Without Dask installed, --scheduler is one line naming the extra to install, exit 2."""
    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed now fails
    with pytest.raises(InputError, match=r"pip install 'dsolve\[dask\]'"):
        run_survey(tmp_path / "s", range(1, 3), RULES, scheduler="tcp://127.0.0.1:9")
    message = fails("survey", "--seeds", "1-2", "--out", str(tmp_path / "t"), "--scheduler", "tcp://127.0.0.1:9")
    assert message == "dsolve: error: a Dask scheduler needs Dask: pip install 'dsolve[dask]'"


def test_unreachable_scheduler(fake, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(executors, "SCHEDULER_TIMEOUT", 0.5)
    out = tmp_path / "s"
    run_survey(out, range(1, 3), RULES, jobs=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        run_survey(out, range(1, 30), RULES, scheduler="tcp://127.0.0.1:9")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_cli_survey_stats_compare(fake, tmp_path):
    out = str(tmp_path / "s")
    args = ["--seeds", "1-40", "--preset", "standard", "--rules", "draw=1,passes=3", "--jobs", "2",
            "--chunk-size", "15"]
    assert "40 seeds surveyed in" in ok("survey", *args, "--out", out)
    assert "(40 were done before, 0 chunks solved now)" in ok("survey", *args, "--out", out)
    report = ok("stats", out)
    assert report.startswith("solvitaire deals: 40 of 40 seeds (1-40) solved; limits max_nodes=none")
    assert report.splitlines()[1].startswith("wall time 0.00 h in 1 run (each from its start to its last chunk)")
    assert "draw=1,passes=3,empty=king,worry=yes\n  seeds     40: " in report
    data = json.loads(ok("stats", out, "--json"))
    assert data["survey"]["settings"] == ["draw=3,passes=unlimited,empty=king,worry=yes",
                                       "draw=1,passes=3,empty=king,worry=yes"]
    assert [r["n"] for r in data["rule_sets"]] == [40, 40]
    assert data["wall_time"]["runs"] == 1 and data["wall_time"]["seeds"] == 40
    table = ok("compare", out).splitlines()
    assert table[2].startswith("rules ") and table[3].startswith("standard ") and len(table) == 5
    assert table[4].startswith("draw=1,passes=3,empty=king,worry=yes ")
    assert ok("compare", *args).splitlines() == table  # solved afresh in a temporary directory
    assert json.loads(ok("compare", out, "--json")) == data


def test_cli_compare_names_presets_and_counts_in_words(fake, tmp_path):
    """Compare names a rule set by the preset given for it (standard-1 and race share rules); a
    survey DIR's rule sets by the one preset with those rules, if only one has them."""
    out = str(tmp_path / "s")
    presets = ["--seeds", "1-4", "--preset", "race", "--preset", "standard", "--preset", "casino", "--jobs", "1"]
    assert "4 seeds surveyed in" in ok("survey", *presets, "--preset", "single-pass", "--out", out)

    def names(*args: str) -> list[str]:
        return [line.split()[0] for line in ok("compare", *args).splitlines()[3:]]

    assert names(*presets) == ["race", "standard", "casino"]
    # --passes 3 makes race other rules, standard casino's rules (one rule set), casino itself.
    assert names(*presets, "--passes", "3") == ["draw=1,passes=3,empty=king,worry=yes", "casino"]
    assert names(out) == ["draw=1,passes=unlimited,empty=king,worry=yes", "standard", "casino", "single-pass"]
    one = str(tmp_path / "one")
    first = ok("survey", "--seeds", "7-7", "--out", one, "--jobs", "1")
    assert f"1 seed surveyed in {one} (0 were done before, 1 chunk solved now)" in first
    assert "(1 was done before, 0 chunks solved now)" in ok("survey", "--seeds", "7-7", "--out", one)


def test_cli_errors_are_one_line(fake, tmp_path):
    out = str(tmp_path / "s")
    ok("survey", "--seeds", "1-5", "--out", out, "--jobs", "1")
    assert "bad seed range '5-1'" in fails("survey", "--seeds", "5-1", "--out", out)
    assert "not mixed" in fails("survey", "--seeds", "1-9", "--preset", "casino", "--out", out)
    assert "--retry-unknown takes the survey's seeds and rules: drop --seeds, --draw" in fails(
        "survey", "--out", out, "--retry-unknown", "--seeds", "1-9", "--draw", "1")
    unknown = sum(row[2] == "unknown" for row in rows_of(out))
    assert f"{unknown} unknown rows solved again in {out} ({unknown} still unknown" in ok(
        "survey", "--out", out, "--retry-unknown", "--timeout", "5")
    assert "not mixed" in fails("survey", "--seeds", "1-9", "--deal", "pysol", "--out", out)
    assert "--seeds is required" in fails("survey", "--out", out)
    assert "drop the options that solve one: --seeds, --preset, --out" in fails(
        "compare", out, "--seeds", "1-3", "--preset", "casino", "--out", out)
    assert "not a survey directory" in fails("stats", str(tmp_path))
    assert "cannot write to" in fails("survey", "--seeds", "1-5", "--out", str(tmp_path / "s" / "_manifest.json" / "x"))



def test_survey_deals_two_decks_in_the_conventions_that_deal_them(fake, monkeypatch, tmp_path):
    solved = []

    def recording_solve(deal, rules, **limits):
        solved.append((deal, rules.decks))
        return fake_solve(deal, rules)

    monkeypatch.setattr(api, "solve", recording_solve)
    rules = (str(preset("double-klondike")), str(preset("standard")))
    solve_chunk(survey.Task("solve", "pysol", 31999, 32001, rules, survey.DEFAULT_LIMITS))
    assert solved == [(make_deal("pysol", seed, shape), decks) for seed in (31999, 32000)
                      for shape, decks in ((DOUBLE, 2), (STANDARD, 1))]
    pysol = tmp_path / "pysol"
    assert "2 seeds surveyed" in ok("survey", "--seeds", "1-2", "--deal", "pysol", "--preset", "double-klondike",
                                    "--out", str(pysol), "--jobs", "1")
    out = tmp_path / "greenfelt"
    assert "the greenfelt convention deals only the standard 4x13/7 game, not 2x4x13/9" in fails(
        "survey", "--seeds", "1-2", "--deal", "greenfelt", "--decks", "2", "--out", str(out), "--jobs", "1")
    assert "bad seed 0 for pysol" in fails("survey", "--seeds", "0-2", "--deal", "pysol", "--decks", "2",
                                           "--out", str(out), "--jobs", "1")
    assert not out.exists()

DRIVER = """
import signal, sys
# As a terminal's Ctrl-C would: a driver started in the background (CI under nohup, '&') inherits
# SIGINT ignored, and Python then never raises KeyboardInterrupt.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {tests!r})
import conftest
conftest.install_fake_solver(delay={delay!r})
from dsolve.cli import main
main(prog_name="dsolve")
"""


def _survivors(marker: str) -> list[int]:
    """Processes whose command line mentions ``marker`` (Linux)."""
    pids = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            pass
    return pids


def kill_and_resume(command: list[str], out: Path, timeout: float = 120) -> tuple[int, str]:
    """Run the survey ``command`` (``python -m dsolve ...`` into ``out``), SIGKILL it once three
    chunks are written, check that its workers died with it, and run it again: the chunks there
    were when it was killed, and the rerun's standard output."""
    env = {**os.environ, "PYTHONPATH": str(Path(dsolve.__file__).parent.parent)}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    deadline = time.monotonic() + timeout
    while len(list(out.glob("chunk-*.parquet"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    done = len(list(out.glob("chunk-*.parquet")))
    deadline = time.monotonic() + 5
    while _survivors(str(out)) and time.monotonic() < deadline:  # workers die with the parent
        time.sleep(0.05)
    assert not _survivors(str(out))
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=2 * timeout, env=env)
    assert rerun.returncode == 0, rerun.stderr
    return done, rerun.stdout


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_killed_survey_resumes_with_no_duplicate_or_missing_seed(tmp_path, sig):
    seeds = 1000  # 100 chunks of about 0.1 s: seconds of work, so the signal lands mid-run even on a loaded machine
    driver = tmp_path / "dsolve_driver.py"
    driver.write_text(DRIVER.format(tests=str(Path(__file__).parent), delay=0.005))
    out = tmp_path / "s"
    command = [sys.executable, str(driver), "survey", "--seeds", f"0-{seeds - 1}", "--preset", "standard",
               "--rules", "draw=1,passes=3", "--out", str(out), "--jobs", "2", "--chunk-size", "10"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 30
    while len(list(out.glob("chunk-*.parquet"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, sig) if sig == signal.SIGINT else proc.send_signal(sig)  # Ctrl-C hits the group
    _, err = proc.communicate(timeout=30)
    done = len(list(out.glob("chunk-*.parquet")))
    assert 3 <= done < seeds // 10
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130
        assert err.strip().splitlines()[-1] == (
            f"dsolve: interrupted; the finished chunks are kept in {out}. "
            f"To resume, run: dsolve {' '.join(command[2:])}")
    deadline = time.monotonic() + 5
    while _survivors(str(driver)) and time.monotonic() < deadline:  # workers die with the parent
        time.sleep(0.05)
    assert not _survivors(str(driver))

    rerun = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr
    left = seeds // 10 - done
    assert f"({done * 10} were done before, {left} chunk{'' if left == 1 else 's'} solved now)" in rerun.stdout
    assert rows_of(out) == sorted(expected_rows(range(seeds)), key=lambda r: r[:2])


def test_surveys_have_a_default_timeout_that_the_options_override(fake, tmp_path):
    def limits_of(out):
        return json.loads((out / "_manifest.json").read_text())["limits"]

    new = tmp_path / "new"
    ok("survey", "--seeds", "1-5", "--out", str(new), "--jobs", "1")
    assert limits_of(new) == {"max_nodes": None, "timeout": 60.0, "memory_mb": None} == dataclasses.asdict(
        survey.DEFAULT_LIMITS)
    ok("survey", "--seeds", "1-9", "--out", str(new), "--jobs", "1")  # resumed: keeps its own limits
    assert "limits max_nodes=none, timeout=60.0, memory_mb=none, not max_nodes=none, timeout=5.0," in fails(
        "survey", "--seeds", "1-9", "--out", str(new), "--timeout", "5")
    for options, limits in ((["--timeout", "none"], {"max_nodes": None, "timeout": None, "memory_mb": None}),
                            (["--timeout", "NONE", "--max-nodes", "9"], {"max_nodes": 9, "timeout": None,
                                                                          "memory_mb": None}),
                            (["--memory", "100"], {"max_nodes": None, "timeout": 60.0, "memory_mb": 100}),
                            (["--timeout", "2.5"], {"max_nodes": None, "timeout": 2.5, "memory_mb": None})):
        out = tmp_path / "-".join(options)
        ok("survey", "--seeds", "1-3", "--out", str(out), "--jobs", "1", *options)
        assert limits_of(out) == limits
        ok("survey", "--seeds", "1-4", "--out", str(out), "--jobs", "1")
    for bad in ("nan", "inf", "-inf", "0", "-1", "soon", ""):
        assert "--timeout must be a positive finite number, got" in fails(
            "survey", "--seeds", "1-3", "--out", str(tmp_path / "bad"), "--timeout", bad)
    ok("survey", "--out", str(new), "--retry-unknown")
    ok("survey", "--out", str(new), "--retry-unknown", "--timeout", "none")
    assert json.loads((new / "_manifest.json").read_text())["retries"] == [
        {"max_nodes": None, "timeout": 60.0, "memory_mb": None}, {"max_nodes": None, "timeout": None, "memory_mb": None}]


def test_solve_chunk_passes_the_limits_on(monkeypatch):
    seen = []

    def spy(deal, rules, **limits):
        seen.append(limits)
        return fake_solve(deal, rules)

    monkeypatch.setattr(api, "solve", spy)
    monkeypatch.setattr(limits_module, "available_memory_mb", lambda: 10_000.0)
    task = survey.Task("solve", "solvitaire", 1, 2, (str(RULES[0]),), survey.DEFAULT_LIMITS)
    solve_chunk(task)
    # Without a memory limit: the default, shared among the local workers solving at once.
    monkeypatch.setattr(executors, "_WORKER_SLOT", (SimpleNamespace(seeds=[0, 0], mark=lambda *a: None), 0))
    solve_chunk(task)
    solve_chunk(dataclasses.replace(task, limits=Limits(memory_mb=100)))
    assert seen == [{"max_nodes": None, "timeout": 60.0, "memory_mb": 5000},
                    {"max_nodes": None, "timeout": 60.0, "memory_mb": 2500},
                    {"max_nodes": None, "timeout": None, "memory_mb": 100}]


def test_an_unknown_row_records_the_limit_that_ran_out(tmp_path):
    limits = Limits(max_nodes=20000)
    run_survey(tmp_path / "s", range(1, 7), RULES, limits=limits, jobs=2, chunk_size=3)
    rows = rows_of(tmp_path / "s")
    assert {row[2] for row in rows} >= {"winnable", "unknown"}
    for seed, rules, verdict, *_, limit in rows:
        res = api.solve(make_deal("solvitaire", seed), dsolve.Rules.parse(rules), max_nodes=limits.max_nodes)
        assert (verdict, limit) == (res.verdict, res.limit if res.verdict == "unknown" else None)
        assert limit is None or limit  # an unknown row says why
    report = ok("stats", str(tmp_path / "s"))
    for rules in RULES:
        reasons = Counter(row[6] for row in rows if row[1] == str(rules) and row[2] == "unknown")
        if reasons:
            text = ", ".join(f"{limit} limit {n}" for limit, n in sorted(reasons.items()))
            assert f"{sum(reasons.values())} unknown ({text})\n" in report.split(str(rules))[1]
