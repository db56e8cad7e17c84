"""Double solitaire races: the table's rules on hand-set positions, the clock's slot conflicts and
the turn order, every record replayed by the independent referee (and a broken record refused),
invariants after every move of many races, the duplicate format's symmetries, the CLI, and races
played exactly as the reference records (``race_reference.py``) say."""
import json
import random
from dataclasses import replace

import pytest
from click.testing import CliRunner

from dsolve.cards import parse_card
from dsolve.cli import main
from dsolve.errors import InputError
from dsolve.players.hidden import HiddenOptions
from dsolve.races.players import project
from dsolve.races.race import RaceSetup, play_race, race_pair, race_winner, report, play_races
from dsolve.races import referee
from dsolve.races.referee import replay
from dsolve.races.progress import UNKNOWN, blocked, cannot_progress, first_progress, progress_path
from dsolve.races.table import (FOUNDATION, LOCKED, MILDER, OPEN, PLAY, TURN, IllegalMove, RaceMove,
                                RaceRules, Table, code_of, parse_race_move)
from dsolve.races.timing import BLOCKED, FINISHED, Clock, play
from race_reference import CASES, play_case, read_reference, record_data

QUICK_HIDDEN = HiddenOptions(samples=2, max_nodes=300)
REFERENCE = read_reference()


def c(owner: int, text: str) -> int:
    return code_of(owner, parse_card(text))


def bare_table(variant: str = LOCKED) -> Table:
    """A table from seeds 1 and 2 with every pile, stock and waste emptied, to be set by hand
    (its cards no longer add up to 104: for rule tests only)."""
    t = Table.from_seeds((1, 2), RaceRules(variant, 1))
    for s in (0, 1):
        t.piles[s] = [[] for _ in range(7)]
        t.face_down[s] = [0] * 7
        t.stock[s], t.waste[s] = [], []
    return t


def moves_of(t: Table, seat: int) -> set[str]:
    return {str(m) for m in t.legal_moves(seat)}


# -- the table's rules ---------------------------------------------------------------------------

def test_locked_offers_no_move_onto_or_off_the_other_tableau():
    t = bare_table(LOCKED)
    t.piles[0][0] = [c(0, "8S")]
    t.piles[1][0] = [c(1, "7H")]
    t.piles[1][1] = [c(1, "8C")]
    t.piles[1][2] = [c(1, "9D")]
    assert moves_of(t, 0) == set()
    assert moves_of(t, 1) == {"B b1>b2 7Hb", "B b2>b3 8Cb"}
    with pytest.raises(IllegalMove):
        t.apply(RaceMove(0, PLAY, 1, 0, 0, 0, 1, c(1, "7H")))  # take B's 7H onto A's 8S
    with pytest.raises(IllegalMove):
        t.apply(RaceMove(0, PLAY, 0, 0, 1, 2, 1, c(0, "8S")))  # put A's 8S on B's 9D
    t.rules = RaceRules(OPEN, 1)  # the same position, open
    assert {"A b1>a1 7Hb", "A a1>b3 8Sa"} <= moves_of(t, 0)


def test_open_takes_the_other_top_card_only_by_a_legal_build_or_onward():
    t = bare_table(OPEN)
    t.piles[0][0] = [c(0, "8S")]
    t.piles[1][0] = [c(1, "5C"), c(1, "7H")]
    t.face_down[1][0] = 1
    t.piles[1][1] = [c(1, "9D"), c(1, "8C")]
    t.waste[1] = [c(1, "6C")]
    moves = moves_of(t, 0)
    # 7H of B onto A's 8S (a build), A's 8S onto B's 9D? no: 9D is covered; 8C of B is B's top: it
    # fits nowhere (no red 9 uncovered), so it cannot be taken
    assert "A b1>a1 7Hb" in moves and "A b1>b2 7Hb" in moves  # onto either tableau
    assert not any("8Cb" in m for m in moves)
    assert not any("6Cb" in m for m in moves)  # the other waste is never played from
    assert not any("x2" in m and m.split()[1].startswith("b") for m in moves)  # no runs taken
    with pytest.raises(IllegalMove):
        t.apply(RaceMove(0, PLAY, 1, 1, 0, 0, 2, c(1, "9D")))  # B's run of two
    t.apply(parse_race_move("A b1>a1 7Hb"))
    assert t.piles[0][0] == [c(0, "8S"), c(1, "7H")] and t.face_down[1][0] == 0  # 5C turned up
    assert "A a1>b2 7Hb" in moves_of(t, 0)  # played onward: any card on A's piles is A's to move


def test_open_onward_to_a_foundation_counts_for_the_mover():
    t = bare_table(OPEN)
    t.piles[1][0] = [c(1, "AH")]
    t.apply(parse_race_move("A b1>f2 AHb"))
    assert t.foundations[1] == [c(1, "AH")] and t.contributed == [1, 0]


def test_foundations_two_per_suit_first_card_takes_the_slot_and_nothing_comes_back():
    t = bare_table(LOCKED)
    t.piles[0][0] = [c(0, "AH")]
    t.piles[1][0] = [c(1, "AH")]
    t.piles[1][1] = [c(1, "2H")]
    assert moves_of(t, 0) == {"A a1>f2 AHa"}  # one move when both heart piles take it
    t.apply(parse_race_move("A a1>f2 AHa"))
    assert "B b1>f6 AHb" in moves_of(t, 1) and "B b2>f2 2Hb" in moves_of(t, 1)
    t.apply(parse_race_move("B b2>f2 2Hb"))
    with pytest.raises(IllegalMove):
        t.apply(parse_race_move("B b1>f2 AHb"))  # f2 is taken
    assert not any(m.src_side == FOUNDATION for s in (0, 1) for m in t.legal_moves(s))
    assert t.contributed == [1, 1]


def test_finished_means_own_piles_stock_and_waste_empty():
    t = bare_table(OPEN)
    t.piles[1][0] = [c(0, "KH")]  # A's card on B's tableau is out for A
    assert t.finished(0) and not t.finished(1)
    t.waste[0] = [c(0, "2C")]
    assert not t.finished(0)


def test_rules_and_moves_refuse_bad_values():
    for bad in ({"variant": "x"}, {"draw": 2}, {"passes": 0}):
        with pytest.raises(InputError):
            RaceRules(**bad)
    with pytest.raises(InputError):
        parse_race_move("A a9>f1")
    assert str(parse_race_move("B b2>a5x3 9Sb")) == "B b2>a5x3 9Sb"


# -- the clock and the turns ---------------------------------------------------------------------

class Scripted:
    """Plays its first legal foundation move, else nothing."""

    def choose(self, view):
        return next((m for m in view.legal if m.dst_side == FOUNDATION), None)


@pytest.mark.parametrize("fast", [0, 1])
def test_race_slot_goes_to_the_first_card_landed_the_other_is_put_back(fast):
    t = bare_table(LOCKED)
    t.foundations[1] = [c(0, "AH")]
    t.foundations[5] = []
    t.piles[0][0] = [c(0, "2H")]
    t.piles[1][0] = [c(1, "2H")]
    t.piles[0][1], t.piles[1][1] = [c(0, "KC")], [c(1, "KC")]  # neither seat can finish
    think = (0.1, 10.0) if fast == 0 else (10.0, 0.1)
    out = play(t, [Scripted(), Scripted()], clock=Clock(think), rng=random.Random(3))
    assert [(m.seat, m.dst) for m in out.moves] == [(fast, 1)]  # the slow 2H found the slot taken
    assert out.bounced[1 - fast] == 1 and out.bounced[fast] == 0
    assert out.end == BLOCKED and t.contributed[fast] == 1


def test_turns_start_with_the_lower_one_card_pile_and_pass_after_turning_the_stock():
    setup = RaceSetup(RaceRules(LOCKED, 3), mode="turns", players=("careless", "careless"))
    for seeds in ((1, 2), (2, 1), (3, 8)):
        rec = play_race(seeds, setup, "t")
        t = Table.from_seeds(seeds, setup.rules)
        assert rec.first == t.first_to_move()
        seat = rec.first
        for move in rec.moves:
            assert move.seat == seat
            if move.kind in (TURN, "pass"):
                seat = 1 - seat
        assert replay(rec.to_dict()).ok


# -- a seat emptied by the other seat's move -------------------------------------------------------

def last_cards_table(variant: str = OPEN) -> Table:
    """All 104 cards in place: every card on the foundations (A's on f1-f4, B's on f5-f8) except
    A's KS on A's pile 1, B's KH on A's pile 2 (out for B) and B's QH, B's last card, on B's pile 1."""
    t = bare_table(variant)
    held = {c(0, "KS"), c(1, "KH"), c(1, "QH")}
    for f in range(8):
        owner, suit = divmod(f, 4)
        t.foundations[f] = [code for code in (c(owner, r + s) for r in "A23456789TJQK" for s in "CDHS")
                            if code % 4 == suit and code not in held]
        t.foundations[f].sort()
    t.piles[0][0], t.piles[0][1], t.piles[1][0] = [c(0, "KS")], [c(1, "KH")], [c(1, "QH")]
    return t


class Taking:
    """Seat A's player: its first legal move of B's QH (to ``onto``: a foundation or A's KS)."""

    def __init__(self, onto: int):
        self.onto = onto

    def choose(self, view):
        return next((m for m in view.legal if m.card == c(1, "QH") and m.dst_side == self.onto), None)


class Idle:
    def choose(self, view):
        return None


@pytest.mark.parametrize("onto", [FOUNDATION, 0])
def test_a_seat_emptied_by_the_other_seats_move_wins_at_that_move(onto):
    t = last_cards_table()
    assert not t.finished(0) and not t.finished(1)
    out = play(t, [Taking(onto), Idle()], clock=Clock((0.1, 10.0)), rng=random.Random(1))
    assert [str(m)[:6] for m in out.moves] == ["A b1>f" if onto == FOUNDATION else "A b1>a"]
    assert out.end == FINISHED and t.finished(1) and not t.finished(0)
    assert race_winner(t, out.end) == 1


def test_the_referee_ends_the_race_when_the_other_seats_move_empties_a_seat():
    t = last_cards_table()
    record = {"seeds": [1, 2], "convention": "solvitaire", "rules": str(RaceRules(OPEN, 1)), "mode": "race",
              "first": "A", "moves": [str(m) for m in t.legal_moves(0) if m.card == c(1, "QH")][:1],
              "end": "finished", "winner": "B", "contributed": [1, 0], "made": [1, 0]}

    def judged(rec):
        return judged_from(t, rec)

    assert record["moves"] == ["A b1>f6 QHb"]
    assert judged(record).ok, judged(record).error
    assert "B had finished" in judged(dict(record, moves=record["moves"] + ["A a1>f4 KSa"],
                                           contributed=[2, 0], made=[2, 0])).error
    assert not judged(dict(record, winner="A")).ok


def judged_from(t: Table, record: dict):
    """The referee's verdict on ``record``'s moves played from the position of ``t`` (all face up)."""
    race = referee._Race(record)
    for s in (0, 1):
        race.seats[s].piles = [[(x // 52, x % 52) for x in p] for p in t.piles[s]]
        race.seats[s].down, race.seats[s].stock = [0] * 7, []
    race.found = [[(x // 52, x % 52) for x in f] for f in t.foundations]
    return referee._judge(race, record)


def test_the_referee_plays_on_to_both_seats_out_with_win_count():
    t = last_cards_table()
    moves = ["A b1>f6 QHb", "A a1>f3 KSa", "A a2>f6 KHb"]
    record = {"seeds": [1, 2], "convention": "solvitaire", "rules": str(RaceRules(OPEN, 1, win="count")),
              "mode": "race", "first": "A", "moves": moves, "end": "finished", "winner": "A",
              "contributed": [3, 0], "made": [3, 0]}
    assert judged_from(t, record).ok, judged_from(t, record).error
    assert not judged_from(t, dict(record, moves=moves[:1], contributed=[1, 0], made=[1, 0])).ok  # B only
    first = dict(record, rules=str(RaceRules(OPEN, 1)), winner="B")
    assert "B had finished" in judged_from(t, first).error


def test_win_count_plays_on_after_a_seat_finishes_and_scores_by_count():
    first, count = last_cards_table(), last_cards_table()
    count.rules = RaceRules(OPEN, 1, win="count")
    for t in (first, count):
        out = play(t, [Scripted(), Idle()], clock=Clock((0.1, 10.0)), rng=random.Random(1))
        assert out.end == FINISHED
    assert race_winner(first, FINISHED) == 1 and first.contributed == [2, 0]  # B out at once, A not
    assert not first.finished(0)
    # counting, the game goes on: A puts up B's QH, its own KS and B's KH, then both are out
    assert count.contributed == [3, 0] and count.finished(0) and count.finished(1)
    assert race_winner(count, FINISHED) == 0
    assert race_winner(count, BLOCKED) == 0


def test_milder_builds_on_the_other_tableau_but_never_moves_its_cards():
    t = bare_table(MILDER)
    t.piles[0][0] = [c(0, "8S")]
    t.piles[1][0] = [c(1, "7H")]
    t.piles[1][1] = [c(1, "9D")]
    t.piles[1][2] = [c(1, "AH")]
    assert moves_of(t, 0) == {"A a1>b2 8Sa"}  # onto B's 9D; not B's 7H onto A's 8S, not B's AH home
    t.apply(parse_race_move("A a1>b2 8Sa"))
    assert moves_of(t, 0) == set()  # A's own 8S, now on B's tableau, is out of A's reach too
    for bad in ("A b1>b2 7Hb", "A b3>f2 AHb"):
        with pytest.raises(IllegalMove):
            t.apply(parse_race_move(bad))


# -- a race ends blocked only when no seat can progress --------------------------------------------

def test_a_layout_all_face_up_with_10c_to_go_home_is_not_blocked():
    t = bare_table(LOCKED)
    t.foundations[0] = [c(0, r + "C") for r in "A23456789"]
    t.piles[0][0] = [c(0, "TC"), c(0, "9H")]  # 10C under the 9H, all face up
    t.piles[0][1] = [c(0, "TS")]
    t.piles[1][0] = [c(1, "KD")]  # B cannot progress (and has not finished)
    assert [str(m) for m in progress_path(t, 0)] == ["A a1>a2 9Ha", "A a1>f1 10Ca"]
    assert progress_path(t, 1) is None and not blocked(t)
    out = play(t, [Idle(), Idle()], clock=Clock((1.0, 1.0)), rng=random.Random(2))
    assert [str(m) for m in out.moves] == ["A a1>a2 9Ha", "A a1>f1 10Ca"]  # played for the idle seat
    assert out.end == BLOCKED and blocked(t)


def test_a_bounded_search_does_not_declare_a_block():
    t = bare_table(LOCKED)
    t.foundations[0] = [c(0, r + "C") for r in "A23456789"]
    t.piles[0][0] = [c(0, "TC"), c(0, "9H")]
    t.piles[0][1] = [c(0, "TS")]
    assert progress_path(t, 0, max_tables=1) == UNKNOWN
    assert first_progress(t, (1, 0), max_tables=1) == UNKNOWN


@pytest.mark.parametrize("variant", [LOCKED, MILDER])  # (the open races end unresolved more often)
def test_a_blocked_end_leaves_no_seat_a_progress_move(variant):
    blocked_ends = 0
    mixed = (("random", "careless"),) if variant == LOCKED else ()  # (slow in the milder races)
    for players in (("careless", "careless"), *mixed):
        for mode in ("race", "turns"):
            for draw, passes in ((1, 1), (3, 2)):  # a pass limit: blocks come sooner
                setup = RaceSetup(RaceRules(variant, draw, passes), mode, players, max_moves=400)
                for pair in ((1, 2), (7, 8)):
                    rec = play_race(pair, setup, f"blocked:{pair}")
                    assert replay(rec.to_dict()).ok
                    if rec.end == BLOCKED:
                        blocked_ends += 1
                        t = replay_on_table(rec)
                        assert all(progress_path(t, s) is None for s in (0, 1))
    assert blocked_ends >= 2


def reference_progress_path(table: Table, seat: int, max_tables: int):
    """The progress search by its definition, on copies of the whole :class:`Table` (slow): breadth
    first over the seat's legal moves, each table once by :meth:`Table.key`, a play progresses
    when it puts a card home, turns a face-down card or finishes a seat."""
    def measure(t):
        return (sum(map(len, t.foundations)), -sum(map(sum, t.face_down)),
                sum(t.finished(s) for s in (0, 1)))
    seen = {table.key()}
    queue = [(table, [])]
    for here, path in queue:
        for move in here.legal_moves(seat):
            after = here.copy()
            after.apply(move, check=False)
            if move.kind == PLAY and any(b > a for a, b in zip(measure(here), measure(after))):
                return path + [move]
            if after.key() in seen:
                continue
            if len(seen) >= max_tables:
                return UNKNOWN
            seen.add(after.key())
            queue.append((after, path + [move]))
    return None


@pytest.mark.parametrize("variant", [LOCKED, OPEN, MILDER])
def test_the_progress_search_finds_what_its_definition_finds(variant):
    """On tables from every few moves of careless and random races (draw 1 and 3, with and without
    a pass limit, win first and count), each seat's search gives the moves, block or unknown the
    definition gives, at two bounds, except that a block the definition's search could not finish
    may be proved with no search; and no table with a way to progress is ever "proved" blocked."""
    results = set()
    for players, draw, passes, win in ((("careless", "careless"), 1, None, "first"),
                                       (("careless", "careless"), 3, None, "count"),
                                       (("random", "careless"), 3, 2, "count")):
        setup = RaceSetup(RaceRules(variant, draw, passes, win), "race", players, max_moves=300)
        rec = play_race((3, 4), setup, f"search:{variant}")
        t = Table.from_seeds((3, 4), setup.rules)
        for k, move in enumerate((*rec.moves, None)):  # every 15th table and the last
            if k % 15 == 0 or move is None:
                for seat in (0, 1):
                    for bound in (40, 2_000):
                        found, expected = progress_path(t, seat, bound), reference_progress_path(t, seat, bound)
                        if expected == UNKNOWN and found is None:  # proved with no search
                            assert cannot_progress(t, seat)
                        else:
                            assert found == expected
                        if isinstance(expected, list):
                            assert not cannot_progress(t, seat)
                        results.add("moves" if isinstance(found, list) else str(found))
            if move is not None:
                t.apply(move)
    assert {"moves", "None"} <= results


def test_a_block_proved_with_no_search():
    """A's 2H (the next heart) lies under its 9C, which has no red 10 to go onto; A's other pile is
    a lone king and it has no stock: blocked, proved before looking at a table. Give the 9C a
    red 10 to go onto and the proof no longer holds (the search finds the 2H's way home)."""
    t = bare_table(LOCKED)
    t.foundations[1] = [c(0, "AH")]
    t.piles[0][0] = [c(0, "2H"), c(0, "9C")]
    t.piles[0][1] = [c(0, "KS")]
    t.piles[1][0] = [c(1, "KD")]
    assert cannot_progress(t, 0) and progress_path(t, 0, max_tables=1) is None
    t.piles[0][2] = [c(0, "10D")]
    assert not cannot_progress(t, 0)
    assert [str(m) for m in progress_path(t, 0)] == ["A a1>a3 9Ca", "A a1>f2 2Ha"]


# -- records replay, invariants after every move --------------------------------------------------

def races(players, seeds=((1, 2), (3, 4)), hidden=HiddenOptions()):
    for variant in (LOCKED, OPEN):
        for mode in ("race", "turns"):
            for draw in (1, 3):
                setup = RaceSetup(RaceRules(variant, draw), mode, players, hidden=hidden, max_moves=600)
                for pair in seeds:
                    yield play_race(pair, setup, f"test:{pair}")


def replay_on_table(rec):
    """Replay a record on a fresh table, checking after every move: 104 cards, each once; no
    card off a foundation, never the same card twice running on one; locked moves stay in the
    mover's layout; milder moves never move the other's cards; open takes only top cards."""
    t = Table.from_seeds(rec.seeds, rec.rules)
    everything = sorted(range(104))
    for move in rec.moves:
        before = [list(f) for f in t.foundations]
        if move.kind == "pass":
            continue
        if move.kind == PLAY:
            if rec.rules.variant == LOCKED:
                assert move.src_side == move.seat and move.dst_side in (move.seat, FOUNDATION)
            elif rec.rules.variant == MILDER:
                assert move.src_side == move.seat  # the other's cards never moved
            elif move.src_side != move.seat:
                assert move.count == 1 and t.piles[move.src_side][move.src][-1] == move.card
        t.apply(move)
        cards = [x for f in t.foundations for x in f]
        for s in (0, 1):
            cards += [x for p in t.piles[s] for x in p] + t.stock[s] + t.waste[s]
        assert sorted(cards) == everything
        assert all(after[:len(b)] == b for b, after in zip(before, t.foundations))
        for f in t.foundations:  # never the same card twice running (two decks: two 5H)
            assert all(x % 52 != y % 52 for x, y in zip(f, f[1:]))
    return t


@pytest.mark.parametrize("players, seeds", [(("random", "random"), ((1, 2),)),
                                            (("careless", "careless"), ((1, 2), (3, 4))),
                                            (("careless", "random"), ((5, 6),))])
def test_every_record_replays_through_the_referee_and_keeps_the_invariants(players, seeds):
    for rec in races(players, seeds):
        verdict = replay(rec.to_dict())
        assert verdict.ok, verdict.error
        assert verdict.steps == len(rec.moves)
        t = replay_on_table(rec)
        assert t.contributed == list(rec.contributed)
        if rec.end == FINISHED:
            assert t.finished(rec.winner)


def test_hidden_races_replay_through_the_referee():
    for rec in races(("hidden", "careless"), seeds=((5, 6),), hidden=QUICK_HIDDEN):
        verdict = replay(rec.to_dict())
        assert verdict.ok, verdict.error
        replay_on_table(rec)


def test_the_referee_refuses_a_broken_record():
    record = play_race((1, 2), RaceSetup(RaceRules(OPEN, 1), players=("careless", "careless")), "x")
    rec = record.to_dict()
    assert replay(rec).ok
    plays = [i for i, m in enumerate(rec["moves"]) if ">" in m]
    dropped = dict(rec, moves=rec["moves"][:plays[3]] + rec["moves"][plays[3] + 1:])
    assert not replay(dropped).ok
    other = {"A": "B", "B": "A"}
    swapped = dict(rec, moves=[other[rec["moves"][0][0]] + rec["moves"][0][1:]] + rec["moves"][1:])
    assert not replay(swapped).ok
    assert not replay(dict(rec, winner=None if rec["winner"] else "A")).ok
    assert not replay(dict(rec, contributed=[rec["contributed"][0] + 1, rec["contributed"][1]])).ok
    crossing = [m for m in record.moves if m.kind == PLAY and (
        m.src_side != m.seat or m.dst_side not in (m.seat, FOUNDATION))]
    assert crossing  # the careless players send cards over in the open race
    assert not replay(dict(rec, rules=str(RaceRules(LOCKED, 1)))).ok


def test_the_projection_follows_the_shared_foundations():
    t = Table.from_seeds((5, 6), RaceRules(LOCKED, 1))
    view = project(t.view(0))
    assert view.hidden_places == 21 + 24 and view.foundations == (0, 0, 0, 0)
    # B's AH and 2H put up (taken out of B's layout by hand): A's hearts from 3H may go there once
    # A's own AH and 2H are in sight (then lifted out: they wait for the other heart pile)
    for card in ("AH", "2H"):
        take_out(t, 1, c(1, card))
        t.foundations[1].append(c(1, card))
    in_sight = {x for p, d in zip(t.piles[0], t.face_down[0]) for x in p[d:]}
    expected = 2 if {c(0, "AH"), c(0, "2H")} <= in_sight else 0
    assert project(t.view(0)).foundations[1] == expected
    for card in ("AH", "2H"):
        take_out(t, 0, c(0, card))
        t.foundations[5].append(c(0, card))  # A's own up on the other pile: both at 2
    assert project(t.view(0)).foundations[1] == 2


def take_out(t: Table, seat: int, code: int) -> None:
    """Take ``code`` out of ``seat``'s piles or stock by hand (turning up a pile's new top)."""
    t.stock[seat] = [x for x in t.stock[seat] if x != code]
    for i, pile in enumerate(t.piles[seat]):
        if code in pile:
            pile.remove(code)
            t.face_down[seat][i] = max(0, min(t.face_down[seat][i], len(pile) - 1))


# -- duplicate format ---------------------------------------------------------------------------

CARELESS = RaceSetup(RaceRules(LOCKED, 3), players=("careless", "careless"))


def test_a_seed_against_itself_has_an_imbalance_interval_containing_zero():
    rep = race_pair((9, 9), CARELESS, plays=4)
    low, high = rep.imbalance_ci
    assert low <= 0 <= high and rep.imbalance == 0
    assert rep.decks[0].wins == rep.decks[1].wins


def test_swapping_the_seeds_mirrors_the_report():
    ab = race_pair((3, 4), replace(CARELESS, players=("careless", "random")), plays=6)
    ba = race_pair((4, 3), replace(CARELESS, players=("careless", "random")), plays=6)
    assert ab.decks[0] == ba.decks[1] and ab.decks[1] == ba.decks[0]
    assert ab.imbalance == -ba.imbalance
    assert ab.imbalance_ci == pytest.approx((-ba.imbalance_ci[1], -ba.imbalance_ci[0]))


def test_report_counts_each_deck_from_both_seats():
    records = play_races((1, 2), CARELESS, 4)
    assert [r.seeds for r in records] == [(1, 2), (2, 1), (1, 2), (2, 1)]
    rep = report((1, 2), CARELESS, records)
    deck1_wins = sum(r.winner == (i % 2) for i, r in enumerate(records))
    assert rep.decks[0].wins == deck1_wins
    assert rep.decks[0].wins + rep.decks[1].wins + rep.decks[0].draws == 4
    assert play_races((1, 2), CARELESS, 4, jobs=2) == records


# -- CLI ----------------------------------------------------------------------------------------

def test_cli_race_report_and_json():
    runner = CliRunner()
    out = runner.invoke(main, ["race", "1", "2", "--plays", "4", "--players", "careless"])
    assert out.exit_code == 0, out.output
    assert "deck 1 (seed 1)" in out.output and "imbalance" in out.output
    out = runner.invoke(main, ["race", "1", "2", "--plays", "4", "--players", "CARELESS,random",
                               "--variant", "OPEN", "--win", "Count", "--draw", "1", "--mode", "Turns", "--json"])
    data = json.loads(out.output)  # names in any case, the players' as the variant's
    assert (data["variant"], data["win"], data["mode"], data["players"]) == ("open", "count", "turns",
                                                                           ["careless", "random"])
    assert data["rules"] == "open,draw=1,passes=unlimited,win=count"
    assert list(data["ends"]) == ["finished", "blocked", "unresolved", "move limit"]
    assert sum(data["ends"].values()) == 4
    assert data["plays"] == 4 and [d["seed"] for d in data["decks"]] == [1, 2]
    assert {"wins", "draws", "win_share"} <= set(data["decks"][0])
    assert data["imbalance"] == (data["decks"][0]["wins"] - data["decks"][1]["wins"]) / 4
    assert len(data["imbalance_ci"]) == 2


@pytest.mark.parametrize("args, message", [
    (["-1", "2"], "bad seed -1"),
    (["1", "4294967296"], "bad seed 4294967296"),
    (["1", "2", "--plays", "0"], "plays must be positive"),
    (["1", "2", "--variant", "closed"], "'closed' is not one of 'open', 'locked', 'milder'"),
    (["1", "2", "--win", "fast"], "'fast' is not one of 'first', 'count'"),
    (["1", "2", "--draw", "x"], "draw must be 1 or 3, got 'x'"),
    (["1", "2", "--players", "hidden,bob"], "unknown player"),
    (["1", "2", "--mode", "x"], "'x' is not one of 'race', 'turns'"),
    (["1", "2", "--draw", "2"], "draw must be 1 or 3"),
    (["1", "2", "--think", "inf,1"], "positive finite means"),
    (["1", "2", "--think", "1,nan"], "positive finite means"),
    (["1", "2", "--think", "1,1,1"], "positive finite means"),
    (["1", "2", "--think", "x"], "bad think times"),
])
def test_cli_race_bad_input_is_one_line_exit_2(args, message):
    out = CliRunner().invoke(main, ["race", *args])
    assert out.exit_code == 2
    assert out.output.count("\n") == 1 and message in out.output and out.output.startswith("dsolve: error:")


PICKED = [{"seed": s, "pair": n} for n, pair in enumerate(((9, 9), (3, 4), (2, 5)), 1) for s in pair]


def test_pick_keeps_only_the_pairs_raced_even_with_their_imbalance(tmp_path):
    from dsolve.pick import race_pairs

    rows = PICKED
    kept = race_pairs(rows, CARELESS, 4, tmp_path / "races")
    expected = []
    for a, b in zip(rows[::2], rows[1::2]):
        rep = race_pair((a["seed"], b["seed"]), CARELESS, plays=4)
        if rep.imbalance_ci[0] <= 0 <= rep.imbalance_ci[1]:
            expected += [(a["seed"], rep.imbalance), (b["seed"], rep.imbalance)]
    assert [(r["seed"], r["imbalance"]) for r in kept] == expected
    assert kept[:2] == [{"seed": 9, "pair": 1, "imbalance": 0.0, "imbalance_low": kept[0]["imbalance_low"],
                         "imbalance_high": kept[0]["imbalance_high"]}] * 2


def test_pick_races_its_pairs_resumably(tmp_path):
    """A pick stopped after racing its first pair races only the others when run again, and keeps
    what a run never stopped keeps."""
    from dsolve.pick import race_pairs
    from dsolve.races.rows import open_races, survey as race_survey

    whole = race_pairs(PICKED, CARELESS, 4, tmp_path / "whole")
    listed = [(a["seed"], b["seed"]) for a, b in zip(PICKED[::2], PICKED[1::2])]
    race_survey(tmp_path / "stopped", range(1, 2), CARELESS, 4, listed)
    (first,) = (tmp_path / "stopped").glob("chunk-*.parquet")
    written = first.stat().st_mtime_ns
    assert race_pairs(PICKED, CARELESS, 4, tmp_path / "stopped") == whole
    assert first.stat().st_mtime_ns == written
    assert sorted(open_races(tmp_path / "stopped").rows["seed"].to_pylist()) == [1, 2, 3]


# -- the records as they were before the races were made faster (tests/race_reference.py) --------

@pytest.mark.parametrize("case", list(CASES))
def test_races_play_the_reference_records_first_board(case):
    pair, setup, _ = CASES[case]
    assert [record_data(r) for r in play_races(pair, setup, 2)] == REFERENCE[case][:2]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_races_play_every_reference_record(case):
    assert play_case(case, jobs=2) == REFERENCE[case]
