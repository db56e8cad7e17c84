"""The race-table evidence drawn from a grading survey (dsolve.players.grade_stats)."""
import json

import pytest
from click.testing import CliRunner

from dsolve.cli import main
from dsolve.errors import InputError
from dsolve.klondike.result import UNKNOWN, UNWINNABLE, WINNABLE
from dsolve.players.grade import grading_options
from dsolve.players.grade_stats import class_moves, grade_lines, grades_of, spearman, summarize_grades
from dsolve.rules import preset
from dsolve.survey import run_survey
from dsolve.survey.stats import mean, mean_interval, wilson


def row(verdict, hidden=0.0, careless=0.0, plays=4, traps=0, length=None, nodes=10, difficulty="easy"):
    return {"verdict": verdict, "hidden_win_rate": hidden, "careless_win_rate": careless,
            "hidden_plays": plays if verdict == WINNABLE else 0,
            "careless_plays": plays if verdict == WINNABLE else 0, "traps": traps, "length": length,
            "nodes": nodes, "difficulty": difficulty}


def test_rates_over_deals_shares_and_gaps():
    rows = [row(WINNABLE, 1.0, 0.5, length=100, nodes=5), row(WINNABLE, 0.25, 0.0, traps=3, length=200, nodes=50),
            row(WINNABLE, 0.5, 0.75, traps=1, length=150, nodes=500, difficulty="medium"),
            row(UNWINNABLE, difficulty=UNWINNABLE), row(UNKNOWN, difficulty=UNKNOWN)]
    s = summarize_grades(rows)
    assert s["deals"] == 5 and s["verdicts"] == {WINNABLE: 3, UNWINNABLE: 1, UNKNOWN: 1}
    assert s["winnable"]["count"] == 3 and s["winnable"]["n"] == 4  # the unknown deal is left out
    # over all decided deals the unwinnable one counts 0; the unknown one not at all
    assert s["hidden"]["all_deals"]["mean"] == pytest.approx(1.75 / 4)
    assert (s["hidden"]["all_deals"]["low"], s["hidden"]["all_deals"]["high"]) == \
        pytest.approx(mean_interval([1.0, 0.25, 0.5, 0.0]))
    assert s["hidden"]["winnable"]["mean"] == pytest.approx(1.75 / 3)
    assert s["careless"]["winnable"]["mean"] == pytest.approx(1.25 / 3)
    assert s["hidden"]["under_half"]["count"] == 1 and s["careless"]["under_half"]["count"] == 1
    assert (s["hidden"]["under_half"]["low"], s["hidden"]["under_half"]["high"]) == pytest.approx(wilson(1, 3))
    assert s["hidden"]["histogram"] == {0.25: 1, 0.5: 1, 1.0: 1}
    assert s["skill_gap"]["mean"] == pytest.approx((0.5 + 0.25 - 0.25) / 3)
    assert s["traps"]["count"] == 4 and s["traps"]["n"] == 12  # of the hidden plays of winnable deals
    assert s["difficulty"]["easy"] == 2 and s["difficulty"]["medium"] == 1 and s["difficulty"][UNWINNABLE] == 1
    assert s["nodes"]["spearman"] == pytest.approx(-0.5)  # ranks 1,2,3 against 3,1,2
    assert s["length"]["spearman"] == pytest.approx(-1.0)
    quartiles = s["nodes"]["quartiles"]
    assert [q["n"] for q in quartiles] == [1, 1, 1]  # three deals: a group each, with no interval
    assert [q["nodes_from"] for q in quartiles] == [5, 50, 500] and quartiles[0]["mean"] == 1.0
    assert quartiles[0]["low"] is None and quartiles[0]["high"] is None


def test_grade_lines_print_the_summary_in_percent():
    rows = [row(WINNABLE, 1.0, 0.5), row(WINNABLE, 0.25, 0.0, traps=3), row(UNWINNABLE, difficulty=UNWINNABLE)]
    lines = grade_lines(summarize_grades(rows))
    over_all, over_won = mean([1.0, 0.25, 0.0], shares=True), mean([1.0, 0.25], shares=True)
    assert over_all["low"] == 0.0 and over_won["high"] == 1.0  # cut to 0..1
    assert lines[0] == (f"  hidden    wins 41.7 % [0.0, {100 * over_all['high']:.1f}] of all deals, 62.5 % "
                        f"[{100 * over_won['low']:.1f}, 100.0] "
                        "of winnable ones; winnable deals won in under half the plays: "
                        f"50.0 % [{100 * wilson(1, 2)[0]:.1f}, {100 * wilson(1, 2)[1]:.1f}] (1/2)")
    assert lines[1].startswith("  careless  wins 16.7 % [") and "(1/2)" in lines[1]
    assert lines[2].startswith("  skill gap 37.5 % [") and "traps 37.5 % [" in lines[2] and "(3/8)" in lines[2]
    assert lines[3] == "  classes   easy 2, medium 0, hard 0, lottery 0, unwinnable 1, unknown 0"
    # one deal: a mean without an interval; no winnable deal: no mean at all
    one = grade_lines(summarize_grades([row(WINNABLE, 0.5, 0.25)]))
    assert one[0].startswith("  hidden    wins 50.0 % of all deals, 50.0 % of winnable ones;")
    none = grade_lines(summarize_grades([row(UNWINNABLE, difficulty=UNWINNABLE)]))
    assert none[0].startswith("  hidden    wins 0.0 % of all deals, - of winnable ones;")


def test_stats_of_grades_shows_the_players(tmp_path):
    """``dsolve stats`` on the grades behind a pick: the survey's block and, per rule set, the
    players' lines (in the JSON, the summary under ``grades``); a solve survey has none."""
    rules = [preset("race"), preset("standard")]
    run_survey(tmp_path / "g", range(1, 4), rules, jobs=1, job="grade",
               params=grading_options(plays=1, samples=2, max_nodes=300))
    out = CliRunner().invoke(main, ["stats", str(tmp_path / "g")])
    assert out.exit_code == 0, out.output
    summaries = {r: summarize_grades(found) for r, found in grades_of(tmp_path / "g").items()}
    for rules_text, summary in summaries.items():
        block = out.output[out.output.index(rules_text + "\n"):]
        assert "\n".join(grade_lines(summary)) in block.split("\n\n")[0]
    data = json.loads(CliRunner().invoke(main, ["stats", str(tmp_path / "g"), "--json"]).output)
    assert [r["grades"]["difficulty"] for r in data["rule_sets"]] == [s["difficulty"] for s in summaries.values()]
    run_survey(tmp_path / "s", range(1, 3), rules[:1], jobs=1)
    plain = CliRunner().invoke(main, ["stats", str(tmp_path / "s")]).output
    assert "hidden" not in plain and "classes" not in plain
    assert "grades" not in json.loads(CliRunner().invoke(main, ["stats", str(tmp_path / "s"), "--json"]).output)["rule_sets"][0]


def test_rate_intervals_stay_within_0_and_1():
    """A mean of win rates over few deals has a normal interval reaching past 0..1: cut there (a
    skill gap, a difference of rates, is not)."""
    s = summarize_grades([row(WINNABLE, 1.0, 0.0), row(WINNABLE, 0.0, 1.0)])
    assert (s["hidden"]["winnable"]["low"], s["hidden"]["winnable"]["high"]) == (0.0, 1.0)
    assert (s["hidden"]["all_deals"]["low"], s["hidden"]["all_deals"]["high"]) == (0.0, 1.0)
    assert (s["nodes"]["quartiles"][0]["low"], s["nodes"]["quartiles"][0]["high"]) == (None, None)  # one deal
    assert s["skill_gap"]["low"] < -1 and s["skill_gap"]["high"] > 1


def test_no_decided_deal_gives_no_means_and_shares_of_nothing():
    s = summarize_grades([row(UNKNOWN, difficulty=UNKNOWN)])
    assert s["deals"] == 1 and s["winnable"] == {"n": 0, "count": 0, "share": 0.0, "low": 0.0, "high": 1.0}
    assert s["hidden"]["all_deals"] == s["skill_gap"] == {"n": 0, "mean": None, "low": None, "high": None}
    assert s["traps"]["n"] == 0 and s["nodes"] == {"spearman": None, "quartiles": []}


def test_spearman_ties_and_degenerate_inputs():
    assert spearman([1, 2, 2, 3], [4, 3, 3, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2], [2, 1]) is None
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_a_grading_survey_read_by_rule_set(tmp_path):
    rules = [preset("race"), preset("standard")]
    run_survey(tmp_path / "g", range(1, 4), rules, jobs=1, job="grade",
               params=grading_options(plays=1, samples=2, max_nodes=300))
    grades = grades_of(tmp_path / "g")
    assert list(grades) == [str(r) for r in rules]
    for found in grades.values():
        assert [r["seed"] for r in found] == [1, 2, 3]
        s = summarize_grades(found)
        assert s["deals"] == 3 and sum(s["verdicts"].values()) == 3
        assert s["hidden"]["plays"] == s["careless"]["plays"] == s["verdicts"][WINNABLE]  # a play per winnable deal
    run_survey(tmp_path / "s", range(1, 3), rules[:1], jobs=1)
    with pytest.raises(InputError, match="solve survey, not grades"):
        grades_of(tmp_path / "s")


def test_class_moves_match_deals_by_seed():
    """Two gradings of the same deals: each deal graded in both moves from its class to its class,
    deals graded once are left out, and the shares before and after are over the common deals."""
    before = [dict(row(WINNABLE), seed=1, difficulty="lottery"), dict(row(WINNABLE), seed=2, difficulty="hard"),
              dict(row(WINNABLE), seed=3, difficulty="easy"), dict(row(UNWINNABLE), seed=4, difficulty=UNWINNABLE),
              dict(row(WINNABLE), seed=5, difficulty="lottery")]
    after = [dict(row(WINNABLE), seed=3, difficulty="easy"), dict(row(WINNABLE), seed=1, difficulty="medium"),
             dict(row(WINNABLE), seed=2, difficulty="medium"), dict(row(UNWINNABLE), seed=4, difficulty=UNWINNABLE),
             dict(row(WINNABLE), seed=9, difficulty="easy")]
    m = class_moves(before, after)
    assert m["deals"] == 4
    assert m["moves"]["lottery"]["medium"] == 1 and m["moves"]["hard"]["medium"] == 1
    assert m["moves"]["easy"]["easy"] == 1 and m["moves"][UNWINNABLE][UNWINNABLE] == 1
    assert sum(sum(to.values()) for to in m["moves"].values()) == 4
    assert (m["before"]["lottery"]["count"], m["after"]["lottery"]["count"]) == (1, 0)
    assert (m["before"]["medium"]["count"], m["after"]["medium"]["count"]) == (0, 2)
    assert m["after"]["medium"]["share"] == 0.5 and m["after"]["medium"]["n"] == 4
