"""Grades of deals for race tables, dsolve grade and dsolve pick."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dsolve

from dsolve.klondike.deals import make_deal
from dsolve.pick import pair_up, select, store_of
from dsolve.players.grade import difficulty, first_trap, grade
from dsolve.players.hidden import HiddenOptions, play_hidden
from dsolve.klondike import api
from dsolve.rules import preset

RACE = preset("race")
QUICK = HiddenOptions(samples=4, max_nodes=1000)
SRC = str(Path(dsolve.__file__).parents[1])  # the dsolve being tested: installed, or the source tree


def dsolve(*args, cwd=None, **kwargs):
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "dsolve", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, **kwargs)


def test_unwinnable_deals_grade_zero_without_playing():
    deal = make_deal("solvitaire", 1)
    assert api.solve(deal, RACE).verdict == "unwinnable"
    g = grade(deal, RACE, 4, options=QUICK)
    assert (g.hidden_plays, g.careless_plays, g.hidden_win_rate, g.careless_win_rate) == (0, 0, 0.0, 0.0)
    assert (g.hidden_high, g.careless_high, g.traps, g.difficulty) == (0.0, 0.0, 0, "unwinnable")


def test_grades_are_reproducible_and_consistent():
    deal = make_deal("solvitaire", 2)
    a, b = (grade(deal, RACE, 3, seed=2, options=QUICK).to_dict() for _ in range(2))
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert a["verdict"] == "winnable" and a["moves"] > 0 and a["hidden_plays"] == a["careless_plays"] == 3
    assert a["hidden_win_rate"] == round(a["hidden_wins"] / 3, 4)
    assert a["hidden_low"] <= a["hidden_win_rate"] <= a["hidden_high"]
    assert a["traps"] + a["untrapped"] == 3 - a["hidden_wins"]
    assert a["difficulty"] == difficulty("winnable", a["hidden_win_rate"])
    other = grade(deal, RACE, 3, seed=2, sampling=1, options=QUICK).to_dict()
    assert other["verdict"] == a["verdict"] and other["moves"] == a["moves"]


def test_difficulty_bands():
    assert [difficulty("winnable", r) for r in (1.0, 0.75, 0.5, 0.4, 0.2, 0.0)] == [
        "easy", "easy", "medium", "medium", "hard", "lottery"]
    assert difficulty("unwinnable", 0.0) == "unwinnable" and difficulty("unknown", 0.0) == "unknown"


def test_a_trap_is_the_first_move_proven_lost():
    deal = make_deal("solvitaire", 2)
    lost = next(p for k in range(8) if not (p := play_hidden(deal, RACE, k, QUICK)).won)
    trap = first_trap(deal, RACE, lost)
    if trap is None:
        pytest.skip("this lost play's end was not proven lost")
    from dsolve.klondike.referee import Game
    game = Game(deal, RACE)
    for move in lost.moves[:trap - 1]:
        game.apply(move)
    assert api.solve(game.position(), RACE).verdict == "winnable"
    game.apply(lost.moves[trap - 1])
    assert api.solve(game.position(), RACE).verdict == "unwinnable"


def test_grade_cli_json_and_bad_input():
    done = dsolve("grade", "2", "--preset", "race", "--plays", "2", "--samples", "4", "--sample-nodes", "1000",
                  "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"seed", "rules", "verdict", "moves", "hidden_win_rate", "hidden_plays", "careless_win_rate",
            "traps", "difficulty"} <= set(data)
    assert data["seed"] == 2 and data["hidden_plays"] == 2
    text = dsolve("grade", "1", "--preset", "race")
    assert text.returncode == 0 and "unwinnable" in text.stdout
    for bad in (["grade", "x"], ["grade", "2", "--plays", "0"], ["grade", "2", "--preset", "nope"],
                ["grade", "-5"], ["grade", "2", "--timeout", "nan"]):
        failed = dsolve(*bad)
        assert failed.returncode == 2 and failed.stderr.startswith("dsolve: error:")
        assert len(failed.stderr.strip().splitlines()) == 1


def test_select_and_pairs():
    rows = [{"seed": s, "verdict": v, "difficulty": d, "hidden_win_rate": h, "careless_win_rate": 0.0,
             "length": 100} for s, v, d, h in [(1, "unwinnable", "unwinnable", 0.0), (2, "winnable", "easy", 1.0),
                                               (3, "winnable", "hard", 0.25), (4, "winnable", "easy", 0.75),
                                               (5, "unknown", "unknown", 0.0), (6, "winnable", "lottery", 0.0)]]
    assert [r["seed"] for r in select(rows)] == [2, 3, 4]
    assert [r["seed"] for r in select(rows, difficulty="easy")] == [2, 4]
    assert [r["seed"] for r in select(rows, count=1, min_hidden_win_rate=0.5)] == [2]
    paired, left = pair_up(select(rows))
    assert [(r["seed"], r["pair"], r["pair_gap"]) for r in paired] == [(3, 1, 0.5), (4, 1, 0.5)] and left == 2


PICK = ["pick", "--seeds", "1-16", "--preset", "race", "--plays", "1", "--samples", "2", "--sample-nodes", "1000",
        "--jobs", "1"]


def test_pick_resumes_after_kill_9_with_the_same_output(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    whole.mkdir(), killed.mkdir()
    done = dsolve(*PICK, "--out", "t.csv", cwd=whole)
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen([sys.executable, "-m", "dsolve", *PICK, "--out", "t.csv"], cwd=killed, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    store = store_of(killed / "t.csv")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (store.exists() and list(store.glob("chunk-*.parquet"))):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert list(store.glob("chunk-*.parquet")) and not (killed / "t.csv").exists()
    again = dsolve(*PICK, "--out", "t.csv", cwd=killed)
    assert again.returncode == 0, again.stderr
    assert (killed / "t.csv").read_text() == (whole / "t.csv").read_text()
    rows = list(csv.DictReader((whole / "t.csv").open()))
    assert rows and all(r["verdict"] == "winnable" for r in rows)
    assert "1" not in {r["seed"] for r in rows}  # seed 1 is lost under race
    for seed in {r["seed"] for r in rows}:
        assert api.solve(make_deal("solvitaire", int(seed)), RACE).verdict == "winnable"


def test_pick_bad_input(tmp_path):
    for bad in (["--out", "t.txt"], ["--out", "t.csv", "--difficulty", "lottery"],
                ["--out", "t.csv", "--min-hidden-win-rate", "2"], ["--out", "t.csv", "--preset", "race"]):
        failed = dsolve(*PICK, *bad, cwd=tmp_path)
        assert failed.returncode == 2 and failed.stderr.startswith("dsolve: error:"), failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args, samples, nodes", [
    ([], None, None), (["--fast"], 8, 2000), (["--fast", "--samples", "3"], 3, 2000),
    (["--sample-nodes", "500", "--fast"], 8, 500)])
def test_fast_sets_the_sample_options_left_unset(args, samples, nodes):
    from dsolve.cli import grade

    ctx = grade.make_context("grade", ["5", *args])
    assert (ctx.params["samples"], ctx.params["sample_nodes"]) == (samples, nodes)


def test_a_grading_survey_retries_its_unknown_deals(tmp_path):
    """Deals left unknown under a small budget are graded again under a larger one, as a survey
    made with the larger budget grades them; the other rows stay as they were."""
    from dsolve.players.grade import grading_options
    from dsolve.survey import Limits, open_survey, retry_unknown, run_survey

    params = grading_options(plays=2, samples=2, max_nodes=300)
    effort = ("nodes", "seconds", "limit")

    def rows(out):
        return [{k: v for k, v in r.items() if k not in effort} for r in open_survey(out).rows.to_pylist()]

    run_survey(tmp_path / "small", range(1, 9), [RACE], limits=Limits(max_nodes=200), jobs=1, job="grade", params=params)
    before = rows(tmp_path / "small")
    unknown = [r["seed"] for r in before if r["verdict"] == "unknown"]
    assert unknown and len(unknown) < len(before)
    retried = retry_unknown(tmp_path / "small", Limits(timeout=60), jobs=1)
    assert (retried.rows, retried.still_unknown) == (len(unknown), 0)
    run_survey(tmp_path / "large", range(1, 9), [RACE], limits=Limits(timeout=60), jobs=1, job="grade", params=params)
    after = rows(tmp_path / "small")
    assert after == rows(tmp_path / "large")
    assert [r for r in after if r["seed"] not in unknown] == [r for r in before if r["seed"] not in unknown]
