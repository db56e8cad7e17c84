"""Wilson intervals, shares and means with intervals, Blake & Gent ranges, summaries and the report
formats."""
import json

import pyarrow as pa
import pytest

from dsolve.survey.stats import (WinRange, format_compare, format_stats, mean, mean_interval, mean_text, quantile,
                                 quantiles, share, share_text, summarize, wilson)


def test_wilson_matches_published_values():
    # Textbook values (Newcombe 1998, method 3): 81 of 263 -> 0.2553..0.3662; 15 of 148 -> 0.0624..0.1605.
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=5e-5)
    assert wilson(15, 148) == pytest.approx((0.0624, 0.1605), abs=5e-5)


def test_wilson_edges():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.27 < high < 0.31
    low, high = wilson(10, 10)
    assert high == pytest.approx(1.0) and 0.69 < low < 0.73


def test_a_share_has_its_wilson_interval():
    assert share(3, 10) == {"n": 10, "count": 3, "share": 0.3, "low": wilson(3, 10)[0], "high": wilson(3, 10)[1]}
    assert share(0, 0) == {"n": 0, "count": 0, "share": 0.0, "low": 0.0, "high": 1.0}


def test_a_mean_has_its_normal_interval():
    values = [1.0, 0.25, 0.5, 0.0]
    m = mean(values)
    assert (m["n"], m["mean"]) == (4, 0.4375) and (m["low"], m["high"]) == mean_interval(values)
    # mean 0.4375, sample standard deviation 0.42696: half-width 1.95996 * 0.42696 / 2 = 0.41841
    assert (m["low"], m["high"]) == pytest.approx((0.4375 - 0.41841, 0.4375 + 0.41841), abs=1e-5)
    assert mean([3.0, 3.0]) == {"n": 2, "mean": 3.0, "low": 3.0, "high": 3.0}


def test_a_mean_of_shares_keeps_its_interval_within_0_and_1():
    assert mean([0.0, 0.0, 0.1])["low"] < 0.0
    m = mean([0.0, 0.0, 0.1], shares=True)
    assert m["low"] == 0.0 and m["high"] == mean_interval([0.0, 0.0, 0.1])[1] and m["mean"] == pytest.approx(0.1 / 3)
    assert mean([1.0, 1.0, 0.9], shares=True)["high"] == 1.0


def test_a_mean_of_one_value_has_no_interval_and_of_none_no_mean():
    assert mean([0.7]) == mean([0.7], shares=True) == {"n": 1, "mean": 0.7, "low": None, "high": None}
    assert mean([]) == mean([], shares=True) == {"n": 0, "mean": None, "low": None, "high": None}


def test_a_mean_as_text():
    assert mean_text({"n": 3, "mean": 0.25, "low": 0.125, "high": 0.375}) == "0.250 [0.125, 0.375]"
    assert mean_text({"n": 3, "mean": 0.25, "low": 0.125, "high": 0.375}, 100, 1) == "25.0 [12.5, 37.5]"
    assert mean_text(mean([0.7]), 100, 1) == "70.0" and mean_text(mean([])) == "-"
    assert mean_text({"n": 3, "mean": 0.25, "low": 0.125, "high": 0.375}, 100, 1, " %") == "25.0 % [12.5, 37.5]"
    assert mean_text(mean([0.7]), 100, 1, " %") == "70.0 %" and mean_text(mean([]), unit=" %") == "-"


def test_quantiles_by_the_nearest_rank():
    values = [7, 1, 5, 3, 9, 2, 8, 4, 6, 10]
    assert [quantile(values, q) for q in (0.0, 0.05, 0.1, 0.15, 0.5, 0.9, 0.91, 1.0)] == [1, 1, 1, 2, 5, 9, 10, 10]
    assert quantile([4.5], 0.9) == 4.5 and quantile([], 0.5) is None
    qs = (0.0, 0.05, 0.1, 0.15, 0.5, 0.9, 0.91, 1.0)
    assert quantiles(values, qs) == [quantile(values, q) for q in qs] and quantiles([], (0.5, 0.9)) == [None, None]


def test_a_share_as_text():
    assert share_text(share(1168, 2000)) == "58.40 % [56.23, 60.54] (1168/2000)"
    assert share_text(share(0, 4), digits=1) == "0.0 % [0.0, 49.0] (0/4)"


def test_range_counts_unknowns_lost_then_won():
    r = WinRange(n=1000, won=800, unknown=50)
    assert (r.low, r.high) == (0.8, 0.85)
    assert r.lower == pytest.approx(wilson(800, 1000)[0])
    assert r.upper == pytest.approx(wilson(850, 1000)[1])
    assert r.lower < 0.8 and r.upper > 0.85
    assert str(r).startswith("80.00-85.00% [")
    assert r.explain().startswith("80.00% [77.41, 82.36] with unknowns lost, 85.00% [82.65, 87.08] with unknowns won")
    assert r.to_dict()["range95"] == [100 * r.lower, 100 * r.upper]
    assert str(WinRange(4, 2, 0)).startswith("50.00% [")


def _table():
    rows = [  # seed, rules, verdict, length, seconds
        (1, "A", "winnable", 100, 0.5), (2, "A", "winnable", 120, 0.1), (3, "A", "unwinnable", None, 2.0),
        (4, "A", "unknown", None, 9.0), (1, "B", "winnable", 90, 0.2), (2, "B", "unwinnable", None, 0.3),
    ]
    seed, rules, verdict, length, seconds = zip(*rows)
    return pa.table({
        "seed": pa.array(seed, pa.int64()), "rules": pa.array(rules).dictionary_encode(),
        "verdict": pa.array(verdict).dictionary_encode(), "length": pa.array(length, pa.int32()),
        "nodes": pa.array([10] * len(rows), pa.int64()), "seconds": pa.array(seconds, pa.float64()),
    })


def test_summarize_counts_spreads_and_slowest():
    a, b = summarize(_table(), ["A", "B"], slowest=2)
    assert (a.rules, a.n, a.winnable, a.unwinnable, a.unknown) == ("A", 4, 2, 1, 1)
    assert a.length.median == 110 and a.length.max == 120 and a.mean_length == 110
    assert a.seconds.max == 9.0 and a.total_seconds == pytest.approx(11.6)
    assert a.slowest == ((4, 9.0, "unknown"), (3, 2.0, "unwinnable"))
    assert (b.n, b.winnable, b.unwinnable, b.unknown, b.length.max) == (2, 1, 1, 0, 90)
    assert [s.rules for s in summarize(_table())] == ["A", "B"]


def test_summary_without_wins_has_no_length():
    (s,) = summarize(_table().filter(pa.compute.equal(_table()["verdict"], "unwinnable")), ["A"])
    assert s.length is None and s.mean_length is None and s.win.low == 0.0


def test_unknowns_are_counted_by_the_limit_that_ran_out():
    verdict = ["unknown", "unknown", "unknown", "unknown", "winnable", "unknown"]
    table = pa.table({
        "seed": pa.array(range(6), pa.int64()), "rules": pa.array(["A"] * 5 + ["B"]).dictionary_encode(),
        "verdict": pa.array(verdict).dictionary_encode(), "length": pa.array([None] * 4 + [80, None], pa.int32()),
        "nodes": pa.array([1] * 6, pa.int64()), "seconds": pa.array([1.0] * 6),
        "limit": pa.array(["seconds", "nodes", "seconds", None, None, "time"]),
    })
    a, b = summarize(table, ["A", "B"])
    assert a.unknown_by_limit == {"": 1, "nodes": 1, "seconds": 2} and b.unknown_by_limit == {"time": 1}
    text = format_stats([a, b])
    assert "5: 1 winnable, 0 unwinnable, 4 unknown (reason not recorded 1, nodes limit 1, seconds limit 2)\n" in text
    assert "1: 0 winnable, 0 unwinnable, 1 unknown (time limit 1)\n" in text
    assert json.loads(json.dumps(a.to_dict()))["unknown_by_limit"] == {"": 1, "nodes": 1, "seconds": 2}
    (old,) = summarize(_table(), ["A"])  # rows of before the limit column: reason not recorded
    assert old.unknown_by_limit == {"": 1} and "1 unknown (reason not recorded 1)" in format_stats([old])
    (decided,) = summarize(_table(), ["B"])
    assert decided.unknown_by_limit == {} and "0 unknown\n" in format_stats([decided])


def test_reports():
    summaries = summarize(_table(), ["A", "B"])
    text = format_stats(summaries)
    assert "4: 2 winnable, 1 unwinnable, 1 unknown" in text and "with unknowns won; 95% range 15.00-95.44%" in text
    data = json.loads(json.dumps([s.to_dict() for s in summaries]))
    assert data[0]["rules"] == "A" and data[0]["winnable_percent"]["unknowns_won"]["percent"] == 75.0
    assert data[0]["slowest"][0] == {"seed": 4, "seconds": 9.0, "verdict": "unknown"}
    table = format_compare(summaries).splitlines()
    assert len(table) == 3 and table[0].startswith("rules") and table[2].startswith("B ")
    assert "11.6" in table[1] and "110.0" in table[1]


def test_a_rule_set_without_rows_says_so():
    """An empty survey has no winnable share to report: no 0 % / 100 % range."""
    (s,) = summarize(_table().slice(0, 0), ["A"])
    assert s.n == 0
    assert format_stats([s]) == "A\n  no rows yet"
    assert "no rows yet" in format_compare([s]).splitlines()[1] and "%" not in format_compare([s]).splitlines()[1]
