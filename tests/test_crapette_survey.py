"""Crapette surveys: the rows are the rounds played directly, a killed survey resumes to the same
rows, damaged or foreign directories are refused in one line, and the stats read from a survey
are those of the rounds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import fails, ok
from test_survey import kill_and_resume

import dsolve
from dsolve.crapette.rounds import play_rounds, seatings
from dsolve.crapette.rows import SCHEMA, open_rounds, options_of, survey, survey_params
from dsolve.crapette.rules import Options
from dsolve.crapette.stats import summarize
from dsolve.errors import InputError
from dsolve.rules import preset
from dsolve.survey import Limits, load, run_survey, store

SEATINGS = seatings(("greedy", "random"))


def direct_rows(seeds, pairings=SEATINGS, options=Options()) -> list[dict]:
    return [{"players": f"{r['player_a']},{r['player_b']}", **r} for r in play_rounds(seeds, pairings, options)]


def test_a_survey_holds_the_rounds_played_directly_in_both_seatings(tmp_path, capsys):
    out = tmp_path / "s"
    options = Options.parse("load_match=suit")
    run = survey(out, range(1, 251), "greedy,random", options, jobs=2, chunk_size=37)
    assert (run.seeds, run.seeds_done_before, run.chunks_written) == (250, 0, 7)
    assert load(out)[1].to_pylist() == direct_rows(range(1, 251), options=options)
    found, recorded = open_rounds(out)
    assert recorded == options and found.rows.schema == SCHEMA
    assert found.manifest.settings == ("greedy,random", "random,greedy")
    assert found.manifest.limits == Limits() and found.manifest.convention == "crapette"
    assert found.manifest.describe(found.rows.num_rows).startswith(
        "crapette deals: 250 of 250 seeds (1-250) played; dsolve ")
    # one player type: one seating; a rerun over more seeds plays only the new ones
    same = tmp_path / "g"
    survey(same, range(1, 21), "greedy", jobs=1, progress=True)
    rows = direct_rows(range(1, 21), [("greedy", "greedy")])
    first = sum(r["winner"] == r["first_player"] for r in rows)
    stalemates = sum(r["winner"] == -1 for r in rows)
    progress = capsys.readouterr().err
    assert "dsolve survey finished: 20/20 seeds (100.0%)" in progress
    assert f"; 20 rounds, first player wins {100 * first / 20:.1f} %, stalemates {stalemates}\n" in progress
    again = survey(same, range(1, 41), "greedy", jobs=1)
    assert (again.seeds_done_before, load(same)[1].num_rows) == (20, 40)
    assert load(same)[1].to_pylist() == direct_rows(range(1, 41), [("greedy", "greedy")])


def test_a_survey_on_dask_holds_the_same_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        run = survey(tmp_path / "dask", range(1, 41), "greedy,random", scheduler=cluster.scheduler_address,
                     chunk_size=10)
    assert run.chunks_written == 5
    assert load(tmp_path / "dask")[1].to_pylist() == direct_rows(range(1, 41))


def test_a_crapette_survey_takes_no_limits_and_no_other_convention(tmp_path):
    with pytest.raises(InputError, match="a crapette survey takes no limits"):
        run_survey(tmp_path / "a", range(1, 3), ["greedy,greedy"], limits=Limits(timeout=5), job="crapette")
    with pytest.raises(InputError, match="dealt by the 'crapette' convention, not 'solvitaire'"):
        run_survey(tmp_path / "b", range(1, 3), ["greedy,greedy"], "solvitaire", job="crapette")
    with pytest.raises(InputError, match="bad pairing 'greedy'"):
        run_survey(tmp_path / "c", range(1, 3), ["greedy"], job="crapette")


def test_stats_from_a_survey_are_the_stats_of_the_rounds(tmp_path):
    out = tmp_path / "s"
    ok("crapette", "survey", "--seeds", "1-120", "--players", "greedy,random", "--out", str(out), "--jobs", "2")
    report = json.loads(ok("crapette", "stats", str(out), "--json"))
    assert report["survey"]["job"] == "crapette" and report["survey"]["params"]["rules"] == str(Options())
    assert report["wall_time"]["runs"] == 1
    expected = json.loads(json.dumps(summarize(direct_rows(range(1, 121)))))
    assert {k: v for k, v in report.items() if k not in ("survey", "wall_time")} == expected
    assert report["rounds"] == 240 and report["pairings"][0]["seats_swapped"]
    text = ok("crapette", "stats", str(out))
    first = expected["first_player_wins"]
    assert text.startswith("crapette deals: 120 of 120 seeds (1-120) played; dsolve ")
    assert (f"first player wins: {100 * first['share']:.2f} % [{100 * first['low']:.2f}, "
            f"{100 * first['high']:.2f}] ({first['count']}/240)") in text
    assert "greedy vs random (seats swapped): greedy wins " in text and "rounds per match to 300: mean " in text
    assert f"\nrules: {Options()}\nrounds: 240\n" in text


def test_a_survey_recorded_before_the_waste_option_reads_as_waste_never_played():
    options = Options(load_match="suit", waste_playable=False)
    before = survey_params(options)["rules"].replace(",waste_playable=no", "")
    assert "waste" not in before and options_of({"rules": before}) == options
    assert options_of(survey_params(Options())) == Options()


def test_the_rules_options_reach_the_rounds_and_the_target_the_stats(tmp_path):
    out = tmp_path / "s"
    ok("crapette", "survey", "--seeds", "1-30", "--players", "greedy", "--rules", "target=100,load_match=suit",
       "--out", str(out), "--jobs", "1")
    options = Options.parse("target=100,load_match=suit")
    assert load(out)[1].to_pylist() == direct_rows(range(1, 31), [("greedy", "greedy")], options)
    assert json.loads(ok("crapette", "stats", str(out), "--json"))["rounds_per_match"]["target"] == 100
    assert "options" in fails("crapette", "survey", "--seeds", "1-30", "--players", "greedy", "--out", str(out))


def test_without_players_a_survey_is_greedy_against_greedy(tmp_path):
    out = tmp_path / "s"
    assert "[default: greedy]" in ok("crapette", "survey", "--help")
    ok("crapette", "survey", "--seeds", "1-6", "--out", str(out), "--jobs", "1")
    assert load(out)[0].settings == ("greedy,greedy",)
    assert load(out)[1].to_pylist() == direct_rows(range(1, 7), [("greedy", "greedy")])
    # the README's first example names the same survey: a rerun over more seeds resumes it
    assert "(6 were done before, " in ok("crapette", "survey", "--seeds", "1-8", "--players", "greedy",
                                          "--out", str(out), "--jobs", "1")


def test_bad_input_and_bad_directories_are_one_line(tmp_path, fake):
    out = tmp_path / "s"
    ok("crapette", "survey", "--seeds", "1-40", "--players", "random", "--out", str(out), "--jobs", "1",
       "--chunk-size", "10")
    assert "unknown player 'nobody'" in fails("crapette", "survey", "--seeds", "1-4", "--players", "greedy,nobody",
                                              "--out", str(tmp_path / "t"))
    assert "bad seed range '9-1'" in fails("crapette", "survey", "--seeds", "9-1", "--players", "greedy",
                                           "--out", str(tmp_path / "t"))
    assert "bad seed range '-3'" in fails("crapette", "survey", "--seeds", "-3", "--players", "greedy",
                                          "--out", str(tmp_path / "t"))
    assert "pairings random,random, not greedy,greedy" in fails(
        "crapette", "survey", "--seeds", "1-40", "--players", "greedy", "--out", str(out))
    assert "not a survey directory" in fails("crapette", "stats", str(tmp_path))
    klondike = tmp_path / "k"
    run_survey(klondike, range(1, 3), [preset("standard")], limits=Limits(max_nodes=1000), jobs=1)
    assert fails("crapette", "stats", str(klondike)) == \
        f"dsolve: error: {klondike} holds a solve survey, not a crapette survey"
    assert "job solve, not crapette" in fails("crapette", "survey", "--seeds", "1-2", "--players", "greedy",
                                              "--out", str(klondike))

    chunk = store.chunk_path(out, 20)
    chunk.write_bytes(chunk.read_bytes()[:-300])  # a cut chunk
    assert fails("crapette", "stats", str(out)).startswith(f"dsolve: error: damaged survey chunk {chunk}: ")
    rows = pq.read_table(store.chunk_path(out, 10)).to_pylist()
    table = pa.Table.from_pylist([{**r, "end": "won"} for r in rows], schema=SCHEMA)
    store.write_chunk(out, range(10, 20), table, time.time(), 1)  # a row the job never writes
    assert fails("crapette", "stats", str(out)) == \
        f"dsolve: error: damaged survey chunk {store.chunk_path(out, 10)}: a row holds an unknown end"
    done = subprocess.run([sys.executable, "-m", "dsolve", "crapette", "survey", "--seeds", "1-40", "--players",
                           "random", "--out", str(out), "--jobs", "1"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(dsolve.__file__).parent.parent)})
    assert done.returncode == 0, done.stderr
    assert "(20 were done before, 2 chunks played now)" in done.stdout
    assert done.stderr.count("dsolve: damaged chunk moved to") == 2
    assert sorted(p.name for p in (out / "_damaged").iterdir()) == ["chunk-000000010.parquet",
                                                                    "chunk-000000020.parquet"]
    assert load(out)[1].to_pylist() == direct_rows(range(1, 41), [("random", "random")])


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_survey_killed_with_sigkill_resumes_to_the_same_rows(tmp_path):
    out = tmp_path / "s"
    command = [sys.executable, "-m", "dsolve", "crapette", "survey", "--seeds", "0-199", "--players",
               "random,greedy", "--out", str(out), "--jobs", "2", "--chunk-size", "5"]
    done, rerun = kill_and_resume(command, out, timeout=60)
    assert 3 <= done < 40
    assert f"({done * 5} were done before, {40 - done} chunks played now)" in rerun
    uninterrupted = tmp_path / "u"
    survey(uninterrupted, range(0, 200), "random,greedy", jobs=2, chunk_size=5)
    assert load(out)[1].to_pylist() == load(uninterrupted)[1].to_pylist()
