"""The race-table players: what a seat sees, and that every play is a legal, reproducible game
that never depends on a card the player has not seen."""
import dataclasses
import random

import pytest

from dsolve.klondike import api
from dsolve.klondike.deal import Deal
from dsolve.klondike.deals import make_deal
from dsolve.klondike.moves import (REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN, WASTE_TO_FOUNDATION,
                          WASTE_TO_TABLEAU, Move)
from dsolve.players.careless import CarelessPlayer, play_careless
from dsolve.players.hidden import (HiddenOptions, HiddenPlayer, actions, committing, layout_key, play_hidden,
                                   safe_home, same_up_to_order, shuffles, walk_to, walks)
from dsolve.players.view import Seat, SeatView
from dsolve.klondike.referee import Game, replay
from dsolve.rules import preset

RACE, STANDARD = preset("race"), preset("standard")
QUICK = HiddenOptions(samples=4, max_nodes=1000)


def hidden_cards(game: Game, view: SeatView) -> list[int]:
    """The true cards behind the view's hidden places, in the order view.world fills them."""
    return ([c for pile, down in zip(game.piles, game.face_down) for c in pile[:down]]
            + [c for c, seen in zip(game.stock, view.stock) if seen is None])


@pytest.mark.parametrize("rules", [RACE, STANDARD])
def test_view_is_the_position_less_its_hidden_cards(rules):
    rng = random.Random(5)
    for seed in (2, 3, 7):
        seat = Seat(make_deal("solvitaire", seed), rules)
        for _ in range(150):
            view, game = seat.view(), seat._game
            fill = hidden_cards(game, view)
            assert sorted(fill) == view.unseen()
            assert view.world(fill) == game.position()
            assert view.legal_moves() == game.legal_moves()
            if not view.legal_moves():
                break
            seat.play(rng.choice(view.legal_moves()))


def test_the_view_exposes_no_hidden_card():
    """The view holds cards only where they are face up or were turned, and nothing else that
    could lead to the true game."""
    seat, rng = Seat(make_deal("solvitaire", 4), RACE), random.Random(1)
    for _ in range(40):
        seat.play(rng.choice(seat.view().legal_moves()))
    view, game = seat.view(), seat._game
    assert [f.name for f in dataclasses.fields(view)] == [
        "shape", "rules", "face_up", "face_down", "stock", "waste", "foundations", "passes_used"]
    hidden = set(hidden_cards(game, view))
    assert hidden and len(hidden) == view.hidden_places
    shown = [c for pile in view.face_up for c in pile] + [c for c in view.stock if c is not None] + list(view.waste)
    assert not hidden & set(shown)
    assert view.face_down == tuple(game.face_down)
    assert all(isinstance(x, int) for x in view.face_down + view.foundations)
    # Unturned stock cards are unknown places, never cards.
    assert view.stock.count(None) == sum(1 for c, s in zip(game.stock, view.stock) if s is None) > 0


def shuffled_hidden(deal: Deal, rng: random.Random) -> Deal:
    """``deal`` with its face-down cards and its stock shuffled among themselves: a deal that
    looks the same to a seat that has seen nothing yet."""
    cards = [c for pile, down in zip(deal.tableau, deal.face_down) for c in pile[:down]] + list(deal.stock)
    rng.shuffle(cards)
    it = iter(cards)
    piles = [tuple(next(it) for _ in range(down)) + pile[down:] for pile, down in zip(deal.tableau, deal.face_down)]
    return Deal(piles, tuple(it), deal.shape, deal.face_down)


def lockstep(player_a, player_b, deal_a: Deal, deal_b: Deal, rules) -> int:
    """Play both players on their deals while their views agree; the moves must be the same.
    Returns how many moves were compared."""
    seat_a, seat_b, compared = Seat(deal_a, rules), Seat(deal_b, rules), 0
    while seat_a.view() == seat_b.view() and not seat_a.won:
        move_a, move_b = player_a.choose(seat_a.view()), player_b.choose(seat_b.view())
        assert move_a == move_b
        if move_a is None:
            break
        seat_a.play(move_a)
        seat_b.play(move_b)
        compared += 1
    return compared


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_hidden_player_never_reads_an_unseen_card(seed):
    """Changing only cards the player has not seen changes none of its moves until it sees a
    card that differs (without the stock peek, so that its first moves are votes)."""
    deal = make_deal("solvitaire", seed)
    options = dataclasses.replace(QUICK, peek=False)
    other = shuffled_hidden(deal, random.Random(seed))
    assert other != deal
    compared = lockstep(HiddenPlayer(RACE, random.Random(9), options),
                        HiddenPlayer(RACE, random.Random(9), options), deal, other, RACE)
    assert compared >= 1


def test_careless_player_never_reads_an_unseen_card():
    deal = make_deal("solvitaire", 6)
    other = shuffled_hidden(deal, random.Random(6))
    assert lockstep(CarelessPlayer(random.Random(3)), CarelessPlayer(random.Random(3)), deal, other, RACE) >= 1


@pytest.mark.parametrize("rules", [RACE, STANDARD])
@pytest.mark.parametrize("seed", [2, 4, 9])
def test_every_play_replays_through_the_referee(rules, seed):
    deal = make_deal("solvitaire", seed)
    for play in (play_hidden(deal, rules, 0, QUICK), play_careless(deal, rules, 0)):
        again = replay(deal, rules, play.moves)
        assert again.error is None and again.steps == len(play.moves)
        assert again.won == play.won and play.ended in ("won", "no legal move", "gave up", "move limit")


def test_plays_are_reproducible_and_depend_on_the_sampling_seed():
    deal = make_deal("solvitaire", 2)
    assert play_hidden(deal, RACE, 1, QUICK) == play_hidden(deal, RACE, 1, QUICK)
    assert play_careless(deal, RACE, 1) == play_careless(deal, RACE, 1)
    assert len({play_careless(deal, RACE, k).moves for k in range(4)}) > 1


def test_the_stock_is_seen_first_under_unlimited_passes():
    play = play_hidden(make_deal("solvitaire", 2), RACE, 0, QUICK)
    assert [str(m) for m in play.moves[:25]] == ["turn"] * 24 + ["redeal"]


def test_safe_home_and_committing_moves():
    deal = make_deal("solvitaire", 2)
    view = Seat(deal, RACE).view()
    ace = next((m for m in view.legal_moves() if m.kind == TABLEAU_TO_FOUNDATION and m.card < 4), None)
    if ace is not None:
        assert safe_home(view, view.legal_moves()) is not None
    king_home = Move(TABLEAU_TO_FOUNDATION, src=0, card=48)  # a king cannot be safe on empty foundations
    assert safe_home(view, [king_home]) is None
    assert not committing(view, Move("turn"))
    assert committing(Seat(deal, preset("casino")).view(), Move("turn"))


def test_safe_home_judges_as_the_core_with_worrying_back():
    """K♠ with hearts complete, diamonds at the queen and clubs at 9: within one rank of both
    red foundations, safe without worrying back; with it, not (clubs more than three behind: the
    king may be needed to hold the red queen taken back, for the jack of clubs on the 10)."""
    view = Seat(make_deal("solvitaire", 2), STANDARD).view()
    king_of_spades = Move(TABLEAU_TO_FOUNDATION, src=0, card=50)
    view = dataclasses.replace(view, foundations=(9, 13, 12, 12))
    assert safe_home(view, [king_of_spades]) is None
    no_worry = dataclasses.replace(view, rules=dataclasses.replace(STANDARD, worry_back=False))
    assert safe_home(no_worry, [king_of_spades]) == king_of_spades
    assert safe_home(dataclasses.replace(view, foundations=(10, 13, 12, 12)), [king_of_spades]) == king_of_spades


def peeked_view(seed: int, rules) -> Seat:
    """A seat whose player has turned the whole stock once and turned the waste over."""
    seat = Seat(make_deal("solvitaire", seed), rules)
    while None in seat.view().stock:
        seat.play(Move(TURN) if seat.view().stock else Move(REDEAL))
    if seat.view().waste:
        seat.play(Move(REDEAL))
    return seat


@pytest.mark.parametrize("rules", [RACE, STANDARD])
@pytest.mark.parametrize("seed", [2, 5])
def test_a_talon_card_is_one_action_wherever_the_walk_begins(rules, seed):
    """Once the stock is seen under unlimited passes, the actions are the moves legal somewhere
    round the talon (no stock moves), and walking to one gives the same position from every
    point of the walk."""
    seat = peeked_view(seed, rules)
    view = seat.view()
    assert walks(view) and not walks(Seat(make_deal("solvitaire", seed), rules).view())
    options = actions(view, view.legal_moves())
    assert not [m for m in options if m.kind in (TURN, REDEAL)]
    game, round_the_talon = Game(view.world(view.unseen()), rules), set()
    for _ in range(len(game.stock) + len(game.waste) + 1):
        round_the_talon.update(m for m in game.legal_moves() if m.kind not in (TURN, REDEAL))
        game.apply(Move(TURN) if game.stock else Move(REDEAL))
    assert set(options) == round_the_talon
    talon_moves = [m for m in options if m.kind in (WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU)]
    assert len(talon_moves) > 1
    for move in talon_moves:
        ends = set()
        start = Game(view.world(view.unseen()), rules)
        for turns in range(len(start.stock) + 1):
            g = start.copy()
            for _ in range(turns):
                g.apply(Move(TURN) if g.stock else Move(REDEAL))
            walk_to(g, move)
            ends.add(g.key())
        assert len(ends) == 1
    # Turning alone keeps the ring key.
    before = layout_key(Game(view.world(view.unseen()), rules), walk=True)
    seat.play(Move(TURN))
    after = seat.view()
    assert layout_key(Game(after.world(after.unseen()), rules), walk=True) == before


def test_shuffles_are_not_actions():
    view = SeatView(make_deal("solvitaire", 2).shape, RACE, ((), (51, 46), (10,), (), (), (), ()),
                    (0, 0, 3, 0, 0, 0, 0), (), (), (0, 0, 0, 0), 1)
    whole_king = Move(TABLEAU_TO_TABLEAU, src=1, dst=0, count=2, card=51)
    assert shuffles(view, whole_king)
    assert not shuffles(view, Move(TABLEAU_TO_TABLEAU, src=1, dst=0, count=1, card=46))


def test_actions_leading_to_the_same_position_up_to_pile_order_are_one_choice():
    piles = ((), (9, 51), (10,), (), (20,), (30,), (40,))
    stock = tuple(c for c in range(52) if c not in {9, 51, 10, 20, 30, 40})
    game = Game(Deal(piles, stock, make_deal("solvitaire", 2).shape, (0, 1, 0, 0, 0, 0, 0)), RACE)

    def key(move):
        after = game.copy()
        after.apply(move)
        return same_up_to_order(layout_key(after, walk=False))

    into_first, into_fourth = (Move(TABLEAU_TO_TABLEAU, src=1, dst=d, count=1, card=51) for d in (0, 3))
    assert key(into_first) == key(into_fourth)
    assert key(into_first) != same_up_to_order(layout_key(game, walk=False))


def open_deal(seed: int) -> Deal:
    """Seed ``seed``'s deal with every tableau card face up."""
    deal = make_deal("solvitaire", seed)
    return Deal(deal.tableau, deal.stock, deal.shape, (0,) * len(deal.tableau))


@pytest.mark.parametrize("rules", [RACE, STANDARD])
def test_with_nothing_hidden_the_player_wins_every_winnable_deal(rules):
    """With every tableau card face up, every world is the true game once the stock is seen:
    scoring each committing move in the worlds must then never walk into a loss."""
    played = 0
    for seed in range(2, 8):
        deal = open_deal(seed)
        if api.solve(deal, rules, max_nodes=200_000).verdict != "winnable":
            continue
        play = play_hidden(deal, rules, 0, HiddenOptions(samples=2))
        assert play.won, (seed, play.ended)
        played += 1
    assert played >= 3
