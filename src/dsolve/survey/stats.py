"""Survey statistics: shares with Wilson intervals and means with normal intervals (the one shape
every stats summary uses), per-rule-set summaries of Klondike surveys, stats reports and compare
tables.

Winnability follows Blake & Gent: a deal the solver could not decide (``unknown``) is counted once
as lost and once as won; the 95 % range runs from the lower Wilson bound with unknowns lost to the
upper Wilson bound with unknowns won.
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..klondike.result import UNKNOWN, UNWINNABLE, WINNABLE
from ..rules import preset_labels

Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``successes`` out of ``n``, as fractions; ``(0, 1)`` when ``n == 0``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def share(count: int, n: int) -> dict:
    """``count`` of ``n`` as a share with its 95 % Wilson interval (keys n, count, share, low, high);
    with ``n == 0`` the share is 0 and the interval 0..1."""
    low, high = wilson(count, n)
    return {"n": n, "count": count, "share": count / n if n else 0.0, "low": low, "high": high}


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float] | None:
    """Normal-approximation 95 % interval of the mean of ``values``; None with fewer than two."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    half = z * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return mean - half, mean + half


def mean(values: Sequence[float], shares: bool = False) -> dict:
    """The mean of ``values`` with its 95 % interval (:func:`mean_interval`), keys n (how many
    values), mean, low, high; for ``shares`` (values in 0..1) the interval cut to 0..1. One value
    has no interval: low and high are None; no values have no mean either: mean is None too."""
    n = len(values)
    interval = mean_interval(values)
    low, high = interval if interval else (None, None)
    if shares and interval:
        low, high = max(low, 0.0), min(high, 1.0)
    return {"n": n, "mean": sum(values) / n if n else None, "low": low, "high": high}


def quantiles(values: Sequence[float], qs: Sequence[float]) -> list[float | None]:
    """The quantiles ``qs`` (each 0..1) of ``values`` by the nearest rank (the smallest value with
    at least a share ``q`` of the values at or below it), sorting once; None each without values."""
    ordered = sorted(values)
    return [ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else None for q in qs]


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` (:func:`quantiles`)."""
    return quantiles(values, (q,))[0]


def mean_text(m: dict, scale: float = 1.0, digits: int = 3, unit: str = "") -> str:
    """A :func:`mean` as ``0.412 [0.398, 0.426]`` (times ``scale``, ``digits`` after the point,
    ``unit`` after the mean: ``41.2 % [39.8, 42.6]``): the mean alone when it has no interval,
    ``-`` when it has no values."""
    if m["mean"] is None:
        return "-"
    text = f"{scale * m['mean']:.{digits}f}{unit}"
    if m["low"] is None:
        return text
    return f"{text} [{scale * m['low']:.{digits}f}, {scale * m['high']:.{digits}f}]"


def share_text(s: dict, digits: int = 2) -> str:
    """A :func:`share` as a percentage with its interval and counts: ``58.40 % [56.23, 60.54]
    (1168/2000)`` (``digits`` after the point)."""
    return (f"{100 * s['share']:.{digits}f} % [{100 * s['low']:.{digits}f}, {100 * s['high']:.{digits}f}] "
            f"({s['count']}/{s['n']})")


def paired_difference_interval(first: int, second: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % interval of ``(first - second) / n`` where, in each of ``n`` trials, at most one of two
    events happens (``first`` trials had the first, ``second`` the second): Newcombe's score
    interval for a difference of paired proportions (1998, method 10) with no trial having both.
    ``(-1, 1)`` when ``n == 0``."""
    if n == 0:
        return -1.0, 1.0
    p1, p2 = first / n, second / n
    (l1, u1), (l2, u2) = wilson(first, n, z), wilson(second, n, z)
    # the correlation of the two events' 2x2 table (both: 0, first only, second only, neither)
    denominator = math.sqrt(first * (n - first) * second * (n - second))
    phi = -first * second / denominator if denominator else 0.0
    below = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    above = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return max(-1.0, p1 - p2 - below), min(1.0, p1 - p2 + above)


@dataclass(frozen=True)
class WinRange:
    """Winnable share of ``n`` deals, ``won`` of them won and ``unknown`` undecided (fractions)."""

    n: int
    won: int
    unknown: int

    @property
    def low(self) -> float:
        """Share won with unknowns counted as lost."""
        return self.won / self.n if self.n else 0.0

    @property
    def high(self) -> float:
        """Share won with unknowns counted as won."""
        return (self.won + self.unknown) / self.n if self.n else 1.0

    @property
    def interval_lost(self) -> tuple[float, float]:
        """95 % Wilson interval with unknowns counted as lost."""
        return wilson(self.won, self.n)

    @property
    def interval_won(self) -> tuple[float, float]:
        """95 % Wilson interval with unknowns counted as won."""
        return wilson(self.won + self.unknown, self.n)

    @property
    def lower(self) -> float:
        """Low end of the range: lower bound with unknowns lost."""
        return self.interval_lost[0]

    @property
    def upper(self) -> float:
        """High end of the range: upper bound with unknowns won."""
        return self.interval_won[1]

    def __str__(self) -> str:
        if not self.n:
            return "- (no deals yet)"
        point = f"{100 * self.low:.2f}%"
        if self.unknown:
            point = f"{100 * self.low:.2f}-{100 * self.high:.2f}%"
        return f"{point} [{100 * self.lower:.2f}, {100 * self.upper:.2f}]"

    def explain(self) -> str:
        """Both intervals and the range they span, in words."""
        (a, b), (c, d) = self.interval_lost, self.interval_won
        return (f"{100 * self.low:.2f}% [{100 * a:.2f}, {100 * b:.2f}] with unknowns lost, "
                f"{100 * self.high:.2f}% [{100 * c:.2f}, {100 * d:.2f}] with unknowns won; "
                f"95% range {100 * self.lower:.2f}-{100 * self.upper:.2f}%")

    def to_dict(self) -> dict[str, object]:
        return {"unknowns_lost": {"percent": 100 * self.low, "interval95": [100 * x for x in self.interval_lost]},
                "unknowns_won": {"percent": 100 * self.high, "interval95": [100 * x for x in self.interval_won]},
                "range95": [100 * self.lower, 100 * self.upper]}


@dataclass(frozen=True)
class Spread:
    """Median, 90th and 99th percentiles and maximum of some values."""

    median: float
    p90: float
    p99: float
    max: float

    @classmethod
    def of(cls, values: np.ndarray) -> "Spread | None":
        if len(values) == 0:
            return None
        median, p90, p99 = np.percentile(values, [50, 90, 99])
        return cls(float(median), float(p90), float(p99), float(np.max(values)))


@dataclass(frozen=True)
class Summary:
    """What a survey found for one rule set."""

    rules: str
    n: int
    winnable: int
    unwinnable: int
    unknown: int
    unknown_by_limit: dict[str, int]  # unknowns by the budget that ran out ("": not recorded)
    length: Spread | None  # solution lengths of the winnable deals
    seconds: Spread | None  # solve times of the deals solved (not implied)
    total_seconds: float
    mean_length: float | None
    slowest: tuple[tuple[int, float, str], ...]  # (seed, seconds, verdict), slowest first
    implied: int = 0  # verdicts taken from another rule set of the seed (see dsolve.klondike.rows)

    @property
    def win(self) -> WinRange:
        return WinRange(self.n, self.winnable, self.unknown)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["winnable_percent"] = self.win.to_dict()
        data["slowest"] = [{"seed": s, "seconds": t, "verdict": v} for s, t, v in self.slowest]
        return data


def summarize(table: pa.Table, rules: Sequence[str] | None = None, slowest: int = 5) -> list[Summary]:
    """One :class:`Summary` per rule set of a survey table (columns seed, rules, verdict, length,
    seconds and, if recorded, limit), in the order of ``rules`` (default: order of first appearance)."""
    names = list(rules) if rules is not None else list(dict.fromkeys(pc.unique(table["rules"]).to_pylist()))
    return [_summary(table.filter(pc.equal(table["rules"], name)), name, slowest) for name in names]


def _summary(rows: pa.Table, rules: str, slowest: int) -> Summary:
    verdicts = rows["verdict"]
    counts = {v: pc.sum(pc.equal(verdicts, v)).as_py() or 0 for v in (WINNABLE, UNWINNABLE, UNKNOWN)}
    seconds = rows["seconds"].to_numpy()
    implied = (pc.is_valid(rows["implied_by"]).to_numpy(zero_copy_only=False)
               if "implied_by" in rows.column_names else np.zeros(rows.num_rows, dtype=bool))
    lengths = pc.drop_null(rows.filter(pc.equal(verdicts, WINNABLE))["length"]).to_numpy()
    unknown_rows = rows.filter(pc.equal(verdicts, UNKNOWN))
    limits = unknown_rows["limit"].to_pylist() if "limit" in rows.column_names else [None] * unknown_rows.num_rows
    by_limit = Counter(limit or "" for limit in limits)
    top = np.argsort(-seconds, kind="stable")[:slowest]
    seeds, verdict_list = rows["seed"].to_numpy(), verdicts.to_pylist()
    return Summary(
        rules=rules, n=rows.num_rows, winnable=counts[WINNABLE], unwinnable=counts[UNWINNABLE],
        unknown=counts[UNKNOWN], unknown_by_limit=dict(sorted(by_limit.items())), length=Spread.of(lengths), seconds=Spread.of(seconds[~implied]),
        total_seconds=float(seconds.sum()), mean_length=float(lengths.mean()) if len(lengths) else None,
        slowest=tuple((int(seeds[i]), float(seconds[i]), verdict_list[i]) for i in top),
        implied=int(implied.sum()),
    )


def _spread_text(spread: Spread | None, fmt: str, unit: str) -> str:
    if spread is None:
        return "-"
    return ", ".join(f"{name} {value:{fmt}}" for name, value in
                     (("median", spread.median), ("p90", spread.p90), ("p99", spread.p99),
                      ("max", spread.max))) + unit


def _reasons_text(by_limit: dict[str, int]) -> str:
    """`` (seconds limit 3, reason not recorded 1)``: the unknowns by the budget that ran out."""
    if not by_limit:
        return ""
    return " (" + ", ".join(f"{limit} limit {n}" if limit else f"reason not recorded {n}"
                            for limit, n in by_limit.items()) + ")"


def format_stats(summaries: Sequence[Summary], more: dict[str, list[str]] | None = None) -> str:
    """The ``dsolve stats`` report: a block per rule set, ending with its lines in ``more``
    (by rule set) if any."""
    blocks = []
    for s in summaries:
        if not s.n:
            blocks.append(f"{s.rules}\n  no rows yet")
            continue
        slow = ", ".join(f"{seed} ({t:.3g} s, {v})" for seed, t, v in s.slowest) or "-"
        blocks.append("\n".join([
            s.rules,
            f"  seeds     {s.n}: {s.winnable} winnable, {s.unwinnable} unwinnable, {s.unknown} unknown"
            + _reasons_text(s.unknown_by_limit)
            + (f"; {s.implied} implied by another rule set's verdict" if s.implied else ""),
            f"  winnable  {s.win.explain()}",
            f"  length    {_spread_text(s.length, '.0f', ' moves')}",
            f"  time      {_spread_text(s.seconds, '.3g', ' s')}; total {s.total_seconds:.1f} s",
            f"  slowest   seeds {slow}",
            *(more or {}).get(s.rules, []),
        ]))
    return "\n\n".join(blocks)


COMPARE_HEADER = ("rules", "n", "winnable % [95% range]", "unknown", "implied", "median s", "p99 s", "total s",
                  "mean length")


def compare_rows(summaries: Sequence[Summary]) -> list[tuple[str, ...]]:
    """The cells of the compare table, one row per rule set."""
    rows = []
    for s in summaries:
        t = s.seconds
        rows.append((
            s.rules, str(s.n), str(s.win) if s.n else "no rows yet", str(s.unknown), str(s.implied),
            f"{t.median:.3g}" if t else "-", f"{t.p99:.3g}" if t else "-", f"{s.total_seconds:.1f}",
            f"{s.mean_length:.1f}" if s.mean_length is not None else "-",
        ))
    return rows


def format_compare(summaries: Sequence[Summary]) -> str:
    """The ``dsolve compare`` table: rule sets side by side, winnability and cost."""
    rows = [COMPARE_HEADER, *compare_rows(summaries)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COMPARE_HEADER))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths)))
             for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def survey_report(directory: str | os.PathLike, as_json: bool = False, compare: bool = False, slowest: int = 5,
                  labels: dict[str, str] | None = None) -> str:
    """The stats report of the Klondike survey in ``directory`` (solves or grades), or with
    ``compare`` its compare table (rule sets named by ``labels``, default
    :func:`dsolve.rules.preset_labels`); with ``as_json``, one JSON object."""
    from .store import RunTime, open_survey

    survey = open_survey(directory)
    manifest, table = survey.manifest, survey.rows
    if "verdict" not in manifest.kind.schema.names:
        raise InputError(f"{directory} holds a {manifest.job} survey, not one of Klondike solves")
    summaries = summarize(table, manifest.settings, slowest)
    wall = RunTime.of(survey.chunks)
    if compare and not as_json:
        labels = preset_labels() if labels is None else labels
        summaries = [replace(s, rules=labels.get(s.rules, s.rules)) for s in summaries]
    grades = {}  # rule set -> summarize_grades, for the grades behind dsolve pick
    if not compare:
        from ..players.grade_stats import grade_lines, grade_summaries  # (they import this module)
        grades = grade_summaries(manifest, table)
    if as_json:
        return json.dumps({"survey": asdict(manifest), "wall_time": asdict(wall),
                           "rule_sets": [{**s.to_dict(), **({"grades": grades[s.rules]} if s.rules in grades else {})}
                                         for s in summaries]}, indent=2)
    heading = manifest.describe(table.num_rows) + ("" if compare else f"\n{wall}")
    if compare:
        return f"{heading}\n\n{format_compare(summaries)}"
    return f"{heading}\n\n{format_stats(summaries, {r: grade_lines(g) for r, g in grades.items()})}"
