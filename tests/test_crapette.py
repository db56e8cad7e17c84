"""Crapette: each rule of the Crapette rules page (crapette.txt) on a small hand-built position,
the deal, seeded reproducibility, replay of recorded rounds, the CLI, and invariants on many random
rounds (every move also checked against a plain re-statement of the rules written here)."""
import json
import random

import pytest
from click.testing import CliRunner

from dsolve.cli import main
from dsolve.crapette.game import (DISCARD, DRAW, FOUNDATION, HAND, OPP_RESERVE, OPP_WASTE, PASS, PLAY,
                                  RESERVE, TURN, WASTE, IllegalMove, Move, Round, Table, deal,
                                  first_player, position)
from dsolve.crapette.players import GreedyPlayer, PlannerPlayer, make_player, player_seed
from dsolve.crapette.rounds import (format_match, format_result, match_record, parse_players, play_match, play_out,
                                    play_round, play_rounds, replay_record, round_record, round_row, seatings)
from dsolve.crapette.rules import Options, kind_of, name
from dsolve.crapette.stats import counted, format_summary, rounds_per_match, summarize
from dsolve.errors import InputError
from dsolve.survey.stats import mean_interval


def names(cards):
    return [name(c) for c in cards]


def texts(table_or_round):
    return sorted(str(m) for m in table_or_round.legal_moves())


def play(rnd: Round, text: str) -> None:
    rnd.play_text(text)


# -- the deal and who starts --------------------------------------------------------------------

def test_deal_gives_each_seat_13_reserve_4_houses_35_draw_from_its_own_deck():
    t = deal(7)
    for seat in (0, 1):
        mine = set(range(seat * 52, seat * 52 + 52))
        assert len(t.reserve[seat]) == 13 and t.down[seat] == 12
        assert len(t.draw[seat]) == 35 and t.waste[seat] == []
        houses = t.houses[seat * 4:seat * 4 + 4]
        assert all(len(h) == 1 for h in houses)
        assert set(t.reserve[seat]) | set(t.draw[seat]) | {h[0] for h in houses} == mine
    assert sorted(t.all_cards()) == list(range(104)) and not any(t.found)


def test_deal_is_python_random_shuffling_deck_a_then_deck_b():
    import random as r
    rng = r.Random(42)
    a, b = list(range(52)), list(range(52, 104))
    rng.shuffle(a)
    rng.shuffle(b)
    t = deal(42)
    assert t.reserve[0] == a[:13] and [h[0] for h in t.houses[:4]] == a[13:17]
    assert t.draw[0][-1] == a[17] and t.draw[1] == b[17:][::-1]


def test_lowest_reserve_card_starts_then_first_house_card():
    def lay(res_a, res_b, houses_a, houses_b):
        houses = [[kind_of(c)] for c in (houses_a + " " + houses_b).split()]
        return first_player([[kind_of(res_a)], [kind_of(res_b)]], houses)

    assert lay("3C", "9H", "KS KS KS KS", "AD AD AD AD") == 0
    assert lay("9C", "3H", "AS AS AS AS", "KD KD KD KD") == 1
    assert lay("5C", "5H", "7S 2S 2S 2S", "6D KD KD KD") == 1  # equal reserve: the first house
    assert lay("5C", "5H", "6S 2S 2S 2S", "6D KD KD KD") == 0  # then the second house
    assert lay("5C", "5H", "6S KS KS KS", "6D KD KD KD") == 0  # all equal: seat A


@pytest.mark.parametrize("bad", ["-1", "x", "1.5", ""])
def test_bad_seeds_are_input_errors(bad):
    with pytest.raises(InputError):
        Round.deal(bad)


# -- the rules on hand-built positions ---------------------------------------------------------

EIGHT = ("KS", "KH", "KC", "KD") * 2  # kings: only queens go on them


def small(options=Options(), **piles) -> Round:
    """A round on a position without the other cards (only the rule under test matters)."""
    piles.setdefault("houses", EIGHT)
    piles.setdefault("draw", ("4C", "4H"))
    return Round(position(options, fill=False, **piles))


def test_houses_build_down_in_alternating_colour():
    rnd = small(reserve=("2S 8H", "3D"), houses=("9C", "9H", "7S", "KS", "", "", "", "")[:4] + EIGHT[4:])
    assert "8H res>h1" in texts(rnd)          # red 8 on black 9
    assert "8H res>h2" not in texts(rnd)      # not on red 9
    assert "8H res>h3" not in texts(rnd)      # not upward
    with pytest.raises(IllegalMove, match="8H res>h2"):
        rnd.play(Move(PLAY, rnd.table.reserve[0][-1], RESERVE, 1))
    play(rnd, "8H res>h1")
    assert names(rnd.table.houses[0]) == ["9C", "8H"]


def test_foundations_start_with_an_ace_and_go_up_in_suit_and_go_first():
    rnd = small(reserve=("2S 2H", "3D"), houses=("9S AH", "3C") + EIGHT[2:])
    assert texts(rnd) == ["AH h1>found"]  # a card that can go home must go first
    with pytest.raises(IllegalMove, match="foundation must go first"):
        play(rnd, "2H res>h2")
    play(rnd, "AH h1>found")
    assert texts(rnd) == ["2H res>found"]
    play(rnd, "2H res>found")
    assert [names(f) for f in rnd.table.found if f] == [["AH", "2H"]]
    assert "2S res>found" not in texts(rnd)  # 2S: no ace of spades yet


def test_loading_the_opponent_same_colour_one_rank_up_or_down():
    # the page's example: on a JD, a 10 or a Q of diamonds or hearts
    rnd = small(reserve=("2C 10H", "4S JD"), waste=("", "QC"))
    assert "10H res>opp-res" in texts(rnd)
    rnd = small(reserve=("2C QH", "4S JD"))
    assert "QH res>opp-res" in texts(rnd)
    for card in ("10C", "JH", "9H", "8D"):
        rnd = small(reserve=(f"2C {card}", "4S JD"))
        assert f"{card} res>opp-res" not in texts(rnd), card
    # the opponent's waste top takes loads too; the own waste and reserve never do
    rnd = small(reserve=("2C JS", "4D"), waste=("QS", "10C"))
    assert "JS res>opp-waste" in texts(rnd)
    assert not any(m.dst == WASTE for m in rnd.legal_moves() if m.kind == PLAY)


def test_loading_by_suit_is_an_option():
    suit = Options(load_match="suit")
    assert "10H res>opp-res" not in texts(small(suit, reserve=("2C 10H", "4S JD")))
    assert "10D res>opp-res" in texts(small(suit, reserve=("2C 10D", "4S JD")))


def test_house_tops_may_be_loaded_unless_the_option_says_no():
    houses = ("10H",) + EIGHT[1:]
    assert "10H h1>opp-res" in texts(small(reserve=("2C", "4S JD"), houses=houses))
    assert "10H h1>opp-res" not in texts(small(Options(load_from_houses=False), reserve=("2C", "4S JD"),
                                               houses=houses))


def test_the_reserve_top_is_played_first_when_it_can_be():
    houses = ("9C", "8D") + EIGHT[2:]
    rnd = small(reserve=("3C 8H", "2S"), houses=houses)
    # 8H onto 9C must come before the house move 8D > 9C and before drawing
    assert texts(rnd) == ["8H res>h1"]
    with pytest.raises(IllegalMove, match="reserve top 8H can be played and must be played first"):
        play(rnd, "8D h2>h1")
    # option: only before the next draw
    loose = small(Options(reserve_first=False), reserve=("3C 8H", "2S"), houses=houses)
    assert texts(loose) == ["8D h2>h1", "8H res>h1"]
    with pytest.raises(IllegalMove, match="no draw while the reserve top"):
        loose.play(Move(DRAW, loose.table.draw[0][-1], 10, HAND))


def test_the_next_reserve_card_is_turned_up_when_the_top_is_played():
    rnd = Round(position(reserve=("5S 4C 3C 8H", "2S"), houses=("9C",) + EIGHT[1:],
                         draw=("4D", "4H"), fill=False, down=(3, 0)))
    play(rnd, "8H res>h1")
    assert rnd.table.down[0] == 2 and name(rnd.table.reserve[0][-1]) == "3C"


def test_a_drawn_card_is_played_if_it_can_be_else_it_goes_to_the_waste_and_the_turn_ends():
    rnd = small(reserve=("2C", "2H"), houses=("9C",) + EIGHT[1:], draw=("7H 8H", "4H"))
    assert texts(rnd) == ["draw 8H"]
    play(rnd, "draw 8H")
    assert texts(rnd) == ["8H hand>h1"]  # must be played: no discard, no other move
    with pytest.raises(IllegalMove, match="drawn 8H must be played"):
        rnd.play(Move(DISCARD, rnd.table.hand, HAND, WASTE))
    play(rnd, "8H hand>h1")
    play(rnd, "draw 7H")
    assert texts(rnd) == ["discard 7H"]
    play(rnd, "discard 7H")
    assert rnd.turn == 1 and rnd.turns == 1 and names(rnd.table.waste[0]) == ["7H"]


def test_a_drawn_card_that_can_go_home_goes_home():
    rnd = small(reserve=("3S", "2H"), houses=("2D",) + EIGHT[1:], draw=("AS", "4H"), found="AC")
    play(rnd, "draw AS")
    assert texts(rnd) == ["AS hand>found"]


def test_the_waste_is_turned_over_when_the_draw_pile_is_empty():
    rnd = small(reserve=("2C", "9D"), houses=EIGHT, draw=("", "4H"), waste=("7S 6S", ""))
    # the waste top 6S fits nowhere (kings in the houses, 9D on B's reserve)
    assert texts(rnd) == ["turn"]
    play(rnd, "turn")  # ends the turn
    assert rnd.turn == 1 and names(rnd.table.draw[0]) == ["6S", "7S"]  # 7S, discarded first, is drawn first
    keep = small(Options(turn_ends_turn=False), reserve=("2C", "9D"), draw=("", "4H"), waste=("7S 6S", ""))
    play(keep, "turn")
    assert keep.turn == 0 and texts(keep) == ["draw 7S"]


def test_the_waste_top_is_played_only_once_the_draw_pile_is_empty_unless_the_option_says_no():
    # A's waste top 8H fits on 9C (h1), onto B's reserve top 7D and B's waste top 9H; 6S under it
    # fits nowhere; A's reserve top 2C fits nowhere
    piles = dict(reserve=("2C", "3S 7D"), houses=("9C",) + EIGHT[1:], waste=("6S 8H", "9H"))
    plays = ["8H waste>h1", "8H waste>opp-res", "8H waste>opp-waste"]
    rnd = small(draw=("", "4C"), **piles)
    assert texts(rnd) == sorted(plays + ["turn"])
    play(rnd, "8H waste>h1")
    assert names(rnd.table.houses[0]) == ["9C", "8H"] and names(rnd.table.waste[0]) == ["6S"]
    assert texts(rnd) == ["8H h1>opp-res", "8H h1>opp-waste", "turn"] and rnd.turn == 0  # 6S fits nowhere
    assert texts(small(Options(waste_playable=False), draw=("", "4C"), **piles)) == ["turn"]
    for options in (Options(), Options(waste_playable=False)):  # a draw pile left: never from the waste
        assert texts(small(options, draw=("5D", "4C"), **piles)) == ["draw 5D"]
    # a waste top that can go home must go first, as any card
    home = small(reserve=("2C", "3S 7D"), draw=("", "4C"), waste=("7S 2H", ""), found="AH")
    assert texts(home) == ["2H waste>found"]
    play(home, "2H waste>found")
    assert [names(f) for f in home.table.found if f] == [["AH", "2H"]]
    # playing the last waste card with nothing else left goes out
    out = small(reserve=("", "3S 7D"), houses=("9C",) + EIGHT[1:], draw=("", "4C"), waste=("8H", ""))
    play(out, "8H waste>h1")
    assert out.result.end == "out" and out.result.winner == 0


def test_with_nothing_to_draw_or_turn_the_player_passes():
    rnd = small(reserve=("2C", "9D"), draw=("", "4H"))
    assert texts(rnd) == ["pass"]
    play(rnd, "pass")
    assert rnd.turn == 1


def test_an_emptied_house_is_filled_at_once_from_the_own_reserve():
    houses = ("9C", "8H") + EIGHT[2:]
    rnd = small(Options(reserve_first=False), reserve=("5C 3S", "4D"), houses=houses)
    play(rnd, "8H h2>h1")
    assert texts(rnd) == ["3S res>h2"]  # the only legal move
    with pytest.raises(IllegalMove, match="h2 was emptied and must be filled"):
        play(rnd, "draw 4H")
    play(rnd, "3S res>h2")
    assert names(rnd.table.houses[1]) == ["3S"] and rnd.table.fill == -1


def test_without_a_reserve_the_house_stays_empty_and_takes_any_card_or_none():
    houses = ("9C", "8H") + EIGHT[2:]
    rnd = small(reserve=("", "4D"), houses=houses, draw=("7H", "4H"))
    play(rnd, "8H h2>h1")
    assert rnd.table.houses[1] == [] and "draw 7H" in texts(rnd)
    play(rnd, "draw 7H")
    assert "7H hand>h2" in texts(rnd)
    none = small(Options(empty_house="none"), reserve=("", "4D"), houses=houses, draw=("7H", "4H"))
    play(none, "8H h2>h1")
    play(none, "draw 7H")
    assert texts(none) == ["discard 7H"]


def test_going_out_ends_the_round_and_scores_30_plus_cards_left():
    # A's last card, 8H, goes on 9C; B holds 3 reserve cards, 4 draw cards, 2 waste cards
    rnd = small(reserve=("8H", "2S 3S 4S"), houses=("9C",) + EIGHT[1:], draw=("", "5C 6C 7C 8C"),
                waste=("", "AD 2D"))
    play(rnd, "8H res>h1")
    assert rnd.result.end == "out" and rnd.result.winner == 0
    assert rnd.result.points == (30 + 2 * 3 + 4 + 2, 0)
    assert rnd.legal_moves() == []
    with pytest.raises(IllegalMove, match="round is over"):
        play(rnd, "pass")


def stalled(extra_b: str) -> Round:
    # houses of 2s (only aces would go on them, and there are none); A's cards black, B's red, so
    # no card can be loaded either: every turn is a draw and a discard
    return small(reserve=("5C", "9H"), houses=("2C", "2H", "2S", "2D") * 2,
                 draw=("KS 7S", "QD 4H" + extra_b))


def test_a_stalemate_is_found_once_both_players_went_through_their_cards_unchanged():
    rnd = stalled("")
    while rnd.result is None:
        rnd.play(rnd.legal_moves()[0])
    assert rnd.result.end == "stalemate" and rnd.result.winner == -1
    assert rnd.result.points == (0, 0)  # 2 + 2 each: equal, nobody scores
    assert all(rnd.draws[p] >= 2 for p in (0, 1)) and rnd.turns < 20
    rnd = stalled(" 6D")
    while rnd.result is None:
        rnd.play(rnd.legal_moves()[0])
    assert rnd.result.left == (4, 5) and rnd.result.points == (1, 0)  # the lower total earns the difference


def test_a_round_running_too_long_ends_at_the_turn_limit():
    rnd = Round(deal(3, Options(max_turns=5)))
    rng = random.Random(0)
    while rnd.result is None:
        rnd.play(rng.choice(rnd.legal_moves()))
    assert rnd.turns <= 5
    if rnd.result.end != "out":
        assert rnd.result.end == "turn limit" and rnd.turns == 5


def test_options_parse_and_reject_bad_values():
    assert Options.parse("load_match=suit,reserve_first=no,max_turns=9") == Options(
        load_match="suit", reserve_first=False, max_turns=9)
    assert Options.parse(str(Options(empty_house="none"))) == Options(empty_house="none")
    assert Options().waste_playable and "waste_playable=yes" in str(Options())
    assert Options.parse("waste_playable=no") == Options(waste_playable=False)
    for bad in ("load_match=rank", "reserve_first=maybe", "colour=yes", "max_turns=0", "target=x", "target=²",
                "waste_playable=maybe"):
        with pytest.raises(InputError):
            Options.parse(bad)
    with pytest.raises(InputError):
        parse_players("greedy,bogus")
    assert parse_players("search") == ("search", "search")


# -- a plain re-statement of the rules, to check the engine's moves against ----------------------

def rank(c):
    return (c % 52) // 4


def plain_moves(t: Table) -> set:
    """Every legal move by the page's rules, written out directly (no shared tables)."""
    o = t.options
    p, q = t.turn, 1 - t.turn

    def onto_house(c, h, src):
        pile = t.houses[h]
        if h == src:
            return False
        if not pile:
            return o.empty_house == "any" and not (src < 8 and len(t.houses[src]) == 1)
        return rank(pile[-1]) == rank(c) + 1 and pile[-1] % 2 != c % 2

    def load(c, pile):
        if not pile:
            return False
        same = (pile[-1] % 4 == c % 4) if o.load_match == "suit" else (pile[-1] % 2 == c % 2)
        return same and abs(rank(pile[-1]) - rank(c)) == 1

    def home(c):
        return any((not f and rank(c) == 0 and i // 2 == c % 4) or (f and f[-1] % 4 == c % 4 and rank(f[-1]) == rank(c) - 1)
                   for i, f in enumerate(t.found))

    def plays(c, src, loads=True):
        out = {(PLAY, c, src, h) for h in range(8) if onto_house(c, h, src)}
        if loads and load(c, t.reserve[q]):
            out.add((PLAY, c, src, OPP_RESERVE))
        if loads and load(c, t.waste[q]):
            out.add((PLAY, c, src, OPP_WASTE))
        return out

    if t.fill >= 0:
        return {(PLAY, t.reserve[p][-1], RESERVE, t.fill)}
    if t.hand >= 0:
        if home(t.hand):
            return {(PLAY, t.hand, HAND, FOUNDATION)}
        return plays(t.hand, HAND) or {(DISCARD, t.hand, HAND, WASTE)}
    res = t.reserve[p]
    waste = t.waste[p][-1] if o.waste_playable and t.waste[p] and not t.draw[p] else None
    found = {(PLAY, pile[-1], h, FOUNDATION) for h, pile in enumerate(t.houses) if pile and home(pile[-1])}
    if res and home(res[-1]):
        found.add((PLAY, res[-1], RESERVE, FOUNDATION))
    if waste is not None and home(waste):
        found.add((PLAY, waste, WASTE, FOUNDATION))
    if found:
        return found
    from_reserve = plays(res[-1], RESERVE) if res else set()
    if from_reserve and o.reserve_first:
        return from_reserve
    moves = set(from_reserve)
    for h, pile in enumerate(t.houses):
        if pile:
            moves |= plays(pile[-1], h, o.load_from_houses)
    if waste is not None:
        moves |= plays(waste, WASTE)
    if not from_reserve:
        if t.draw[p]:
            moves.add((DRAW, t.draw[p][-1], 10, HAND))
        elif t.waste[p]:
            moves.add((TURN, -1, WASTE, 10))
        else:
            moves.add((PASS, -1, -1, -1))
    return moves


def foundation_ok(t: Table) -> bool:
    return all(all(c % 4 == pile[0] % 4 and rank(c) == i for i, c in enumerate(pile)) and i // 2 == pile[0] % 4
               for i, pile in enumerate(t.found) if pile)


OPTION_SETS = [Options(), Options(load_match="suit", reserve_first=False),
               Options(load_from_houses=False, empty_house="none", turn_ends_turn=False, waste_playable=False)]


def check_random_rounds(seeds, options, plain_every: int) -> int:
    moves_checked = 0
    for seed in seeds:
        rnd = Round.deal(seed, options)
        rng = random.Random(seed)
        heights = [0] * 8
        while rnd.result is None:
            t = rnd.table
            legal = rnd.legal_moves()
            if seed % plain_every == 0:
                assert {tuple(m) for m in legal} == plain_moves(t), (seed, len(rnd.moves))
                moves_checked += 1
            move = rng.choice(legal)
            seat, turns = rnd.turn, rnd.turns
            rnd.play(move)
            assert sorted(t.all_cards()) == list(range(104))
            new = [len(f) for f in t.found]
            assert all(n >= h for n, h in zip(new, heights))  # no foundation ever goes down
            assert sum(new) - sum(heights) == (move.kind == PLAY and move.dst == FOUNDATION)
            heights = new
            assert foundation_ok(t)
            assert all(0 <= t.down[s] <= max(0, len(t.reserve[s]) - 1) for s in (0, 1))
            if rnd.result is None and move.kind in (DISCARD, PASS):
                assert rnd.turn == 1 - seat and rnd.turns == turns + 1
        assert rnd.result.end in ("out", "stalemate", "turn limit")
        if rnd.result.end == "out":
            assert rnd.table.is_out(rnd.result.winner)
    return moves_checked


@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "suit-loose", "strict"])
def test_random_rounds_keep_every_card_and_follow_the_rules(options):
    assert check_random_rounds(range(1, 401), options, plain_every=8) > 10000


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "suit-loose", "strict"])
def test_many_random_rounds_keep_every_card_and_follow_the_rules(options):
    check_random_rounds(range(1000, 21000), options, plain_every=1)


def test_an_illegal_move_changes_nothing():
    rnd = Round.deal(5)
    before = rnd.table.key()
    with pytest.raises(IllegalMove):
        rnd.play(Move(PLAY, 0, RESERVE, FOUNDATION) if rnd.table.reserve[rnd.turn][-1] != 0
                 else Move(PLAY, 1, RESERVE, FOUNDATION))
    assert rnd.table.key() == before and rnd.moves == []


# -- players, reproducibility, records ----------------------------------------------------------

@pytest.mark.parametrize("players", [("random", "random"), ("greedy", "random"), ("search", "greedy"),
                                     ("planner", "search")])
def test_the_same_seed_gives_the_same_round(players):
    for seed in (1, 2):
        a, b = play_round(seed, players), play_round(seed, players)
        assert a.moves == b.moves and a.result == b.result


def test_players_play_only_legal_moves_and_search_beats_random():
    rows = play_rounds(range(1, 11), seatings(("search", "random")))
    search_wins = sum(r["winner"] >= 0 and (r["player_a"], r["player_b"])[r["winner"]] == "search" for r in rows)
    assert search_wins >= 15


def two_moves_out() -> Round:
    """A holds one card, 8H, the last of its draw pile; it fits on 9C in h1, under 5S. Moving 5S
    onto 6D (h2) bares 9C, and the drawn 8H then goes on it: A is out. Nothing else plays: B's
    cards (reserve 2S, draw 4C) fit nowhere, the other houses are kings."""
    return small(reserve=("", "2S"), houses=("9C 5S", "6D") + EIGHT[2:], draw=("8H", "4C"))


def test_the_planner_makes_the_house_move_that_lets_its_last_card_out_and_greedy_does_not():
    rnd = play_out(two_moves_out(), [PlannerPlayer("a"), GreedyPlayer("b")])
    assert [str(m) for m in rnd.moves] == ["5S h1>h2", "draw 8H", "8H hand>h1"]
    assert rnd.result.end == "out" and rnd.result.winner == 0
    stuck = play_out(two_moves_out(), [GreedyPlayer("a"), GreedyPlayer("b")])
    assert stuck.result.end == "stalemate" and "5S h1>h2" not in map(str, stuck.moves)


def test_planner_beats_greedy_with_seats_swapped():
    rows = play_rounds(range(1, 41), seatings(("planner", "greedy")))
    pairing = summarize(rows)["pairings"][0]
    assert pairing["players"] == ["greedy", "planner"] and pairing["seats_swapped"]
    assert pairing["planner"]["share"] > 0.5


def test_greedy_beats_random_with_seats_swapped():
    rows = play_rounds(range(1, 61), seatings(("greedy", "random")))
    summary = summarize(rows)
    pairing = summary["pairings"][0]
    assert pairing["players"] == ["greedy", "random"] and pairing["seats_swapped"]
    assert pairing["greedy"]["low"] > 0.6


def test_means_have_intervals_and_p90_and_one_match_or_none_no_interval():
    rows = [{"seed": k, "player_a": "greedy", "player_b": "greedy", "winner": 0, "first_player": 0, "moves": 10 * k,
             "turns": k, "points_a": 100, "points_b": 0} for k in range(1, 6)]
    s = summarize(rows)
    low, high = mean_interval([10, 20, 30, 40, 50])
    assert s["moves"] == {"n": 5, "mean": 30.0, "low": low, "high": high, "p90": 50}
    assert s["points"]["p90"] == 100 and s["points"]["low"] == s["points"]["high"] == 100.0
    # 3 rounds of 100 points make the one match; the 2 rounds left over make none
    assert s["rounds_per_match"] == {"n": 1, "mean": 3.0, "low": None, "high": None, "p90": 3, "target": 300}
    text = format_summary(s)
    assert "moves per round: mean 30.0, p90 50\n" in text
    assert "rounds per match to 300: mean 3.00, p90 3 (1 match of consecutive rounds)" in text
    s = summarize(rows[:2])
    assert s["rounds_per_match"] == {"n": 0, "mean": None, "low": None, "high": None, "p90": None, "target": 300}
    assert "rounds per match to 300: - (0 matches of consecutive rounds)" in format_summary(s)
    empty = summarize([])
    assert empty["moves"] == {"n": 0, "mean": None, "low": None, "high": None, "p90": None}
    assert "moves per round: -\n" in format_summary(empty)


def test_a_recorded_round_replays_and_a_changed_one_does_not():
    for seed, players in ((3, ("greedy", "random")), (4, ("random", "random")), (5, ("search", "greedy")),
                          (6, ("planner", "greedy"))):
        rnd = play_round(seed, players)
        record = json.loads(json.dumps(round_record(rnd, players)))
        again = replay_record(record)
        assert again.moves == rnd.moves and again.result == rnd.result
    moves = record["moves"]
    i = next(i for i, m in enumerate(moves) if m.startswith("draw"))
    bad = {**record, "moves": moves[:i] + moves[i + 1:]}
    with pytest.raises(IllegalMove, match=f"move {i + 1}"):
        replay_record(bad)
    with pytest.raises(IllegalMove, match="record says"):
        replay_record({**record, "moves": moves[:-1]})
    # a record written before the waste could be played (no waste_playable in its options) replays so
    old = play_round(7, ("greedy", "greedy"), Options(waste_playable=False))
    assert any(m.src == WASTE for m in play_round(7, ("greedy", "greedy")).moves)  # the waste played: rounds differ
    record = round_record(old, ("greedy", "greedy"))
    record["options"] = record["options"].replace(",waste_playable=no", "")
    assert "waste" not in record["options"] and replay_record(record).result == old.result
    assert Options.recorded(str(Options())) == Options()


def test_a_match_runs_to_300_and_its_rounds_replay():
    match = play_match(9, ("greedy", "random"))
    assert max(match.totals) >= 300 and sorted(match.totals)[0] < 300 or len(match.rounds) == 1
    running = [0, 0]
    for k, rnd in enumerate(match.rounds):
        assert max(running) < 300
        running = [running[s] + rnd.result.points[s] for s in (0, 1)]
    assert running == match.totals
    record = match_record(match)
    assert replay_record(record["rounds"][-1]).result == match.rounds[-1].result


def test_rows_are_seed_major_under_each_seating_and_rounds_per_match_add_up():
    assert seatings(("greedy", "greedy")) == [("greedy", "greedy")]
    assert seatings(("greedy", "random")) == [("greedy", "random"), ("random", "greedy")]
    rows = play_rounds(range(1, 41), seatings(("greedy", "random")))
    assert [(r["seed"], r["player_a"]) for r in rows] == [(s, p) for s in range(1, 41) for p in ("greedy", "random")]
    assert rows[1] == round_row(play_round(1, ("random", "greedy")), ("random", "greedy"))
    counts = rounds_per_match(rows)
    assert sum(counts) <= 80 and all(c >= 1 for c in counts)
    assert all(r["points_a"] * r["points_b"] == 0 for r in rows)
    assert player_seed(1, 0) != player_seed(1, 1)
    with pytest.raises(InputError):
        make_player("nobody", "x")


# -- the command line ---------------------------------------------------------------------------

def run(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, ["crapette", *args], prog_name="dsolve")


def test_cli_play_prints_the_moves_and_the_score():
    result = run("play", "1")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("seed 1: A greedy, B greedy; B starts")
    assert lines[1] == f"rules: {Options()}" and "waste_playable=yes" in lines[1]
    assert "rules: " + str(Options(waste_playable=False)) in run("play", "1", "--rules", "waste_playable=no").stdout
    assert "goes out" in lines[-1] or "stalemate" in lines[-1]
    record = json.loads(run("play", "1", "--json").stdout)
    assert replay_record(record).result.points == tuple(record["result"]["points"])
    match = json.loads(run("play", "2", "--match", "--players", "greedy,random", "--json").stdout)
    assert max(match["totals"]) >= 300
    assert "rules' target points" in run("play", "--help").stdout


def test_reports_count_one_round_turn_move_and_match_in_the_singular():
    one = small(reserve=("8H", "2S"), houses=("9C",) + EIGHT[1:], draw=("", "5C"))
    one.play_text("8H res>h1")  # out at once: 0 turns, 1 move
    assert "goes out after 0 turns, 1 move:" in format_result(one, ("greedy", "greedy"))
    later = small(reserve=("2S", "8H"), houses=("9C",) + EIGHT[1:], draw=("5D", ""))
    for move in ("draw 5D", "discard 5D", "8H res>h1"):  # A's turn, then B goes out
        later.play_text(move)
    assert "B (greedy) goes out after 1 turn, 3 moves:" in format_result(later, ("greedy", "greedy"))
    match = play_match(9, ("greedy", "random"), Options(target=1))
    assert len(match.rounds) == 1 and format_match(match).endswith(" in 1 round")
    row = {"seed": 1, "player_a": "greedy", "player_b": "greedy", "winner": 0, "first_player": 0, "moves": 9,
           "turns": 1, "points_a": 40, "points_b": 0}
    assert "(1 match of consecutive rounds)" in format_summary(summarize([row], 30))
    assert counted(1, "turn") == "1 turn" and counted(2, "turn") == "2 turns"
    assert counted(0, "match", "matches") == "0 matches"


@pytest.mark.parametrize("args", [("play", "x"), ("play", "-3"), ("play", "1", "--players", "greedy,nobody"),
                                  ("play", "1", "--rules", "load_match=rank"),
                                  ("play", "1", "--players", "a,b,c"), ("play", "²"),
                                  ("play", "1", "--rules", "target=²"), ("play", "1", "--rules", "max_turns=٣")])
def test_cli_bad_input_is_one_line_and_exit_2(args):
    result = run(*args)
    assert result.exit_code == 2, result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dsolve: error: "), result.stderr
