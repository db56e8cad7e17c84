"""Race surveys: a row per pair is what ``dsolve race`` reports of that pair, listed pairs (a
``dsolve pick --pairs`` file) are raced as listed, a survey killed mid-run resumes to the same
rows, the stats are those of the rows, and bad input or directories get one line."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from conftest import fails, ok
from test_survey import kill_and_resume

from dsolve.errors import InputError
from dsolve.players.hidden import HiddenOptions
from dsolve.pick import read_pairs, write_rows
from dsolve.races.race import RaceSetup, race_pair, setup_from_options
from dsolve.races.rows import SCHEMA, ended_by_the_rules, open_races, setting_text, setup_of, survey
from dsolve.races.stats import format_summary, summarize
from dsolve.races.table import RaceRules
from dsolve.survey import load, run_survey, store

CARELESS = RaceSetup(RaceRules("locked", 3), players=("careless", "careless"))


def reported(k: int, seeds: tuple[int, int], setup: RaceSetup, plays: int) -> dict:
    """Pair ``k``'s row as ``dsolve race`` reports the pair (``race_pair``), column by column."""
    rep = race_pair(seeds, setup, plays)
    a, b = rep.decks
    return {"seed": k, "setting": setting_text(setup, plays), "seed_a": seeds[0], "seed_b": seeds[1],
            "plays": plays, "wins_a": a.wins, "wins_b": b.wins, "draws": a.draws, "imbalance": rep.imbalance,
            "imbalance_low": rep.imbalance_ci[0], "imbalance_high": rep.imbalance_ci[1],
            "contributed_a": a.contributed, "contributed_b": b.contributed, "finishes_a": a.finishes,
            "finishes_b": b.finishes, "finish_moves_a": a.finish_moves, "finish_moves_b": b.finish_moves,
            "finished": rep.ends.get("finished", 0), "blocked": rep.ends.get("blocked", 0),
            "unresolved": rep.ends.get("unresolved", 0), "move_limit": rep.ends.get("move limit", 0)}


def without_effort(rows: list[dict]) -> list[dict]:
    """Rows without the moves made and put back, which the report gives only in sum (checked apart)."""
    return [{k: v for k, v in r.items() if k not in ("moves", "bounced")} for r in rows]


def test_a_row_per_pair_is_what_the_race_command_reports(tmp_path):
    out = tmp_path / "s"
    run = survey(out, range(1, 6), CARELESS, 4, jobs=2, chunk_size=2)
    assert (run.seeds, run.seeds_done_before, run.chunks_written) == (5, 0, 3)
    rows = load(out)[1].to_pylist()
    assert without_effort(rows) == [reported(k, (2 * k - 1, 2 * k), CARELESS, 4) for k in range(1, 6)]
    assert rows[0]["seed_a"] == 1 and rows[0]["seed_b"] == 2  # pair 1 is 'dsolve race 1 2'
    assert all(r["moves"] > 0 and r["bounced"] >= 0 for r in rows)
    found = open_races(out)
    assert found.rows.schema == SCHEMA and found.manifest.job == "race"
    assert found.manifest.settings == ("locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=4",)
    assert found.manifest.describe(5).startswith("solvitaire deals: 5 of 5 pairs (1-5) raced; dsolve ")
    # a rerun over more pairs races only the new ones, to the same rows
    again = survey(out, range(1, 9), CARELESS, 4, jobs=1)
    assert (again.seeds_done_before, again.chunks_written) == (5, 2)
    assert without_effort(load(out)[1].to_pylist()) == [reported(k, (2 * k - 1, 2 * k), CARELESS, 4)
                                                         for k in range(1, 9)]


def test_the_setting_and_params_give_back_the_setup():
    setup = setup_from_options("open", "turns", 1, 3, "hidden,careless", "0.5,2", sampling_seed=7)
    text = setting_text(setup, 12)
    assert text == "open,draw=1,passes=3,win=first mode=turns players=hidden,careless plays=12"
    counting = setup_from_options("MILDER", "race", 3, None, "careless", win="Count")
    assert setting_text(counting, 2) == "milder,draw=3,passes=unlimited,win=count mode=race players=careless,careless plays=2"
    assert setup_of(setting_text(counting, 2), {"think": "1.0,1.0"}) == (counting, 2)
    params = {"think": "0.5,2.0", "samples": HiddenOptions().samples, "sample_nodes": HiddenOptions().max_nodes,
              "sampling_seed": 7}
    assert setup_of(text, params) == (setup, 12)
    assert setup_of(text.replace(",win=first", ""), params) == (setup, 12)  # recorded before the win line
    for bad in ("open,draw=1 mode=turns players=hidden plays=12", text.replace(",win=first", ",win=most"),
                text.replace("plays=12", "plays=0"), text + " extra=1", text.replace("open", "shut")):
        with pytest.raises(InputError):
            setup_of(bad, params)


def test_listed_pairs_of_a_pick_file_are_raced_as_listed(tmp_path):
    picked = tmp_path / "picked.csv"
    rows = [{"seed": s, "convention": "solvitaire", "pair": n, "pair_gap": 0.0, "imbalance": 0.0}
            for n, pair in ((1, (17, 4)), (3, (9, 9)), (7, (30, 12))) for s in pair]
    write_rows(rows, picked, ("seed", "convention", "pair", "pair_gap", "imbalance"))
    assert read_pairs(picked) == ("solvitaire", [(17, 4), (9, 9), (30, 12)])
    out = tmp_path / "s"
    ok("race", "survey", "--pairs-file", str(picked), "--players", "careless", "--plays", "2", "--out", str(out),
       "--jobs", "1", "--sampling-seed", "3")
    setup = setup_from_options(players="careless", sampling_seed=3)
    assert without_effort(load(out)[1].to_pylist()) == [
        reported(k, seeds, setup, 2) for k, seeds in enumerate([(17, 4), (9, 9), (30, 12)], 1)]
    defaults = HiddenOptions()
    assert open_races(out).manifest.params == (("pairs", "17:4 9:9 30:12"), ("sample_nodes", defaults.max_nodes),
                                                ("samples", defaults.samples), ("sampling_seed", 3),
                                                ("think", "1.0,1.0"))
    same = load(out)[1].to_pylist()[1]
    assert same["wins_a"] == same["wins_b"] and same["imbalance"] == 0.0  # a seed against itself


def test_stats_are_those_of_the_rows(tmp_path):
    out = tmp_path / "s"
    ok("race", "survey", "--pairs", "1-6", "--players", "careless", "--variant", "open", "--draw", "1",
       "--plays", "4", "--out", str(out), "--jobs", "2")
    rows = load(out)[1].to_pylist()
    report = json.loads(ok("race", "stats", str(out), "--json"))
    assert report["survey"]["job"] == "race" and report["wall_time"]["runs"] == 1
    assert report["settings"] == json.loads(json.dumps(summarize(rows)))
    s = report["settings"][0]
    assert s["pairs"] == 6 and s["races"] == 24
    assert s["abs_imbalance"]["mean"] == pytest.approx(sum(abs(r["imbalance"]) for r in rows) / 6)
    assert s["draws"]["mean"] == pytest.approx(sum(r["draws"] for r in rows) / 24)
    uneven = sum(r["imbalance_low"] > 0 or r["imbalance_high"] < 0 for r in rows)
    assert s["uneven"]["count"] == uneven
    text = ok("race", "stats", str(out))
    assert text.startswith("solvitaire deals: 6 of 6 pairs (1-6) raced; dsolve ")
    assert "open,draw=1,passes=unlimited,win=first mode=race players=careless,careless plays=4: 6 pairs, 24 races" in text
    assert f"uneven pairs (imbalance interval excludes 0): {100 * uneven / 6:.1f} % " in text


def test_the_race_command_still_races_a_pair(tmp_path):
    direct = ok("race", "1", "2", "--plays", "2", "--players", "careless")
    assert direct == ok("race", "pair", "1", "2", "--plays", "2", "--players", "careless")
    assert "deck 1 (seed 1)" in direct
    assert "survey" in ok("race", "--help") and "--pairs-file" in ok("race", "survey", "--help")


def test_bad_input_and_bad_directories_are_one_line(tmp_path):
    out = tmp_path / "s"
    ok("race", "survey", "--pairs", "1-2", "--players", "careless", "--plays", "2", "--out", str(out), "--jobs", "1")
    t = str(tmp_path / "t")
    assert fails("race", "survey", "--out", t) == "dsolve: error: --pairs or --pairs-file is required"
    assert "pairs are numbered from 1, got 0" in fails("race", "survey", "--pairs", "0-3", "--out", t)
    assert "bad seed range '9-1'" in fails("race", "survey", "--pairs", "9-1", "--out", t)
    assert "plays must be positive, got 0" in fails("race", "survey", "--pairs", "1-2", "--plays", "0", "--out", t)
    assert "unknown player 'bob'" in fails("race", "survey", "--pairs", "1-2", "--players", "bob", "--out", t)
    assert "'closed' is not one of 'open', 'locked', 'milder'" in fails("race", "survey", "--pairs", "1-2",
                                                                       "--variant", "closed", "--out", t)
    assert "pair 2147483648 would race seeds (4294967295, 4294967296): bad seed 4294967296" in fails(
        "race", "survey", "--pairs", "1-2147483648", "--out", t)
    assert "not locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=3" in fails(
        "race", "survey", "--pairs", "1-2", "--players", "careless", "--plays", "3", "--out", str(out))
    assert "cannot read pairs from" in fails("race", "survey", "--pairs-file", str(tmp_path / "no.csv"), "--out", t)
    graded = tmp_path / "graded.csv"
    write_rows([{"seed": 1, "difficulty": "easy"}], graded, ("seed", "difficulty"))
    assert "lists no pairs (no seed and pair columns" in fails("race", "survey", "--pairs-file", str(graded),
                                                               "--out", t)
    odd = tmp_path / "odd.csv"
    write_rows([{"seed": 1, "pair": 1}, {"seed": 2, "pair": 1}, {"seed": 3, "pair": 2}], odd, ("seed", "pair"))
    assert f"{odd}: pair 2 has 1 seeds, not 2" in fails("race", "survey", "--pairs-file", str(odd), "--out", t)
    pairs = tmp_path / "pairs.csv"
    write_rows([{"seed": 1, "pair": 1}, {"seed": 5, "pair": 1}], pairs, ("seed", "pair"))
    assert "pair 2 is not listed (there are 1 pairs: 1-1)" in fails(
        "race", "survey", "--pairs-file", str(pairs), "--pairs", "1-2", "--out", t)
    assert not Path(t).exists()
    assert "not a survey directory" in fails("race", "stats", str(tmp_path))
    crapette = tmp_path / "c"
    ok("crapette", "survey", "--seeds", "1-2", "--players", "random", "--out", str(crapette), "--jobs", "1")
    assert fails("race", "stats", str(crapette)) == f"dsolve: error: {crapette} holds a crapette survey, not a race survey"
    with pytest.raises(InputError, match="a race survey takes no limits"):
        from dsolve.survey import Limits
        run_survey(tmp_path / "l", range(1, 3), [setting_text(CARELESS, 2)], limits=Limits(timeout=5), job="race")
    chunk = store.chunk_path(out, 1)
    chunk.write_bytes(chunk.read_bytes()[:-300])  # a cut chunk
    assert fails("race", "stats", str(out)).startswith(f"dsolve: error: damaged survey chunk {chunk}: ")


def test_a_row_whose_counts_do_not_add_up_is_a_damaged_chunk(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "s"
    survey(out, range(1, 3), CARELESS, 2, jobs=1)
    rows = pq.read_table(store.chunk_path(out, 1)).to_pylist()
    store.write_chunk(out, range(1, 3), pa.Table.from_pylist([{**r, "draws": r["draws"] + 1} for r in rows],
                                                             schema=SCHEMA), time.time(), 1)
    assert fails("race", "stats", str(out)) == \
        f"dsolve: error: damaged survey chunk {store.chunk_path(out, 1)}: a row's counts do not add up to its races"


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_survey_killed_with_sigkill_resumes_to_the_same_rows(tmp_path):
    out = tmp_path / "s"
    command = [sys.executable, "-m", "dsolve", "race", "survey", "--pairs", "1-24", "--players", "careless",
               "--plays", "2", "--out", str(out), "--jobs", "2", "--chunk-size", "1"]
    done, rerun = kill_and_resume(command, out)
    assert 3 <= done < 24
    assert f"({done} were done before, {24 - done} chunks raced now)" in rerun
    uninterrupted = tmp_path / "u"
    survey(uninterrupted, range(1, 25), CARELESS, 2, jobs=2)
    assert load(out)[1].to_pylist() == load(uninterrupted)[1].to_pylist()


def test_progress_counts_pairs_and_says_which_are_being_raced(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DSOLVE_PROGRESS_EVERY", "0.05")
    survey(tmp_path / "s", range(1, 4), CARELESS, 4, jobs=1, chunk_size=1, progress=True)
    err = capsys.readouterr().err
    assert "dsolve survey started: 0/3 pairs (0.0%)" in err and "dsolve survey finished: 3/3 pairs (100.0%)" in err
    assert re.search(r"; racing pair [123] \(\d+ s\)\n", err), err


def test_shares_over_pairs_keep_their_intervals_within_0_and_1():
    rows = [{"setting": "s", "plays": 10, "imbalance": 0.0, "imbalance_low": -0.5, "imbalance_high": 0.5,
             "draws": draws, "contributed_a": 10.0, "contributed_b": 12.0, "finished": 0, "blocked": 10 - rep,
             "unresolved": rep, "move_limit": 0, "moves": 3000} for draws, rep in ((0, 10), (1, 9), (0, 10))]
    s = summarize(rows)[0]
    assert s["ends"]["unresolved"]["mean"] == pytest.approx(29 / 30) and s["ends"]["unresolved"]["high"] == 1.0
    assert s["draws"]["low"] == 0.0 < s["draws"]["high"] and s["ends"]["blocked"]["low"] == 0.0
    assert s["contributed"] == {"n": 3, "mean": 11.0, "low": 11.0, "high": 11.0} and s["uneven"]["count"] == 0


def test_one_pair_gives_means_without_intervals():
    row = {"setting": "s", "plays": 10, "imbalance": 0.2, "imbalance_low": -0.5, "imbalance_high": 0.5, "draws": 1,
           "contributed_a": 10.0, "contributed_b": 12.0, "finished": 4, "blocked": 5, "unresolved": 0,
           "move_limit": 0, "moves": 3000}
    summary = summarize([row])
    s = summary[0]
    assert s["draws"] == {"n": 1, "mean": 0.1, "low": None, "high": None}
    assert s["imbalance"]["mean"] == 0.2 and s["imbalance"]["low"] is None and s["imbalance"]["p50"] == 0.2
    text = format_summary(summary)
    assert "draws: 10.0 % of races; cards contributed per deck: 11.0; moves per race 300" in text
    assert "mean 0.200; p5 +0.20" in text and "finished 40.0 %, blocked 50.0 %" in text


def test_a_survey_made_before_the_progress_check_reads_its_repetition_ends_as_unresolved():
    """The repository's surveys were written with a ``repetition`` end and settings without a win
    line: they still open, every row's ends in today's columns, the setting read as ``win=first``."""
    import pyarrow.parquet as pq

    out = Path(__file__).resolve().parents[1] / "data" / "surveys" / "race-open1-careless"
    chunks = sorted(out.glob("chunk-*.parquet"))
    assert "repetition" in pq.read_schema(chunks[0]).names
    repetitions = sum(sum(pq.read_table(path, columns=["repetition"])["repetition"].to_pylist()) for path in chunks)
    rows = open_races(out).rows
    assert "repetition" not in rows.column_names
    assert sum(rows["unresolved"].to_pylist()) == repetitions > 0
    setting = rows["setting"][0].as_py()
    assert "win=" not in setting and setup_of(setting, {})[0].rules.win == "first"
    assert "unresolved" in ok("race", "stats", str(out))
    assert not ended_by_the_rules(out)


def test_a_survey_made_today_ended_by_the_rules(tmp_path):
    """The surveys written with the progress check are told from those before it."""
    survey(tmp_path / "s", range(1, 3), RaceSetup(RaceRules("locked", 3), players=("careless", "careless")), 2,
           jobs=1)
    assert ended_by_the_rules(tmp_path / "s")
    assert ended_by_the_rules(Path(__file__).resolve().parents[1] / "data" / "surveys" / "races-locked3-careless")
