"""What a grading survey (the grades behind ``dsolve pick``) says about a rule set: how often the
hidden-information and careless players win, how that spreads over the winnable deals, and how it
relates to the length of the winning line and the search it took (the race-table evidence).

Deals are the sampling units: a rate over all deals is the mean of the per-deal rates (a deal's
plays share its cards, so they are not independent trials), with a normal 95 % interval over
deals (a rate's cut to 0..1); a share of deals has a Wilson interval (:func:`dsolve.survey.stats.mean` and
:func:`~dsolve.survey.stats.share`: ``n`` is the deals, or plays, they are over). Unwinnable deals
count as lost by both players (they are not played); deals left unknown are left out and counted.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..klondike.result import UNKNOWN, UNWINNABLE, WINNABLE
from ..survey.stats import mean, mean_text, share, share_text
from ..survey.store import Manifest, open_survey
from .grade import DIFFICULTIES, GRADE

BY_QUANTILE = 4      # winnable deals split into quartiles of line length and of search effort


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, tied values given the mean of the ranks they share."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)  # the highest rank each distinct value takes
    return (last - (counts - 1) / 2)[inverse]


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation of x and y (None with fewer than 3 pairs or a constant side)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3:
        return None
    rx, ry = _ranks(x), _ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def _by_quantile(key: np.ndarray, rates: np.ndarray, name: str) -> list[dict]:
    """Winnable deals in BY_QUANTILE groups of ``key`` (equal counts, by rank): each group's
    range of ``key`` and its mean hidden win rate with interval."""
    groups = np.array_split(np.argsort(key, kind="stable"), BY_QUANTILE)
    return [{f"{name}_from": float(key[g].min()), f"{name}_to": float(key[g].max()),
             **mean(rates[g].tolist(), shares=True)} for g in groups if len(g)]


def summarize_grades(rows: Sequence[dict]) -> dict:
    """The evidence of graded rows (one rule set): see the module docstring. Keys: ``deals``,
    ``verdicts``, ``winnable``, ``hidden`` and ``careless`` (``all_deals``: mean rate over the
    decided deals; ``winnable``: over the winnable ones; ``under_half``: the share of winnable
    deals won in under half of the plays; ``histogram``: winnable deals by win rate),
    ``skill_gap`` (hidden less careless over winnable deals), ``traps`` (share of hidden plays
    that walked into a proven loss), ``difficulty`` counts, and how the hidden rate relates to
    ``length`` and ``nodes`` (Spearman correlations and quartiles)."""
    verdicts = Counter(r["verdict"] for r in rows)
    decided = [r for r in rows if r["verdict"] != UNKNOWN]
    won = [r for r in decided if r["verdict"] == WINNABLE]
    summary: dict = {
        "deals": len(rows), "verdicts": {v: verdicts.get(v, 0) for v in (WINNABLE, UNWINNABLE, UNKNOWN)},
        "winnable": share(len(won), len(decided)),
        "difficulty": {d: sum(r["difficulty"] == d for r in rows) for d in DIFFICULTIES},
    }
    for player in ("hidden", "careless"):
        rates = [r[f"{player}_win_rate"] if r["verdict"] == WINNABLE else 0.0 for r in decided]
        won_rates = np.array([r[f"{player}_win_rate"] for r in won])
        values, counts = np.unique(won_rates, return_counts=True)
        summary[player] = {
            "plays": sum(r[f"{player}_plays"] for r in won),
            "all_deals": mean(rates, shares=True), "winnable": mean(won_rates.tolist(), shares=True),
            "under_half": share(int((won_rates < 0.5).sum()), len(won)),
            "histogram": dict(zip(values.tolist(), counts.tolist())),
        }
    summary["skill_gap"] = mean([r["hidden_win_rate"] - r["careless_win_rate"] for r in won])
    summary["traps"] = share(sum(r["traps"] for r in won), summary["hidden"]["plays"])
    hidden = np.array([r["hidden_win_rate"] for r in won])
    for name in ("length", "nodes"):
        key = np.array([r[name] for r in won], dtype=float)
        summary[name] = {"spearman": spearman(key, hidden),
                         "quartiles": _by_quantile(key, hidden, name) if len(won) else []}
    return summary


def grade_lines(summary: dict) -> list[str]:
    """A :func:`summarize_grades` summary as the lines ``dsolve stats`` prints for a rule set of
    grades: each player's wins over all and over winnable deals, the share of winnable deals won in
    under half the plays, the skill gap, the traps and the difficulty classes (percentages)."""
    lines = []
    for player in ("hidden", "careless"):
        p = summary[player]
        lines.append(f"  {player:<9} wins {mean_text(p['all_deals'], 100, 1, ' %')} of all deals, "
                     f"{mean_text(p['winnable'], 100, 1, ' %')} of winnable ones; winnable deals won in "
                     f"under half the plays: {share_text(p['under_half'], 1)}")
    lines.append(f"  skill gap {mean_text(summary['skill_gap'], 100, 1, ' %')} (hidden less careless win rate, "
                 f"winnable deals); traps {share_text(summary['traps'], 1)} of the hidden plays")
    lines.append("  classes   " + ", ".join(f"{d} {n}" for d, n in summary["difficulty"].items()))
    return lines


def _by_rule_set(manifest: Manifest, table: pa.Table) -> dict[str, list[dict]]:
    """A survey's rows, by rule set (every rule set of its manifest, with rows or not)."""
    rows: dict[str, list[dict]] = {setting: [] for setting in manifest.settings}
    for row in table.to_pylist():
        rows[row["rules"]].append(row)
    return rows


def grades_of(out: str | os.PathLike) -> dict[str, list[dict]]:
    """The graded rows of a grading survey (``dsolve pick``'s ``FILE.grades``), by rule set."""
    found = open_survey(out)
    if found.manifest.job != GRADE.name:
        raise InputError(f"{out} holds a {found.manifest.job} survey, not grades (dsolve pick's FILE.grades)")
    return _by_rule_set(found.manifest, found.rows)


def grade_summaries(manifest: Manifest, table: pa.Table) -> dict[str, dict]:
    """:func:`summarize_grades` of each rule set with rows of an open survey (its manifest and
    rows) if it is a grading survey; none for a survey of other work."""
    if manifest.job != GRADE.name:
        return {}
    return {rules: summarize_grades(rows) for rules, rows in _by_rule_set(manifest, table).items() if rows}


def class_moves(before: Sequence[dict], after: Sequence[dict]) -> dict:
    """How the difficulty classes moved between two gradings of one rule set (say, by a weaker
    and a stronger hidden player), over the deals graded in both (matched by seed): ``deals``,
    ``moves`` (``moves[a][b]``: deals of class ``a`` before and ``b`` after), and per class its
    share of those deals before and after (Wilson intervals)."""
    then = {r["seed"]: r["difficulty"] for r in before}
    now = {r["seed"]: r["difficulty"] for r in after}
    common = [seed for seed in then if seed in now]
    moves = {a: {b: 0 for b in DIFFICULTIES} for a in DIFFICULTIES}
    for seed in common:
        moves[then[seed]][now[seed]] += 1
    return {"deals": len(common), "moves": moves,
            "before": {d: share(sum(moves[d].values()), len(common)) for d in DIFFICULTIES},
            "after": {d: share(sum(moves[a][d] for a in DIFFICULTIES), len(common)) for d in DIFFICULTIES}}
