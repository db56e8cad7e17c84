"""Races of a pair of seeds in duplicate format, their records and their report.

Race ``i`` of a pair belongs to *board* ``i // 2``. Odd races swap the decks between the seats
(the players stay in their seats), so each deck is played from both seats; both races of a board
use the same random numbers (think times and the players' choices, seeded by the board and the
two seeds, in either order), as duplicate bridge deals the same cards at both tables. So racing
``B A`` plays the same races as ``A B`` (in the other order within each board), and a seed raced
against itself gives each deck the same results.

Winner, win line ``first`` (both pages): a seat that has emptied its own piles, stock and waste
wins at once, whoever made the move that emptied them; otherwise (a mutual block, a check that
could not settle it, the move limit: :mod:`~dsolve.races.timing`) the seat that placed more
cards on the foundations wins, and equal counts are a draw. Win line ``count``: always the seat
that placed more cards (the race goes on until both seats are out or blocked).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..klondike.deals import DEFAULT_CONVENTION, make_deal
from ..errors import InputError
from ..players.hidden import HiddenOptions
from ..survey.stats import mean_interval, paired_difference_interval, wilson
from ..rules import parse_passes
from .players import make_racer, parse_players
from .table import FIRST, SEATS, RaceMove, RaceRules, Table
from .timing import DEFAULT_MAX_MOVES, ENDS, FINISHED, MODES, RACE, Clock, Outcome, play


@dataclass(frozen=True)
class RaceRecord:
    """One finished race: ``seeds`` (seat A's deck, seat B's), the rules, mode and players, every
    move (``times`` when each landed, race mode), how it ended, the ``winner`` seat (None: a
    draw), the cards each seat placed on the foundations, the moves each made and had put back."""

    seeds: tuple[int, int]
    convention: str
    rules: RaceRules
    mode: str
    players: tuple[str, str]
    moves: tuple[RaceMove, ...]
    times: tuple[float, ...]
    end: str
    first: int
    winner: int | None
    contributed: tuple[int, int]
    made: tuple[int, int]
    bounced: tuple[int, int]

    def to_dict(self) -> dict:
        """JSON-ready data, with the moves in their notation (what the referee replays)."""
        return {"seeds": list(self.seeds), "convention": self.convention, "rules": str(self.rules),
                "mode": self.mode, "players": list(self.players), "first": SEATS[self.first],
                "moves": [str(m) for m in self.moves], "times": [round(t, 3) for t in self.times],
                "end": self.end, "winner": None if self.winner is None else SEATS[self.winner],
                "contributed": list(self.contributed), "made": list(self.made), "bounced": list(self.bounced)}


@dataclass(frozen=True)
class RaceSetup:
    """What a pair's races share: rules, mode, the seats' players, the clock, the hidden player's
    options, the seed convention, a sampling seed that varies all random numbers, and the moves
    after which a race is stopped (scored as a block)."""

    rules: RaceRules = RaceRules()
    mode: str = RACE
    players: tuple[str, str] = ("hidden", "hidden")
    clock: Clock = Clock()
    hidden: HiddenOptions = HiddenOptions()
    convention: str = DEFAULT_CONVENTION
    sampling_seed: int = 0
    max_moves: int = DEFAULT_MAX_MOVES


def race_winner(table: Table, end: str) -> int | None:
    """The winner of a race that ended ``end`` on ``table``: the seat that finished, else the seat
    that placed more cards on the foundations (None: equal counts, a draw)."""
    if end == FINISHED and table.rules.win == FIRST:
        return int(table.finished(1))
    a, b = table.contributed
    return None if a == b else int(b > a)


def play_race(seeds: tuple[int, int], setup: RaceSetup, board: str) -> RaceRecord:
    """One race: seat A dealt ``seeds[0]``, seat B ``seeds[1]``; ``board`` seeds its randomness."""
    table = Table.from_seeds(seeds, setup.rules, setup.convention)
    racers = [make_racer(name, f"{board}:{seat}", setup.hidden) for seat, name in enumerate(setup.players)]
    outcome: Outcome = play(table, racers, setup.mode, setup.clock, random.Random(f"clock:{board}"),
                             setup.max_moves)
    contributed = (table.contributed[0], table.contributed[1])
    winner = race_winner(table, outcome.end)
    made = Counter(m.seat for m in outcome.moves if m.kind != "pass")
    return RaceRecord(seeds, setup.convention, setup.rules, setup.mode, setup.players, outcome.moves,
                      outcome.times, outcome.end, outcome.first, winner, contributed,
                      (made[0], made[1]), outcome.bounced)


def check_seeds(seeds: Sequence[int | str], convention: str = DEFAULT_CONVENTION) -> tuple[int, int]:
    """The two seeds as ints, each checked by its convention (bad seed: :class:`InputError`)."""
    if len(seeds) != 2:
        raise InputError("a race takes two seeds")
    for seed in seeds:
        make_deal(convention, seed)
    return int(str(seeds[0]).strip()), int(str(seeds[1]).strip())


def _board(pair: tuple[int, int], setup: RaceSetup, k: int) -> str:
    low, high = sorted(pair)
    return f"{setup.sampling_seed}:{low}:{high}:{k}"


def _one(task: tuple[tuple[int, int], RaceSetup, int]) -> RaceRecord:
    pair, setup, i = task
    seats = pair if i % 2 == 0 else (pair[1], pair[0])
    return play_race(seats, setup, _board(pair, setup, i // 2))


def play_races(pair: tuple[int, int], setup: RaceSetup, plays: int, jobs: int = 1) -> list[RaceRecord]:
    """``plays`` races of ``pair`` in duplicate format (see the module docstring), on ``jobs``
    processes; the records in race order, the same whatever ``jobs`` is."""
    if plays < 1:
        raise InputError(f"plays must be positive, got {plays}")
    if jobs < 1:
        raise InputError(f"jobs must be positive, got {jobs}")
    tasks = [(pair, setup, i) for i in range(plays)]
    if jobs == 1 or plays == 1:
        return [_one(task) for task in tasks]
    with ProcessPoolExecutor(min(jobs, plays)) as pool:
        return list(pool.map(_one, tasks))


@dataclass(frozen=True)
class DeckReport:
    """One deck over a pair's races: ``wins`` and ``draws`` of ``plays`` with Wilson intervals,
    the mean cards its seat placed on the foundations, and the mean moves its seat made in the
    races it finished (None when it finished none), each with a 95 % interval (None with fewer
    than two values)."""

    seed: int
    plays: int
    wins: int
    draws: int
    win_share: float
    win_ci: tuple[float, float]
    draw_share: float
    draw_ci: tuple[float, float]
    contributed: float
    contributed_ci: tuple[float, float] | None
    finishes: int
    finish_moves: float | None
    finish_moves_ci: tuple[float, float] | None


@dataclass(frozen=True)
class RaceReport:
    """A pair's races: the two decks' reports, ``imbalance`` (deck A's win share less deck B's)
    with its 95 % interval (paired: one race gives at most one of the two a win), the ends
    counted, and the moves put back."""

    setup: RaceSetup
    plays: int
    decks: tuple[DeckReport, DeckReport]
    imbalance: float
    imbalance_ci: tuple[float, float]
    ends: dict[str, int]
    bounced: int

    def to_dict(self) -> dict:
        s = self.setup
        return {"rules": str(s.rules), "variant": s.rules.variant, "win": s.rules.win, "mode": s.mode, "players": list(s.players),
                "think": list(s.clock.think), "plays": self.plays,
                "decks": [vars(d) | {"win_ci": list(d.win_ci), "draw_ci": list(d.draw_ci)} for d in self.decks],
                "imbalance": self.imbalance, "imbalance_ci": list(self.imbalance_ci),
                "ends": self.ends, "bounced": self.bounced}


def _deck(seed: int, deck: int, records: Sequence[RaceRecord]) -> DeckReport:
    n = len(records)
    seats = [i % 2 ^ deck for i in range(n)]  # the seat holding this deck in race i
    wins = sum(r.winner == s for r, s in zip(records, seats))
    draws = sum(r.winner is None for r in records)
    contributed = [r.contributed[s] for r, s in zip(records, seats)]
    finish = [r.made[s] for r, s in zip(records, seats) if r.end == FINISHED and r.winner == s]
    return DeckReport(seed, n, wins, draws, wins / n, wilson(wins, n), draws / n, wilson(draws, n),
                      sum(contributed) / n, mean_interval(contributed), len(finish),
                      sum(finish) / len(finish) if finish else None, mean_interval(finish))


def report(pair: tuple[int, int], setup: RaceSetup, records: Sequence[RaceRecord]) -> RaceReport:
    """The report of ``records`` (from :func:`play_races` of ``pair``)."""
    a, b = _deck(pair[0], 0, records), _deck(pair[1], 1, records)
    n = len(records)
    return RaceReport(setup, n, (a, b), (a.wins - b.wins) / n, paired_difference_interval(a.wins, b.wins, n),
                      end_counts(records), sum(sum(r.bounced) for r in records))


def end_counts(records: Sequence[RaceRecord]) -> dict[str, int]:
    """How many of ``records`` ended each way, for every end (:data:`~dsolve.races.timing.ENDS`)."""
    counted = Counter(r.end for r in records)
    return {end: counted[end] for end in ENDS}


def setup_from_options(variant: str = "locked", mode: str = RACE, draw: str | int = 3,
                       passes: str | int | None = None, players: str = "hidden,hidden",
                       think: str = "1,1", hidden: HiddenOptions = HiddenOptions(),
                       sampling_seed: int = 0, win: str = FIRST) -> RaceSetup:
    """A :class:`RaceSetup` from option values as typed, names in any case (bad values:
    :class:`InputError`)."""
    try:
        means = tuple(float(t) for t in think.split(","))
    except ValueError:
        raise InputError(f"bad think times {think!r} (expected seat A's and seat B's mean seconds, e.g. 1,2)") from None
    mode = mode.strip().lower()
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r} (expected {' or '.join(MODES)})")
    rules = RaceRules(variant.strip().lower(), parse_race_draw(draw), parse_passes(passes), win.strip().lower())
    return RaceSetup(rules, mode, parse_players(players),
                     Clock(means if len(means) == 2 else means * 2), hidden, sampling_seed=sampling_seed)  # type: ignore[arg-type]


def parse_race_draw(value: str | int) -> int:
    """Cards turned at a time at a race table, as typed: 1 or 3 (else :class:`InputError`)."""
    text = str(value).strip()
    if text not in ("1", "3"):
        raise InputError(f"draw must be 1 or 3, got {value!r}")
    return int(text)


def race_pair(pair: Sequence[int | str], setup: RaceSetup = RaceSetup(), plays: int = 20,
              jobs: int = 1) -> RaceReport:
    """Check the seeds, play ``plays`` races of the pair (see :func:`play_races`) and report."""
    seeds = check_seeds(pair, setup.convention)
    return report(seeds, setup, play_races(seeds, setup, plays, jobs))


def _interval(ci: tuple[float, float] | None, scale: float = 100) -> str:
    return "" if ci is None else f" [{scale * ci[0]:.1f}, {scale * ci[1]:.1f}]"


def format_report(rep: RaceReport) -> str:
    """The ``dsolve race`` report: a line per deck and the pair's imbalance."""
    s = rep.setup
    lines = [f"{s.rules.variant} race, draw {s.rules.draw}, "
             f"passes {'unlimited' if s.rules.passes is None else s.rules.passes}, win {s.rules.win}, mode {s.mode}; "
             f"players A {s.players[0]}, B {s.players[1]}; {rep.plays} races, decks swapped every other race"]
    for name, d in zip(("deck 1", "deck 2"), rep.decks):
        finish = ("no race finished" if d.finish_moves is None else
                  f"{d.finish_moves:.1f} moves to finish{_interval(d.finish_moves_ci, 1)} "
                  f"({d.finishes} finished)")
        lines.append(f"  {name} (seed {d.seed}): wins {d.wins} = {100 * d.win_share:.1f}%{_interval(d.win_ci)}, "
                     f"draws {d.draws} = {100 * d.draw_share:.1f}%{_interval(d.draw_ci)}, "
                     f"cards contributed {d.contributed:.1f}{_interval(d.contributed_ci, 1)}, {finish}")
    lines.append(f"  imbalance (deck 1 win share - deck 2's): {100 * rep.imbalance:+.1f}%"
                 f"{_interval(rep.imbalance_ci)}")
    ends = ", ".join(f"{end} {n}" for end, n in rep.ends.items())
    lines.append(f"  ends: {ends}; moves put back (too late for their slot): {rep.bounced}")
    return "\n".join(lines)
