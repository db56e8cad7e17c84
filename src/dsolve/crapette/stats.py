"""Statistics over Crapette round rows (:func:`dsolve.crapette.rounds.round_row`): the first
player's edge, stalemates, round lengths, points, rounds per match, and each player type against
each other with seats swapped."""
from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from ..survey.stats import mean, mean_text, quantile, share, share_text
from .rules import TARGET


def counted(count: int, noun: str, plural: str = "") -> str:
    """``"1 round"``, ``"2 rounds"``: ``count`` and ``noun``, in its ``plural`` (default: with an
    ``s``) unless ``count`` is 1."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def _mean_p90(values: Sequence[float]) -> dict:
    """The mean of ``values`` with its 95 % interval (:func:`dsolve.survey.stats.mean`: keys n,
    mean, low, high) and their 90th percentile ``p90`` (:func:`dsolve.survey.stats.quantile`; None
    with no values)."""
    return {**mean(values), "p90": quantile(values, 0.9)}


def rounds_per_match(rows: Sequence[dict], target: int = TARGET) -> list[int]:
    """Matches made of consecutive rounds: per seating (players in seats A and B) the rows in
    seed order, points added up per seat until one seat reaches ``target``, then a new match;
    the round counts of the finished matches (rounds left over at the end make no match). Each
    round is an independent deal, as a match's rounds are, and who starts is decided anew each
    round as in a match, so these are matches of these players in these seats."""
    counts = []
    for _, group in groupby(sorted(rows, key=lambda r: (r["player_a"], r["player_b"], r["seed"])),
                            key=lambda r: (r["player_a"], r["player_b"])):
        totals, n = [0, 0], 0
        for row in group:
            totals[0] += row["points_a"]
            totals[1] += row["points_b"]
            n += 1
            if max(totals) >= target:
                counts.append(n)
                totals, n = [0, 0], 0
    return counts


def summarize(rows: Sequence[dict], target: int = TARGET) -> dict:
    """The summary of ``rows``: rounds; the first player's wins (a share of all rounds and of the
    rounds someone went out); stalemates (``stalemate`` and ``turn limit``); moves, turns and
    points per round and rounds per match to ``target`` (mean with interval, p90; ``n`` rounds or
    matches: no mean without any); and per pair of player types (seats swapped when both seatings
    are in the rows) each type's wins."""
    n = len(rows)
    out = [r for r in rows if r["winner"] >= 0]
    first_wins = sum(r["winner"] == r["first_player"] for r in out)
    matches = rounds_per_match(rows, target)
    pairs: dict[tuple[str, str], dict] = {}
    for r in rows:
        a, b = r["player_a"], r["player_b"]
        if a == b:
            continue
        x, y = sorted((a, b))
        tally = pairs.setdefault((x, y), {"rounds": 0, x: 0, y: 0, "seatings": set()})
        tally["rounds"] += 1
        tally["seatings"].add((a, b))
        if r["winner"] >= 0:
            tally[(a, b)[r["winner"]]] += 1
    return {
        "rounds": n,
        "first_player_wins": share(first_wins, n),
        "first_player_wins_of_decided": share(first_wins, len(out)),
        "stalemates": share(n - len(out), n),
        "moves": _mean_p90([r["moves"] for r in rows]),
        "turns": _mean_p90([r["turns"] for r in rows]),
        "points": _mean_p90([r["points_a"] + r["points_b"] for r in rows]),
        "rounds_per_match": {**_mean_p90(matches), "target": target},
        "pairings": [{"players": [x, y], "seats_swapped": len(t["seatings"]) == 2,
                      x: share(t[x], t["rounds"]), y: share(t[y], t["rounds"])}
                     for (x, y), t in sorted(pairs.items())],
    }


def _mean_p90_text(m: dict, digits: int, interval: bool = False) -> str:
    """``mean 41.2, p90 60`` (with ``interval``, the mean's interval after it); ``-`` with no values."""
    if not m["n"]:
        return "-"
    shown = mean_text(m, digits=digits) if interval else f"{m['mean']:.{digits}f}"
    return f"mean {shown}, p90 {m['p90']}"


def format_summary(summary: dict) -> str:
    """:func:`summarize` as lines of text."""
    s = summary
    m = s["rounds_per_match"]
    lines = [
        f"rounds: {s['rounds']}",
        f"first player wins: {share_text(s['first_player_wins'])}; of rounds someone went out: "
        f"{share_text(s['first_player_wins_of_decided'])}",
        f"stalemates: {share_text(s['stalemates'])}",
        f"moves per round: {_mean_p90_text(s['moves'], 1)}",
        f"turns per round: {_mean_p90_text(s['turns'], 1)}",
        f"points per round: {_mean_p90_text(s['points'], 1)}",
        f"rounds per match to {m['target']}: {_mean_p90_text(m, 2, interval=True)} "
        f"({counted(m['n'], 'match', 'matches')} of consecutive rounds)",
    ]
    for p in s["pairings"]:
        x, y = p["players"]
        swapped = "seats swapped" if p["seats_swapped"] else "one seating only"
        lines.append(f"{x} vs {y} ({swapped}): {x} wins {share_text(p[x])}, {y} wins {share_text(p[y])}")
    return "\n".join(lines)
