"""Statistics over race survey rows (:func:`dsolve.races.rows.pair_row`), per setting: how uneven
pairs of seeds are (the distribution of the imbalance, the pairs whose interval excludes zero),
the draw rate, cards contributed, how races end.

Intervals are 95 %: Wilson's for a share of pairs (:func:`dsolve.survey.stats.share`); for a mean
over races, the normal interval of the mean over pairs of each pair's mean (a pair's races share
its decks, so they are not independent; the pairs are), cut to 0..1 for a share
(:func:`dsolve.survey.stats.mean`: ``n`` is the pairs; one pair gives no interval).
``|imbalance|`` of a fair pair is not zero at a finite number of races (20 races of two fair decks
that never draw: about 0.18 on average); compare settings and samples of pairs at the same races
per pair.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..survey.stats import mean, mean_text, quantiles as nearest_rank_quantiles, share, share_text
from .rows import ENDS

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def quantiles(values: Sequence[float]) -> dict[str, float]:
    """The :data:`QUANTILES` of ``values`` (:func:`dsolve.survey.stats.quantiles`), keyed ``p5``,
    ``p25``, ...; none without values."""
    if not len(values):
        return {}
    return {f"p{round(100 * q)}": x for q, x in zip(QUANTILES, nearest_rank_quantiles(values, QUANTILES))}


def summarize(rows: Sequence[dict]) -> list[dict]:
    """Per setting (in the order first met): pairs and races; the imbalance's mean and quantiles,
    the mean |imbalance|, the pairs whose interval excludes zero (uneven); the draw rate, the mean
    cards a deck's seat contributes; the share of races finished (a seat emptied its layout), and
    of races per end."""
    by_setting: dict[str, list[dict]] = {}
    for r in rows:
        by_setting.setdefault(r["setting"], []).append(r)
    out = []
    for setting, group in by_setting.items():
        races = sum(r["plays"] for r in group)
        gaps = [r["imbalance"] for r in group]
        uneven = sum(r["imbalance_low"] > 0 or r["imbalance_high"] < 0 for r in group)
        out.append({
            "setting": setting, "pairs": len(group), "races": races,
            "imbalance": {**mean(gaps), **quantiles(gaps)},
            "abs_imbalance": {**mean([abs(g) for g in gaps]), **quantiles([abs(g) for g in gaps])},
            "uneven": share(uneven, len(group)),
            "draws": mean([r["draws"] / r["plays"] for r in group], shares=True),
            "contributed": mean([(r["contributed_a"] + r["contributed_b"]) / 2 for r in group]),
            "ends": {end: mean([r[end] / r["plays"] for r in group], shares=True)
                     for end in ENDS.values()},
            "moves_per_race": mean([r["moves"] / r["plays"] for r in group]),
        })
    return out


def format_summary(summary: Sequence[dict]) -> str:
    """:func:`summarize` as lines of text."""
    lines = []
    for s in summary:
        gap, absolute, uneven = s["imbalance"], s["abs_imbalance"], s["uneven"]
        spread = ", ".join(f"{k} {v:+.2f}" for k, v in gap.items() if k.startswith("p"))
        ends = ", ".join(f"{end.replace('_', ' ')} {mean_text(m, 100, 1)} %" for end, m in s["ends"].items())
        lines += [
            f"{s['setting']}: {s['pairs']} pairs, {s['races']} races",
            f"  imbalance (deck 1's win share - deck 2's): mean {mean_text(gap)}; {spread}",
            f"  |imbalance|: mean {mean_text(absolute)}, median {absolute.get('p50', 0):.2f}, p95 {absolute.get('p95', 0):.2f}",
            f"  uneven pairs (imbalance interval excludes 0): {share_text(uneven, digits=1)}",
            f"  draws: {mean_text(s['draws'], 100, 1)} % of races; cards contributed per deck: "
            f"{mean_text(s['contributed'], 1, 1)}; moves per race {mean_text(s['moves_per_race'], 1, 0)}",
            f"  ends: {ends}",
        ]
    return "\n".join(lines)
