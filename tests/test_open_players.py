"""The race players in the open race: taking the other tableau's top card onward (home, or to
free one of the seat's face-down cards), never in the locked race, never no move while a
progress move exists, reproducible, and blind to the cards a seat cannot see."""
import copy
import random
from dataclasses import replace

import pytest

from dsolve.cards import parse_card
from dsolve.players.hidden import HiddenOptions
from dsolve.races.players import PLAYERS, SeatAdapter, make_racer, progress_move, take_score
from dsolve.races.race import RaceSetup, play_race
from dsolve.races.table import FOUNDATION, LOCKED, OPEN, PLAY, RaceRules, Table, code_of
from dsolve.races.timing import Clock, play

QUICK_HIDDEN = HiddenOptions(samples=2, max_nodes=300)
TAKERS = ("careless", "hidden")


def c(owner: int, text: str) -> int:
    return code_of(owner, parse_card(text))


def table_with(variant: str, a: list[list[str]], b: list[list[str]], down: tuple[list[int], list[int]],
               win: str = "first") -> Table:
    """A table from seeds 1 and 2 whose piles are set by hand (``a``/``b``: cards bottom -> top,
    ``down``: face-down counts); the rest of each deck is its stock, in deck order."""
    t = Table.from_seeds((1, 2), RaceRules(variant, 1, win=win))
    for seat, piles in enumerate((a, b)):
        t.piles[seat] = [[c(seat, x) for x in pile] for pile in piles] + [[] for _ in range(7 - len(piles))]
        t.face_down[seat] = down[seat] + [0] * (7 - len(piles))
        used = {x for pile in t.piles[seat] for x in pile}
        t.stock[seat] = [code_of(seat, x) for x in range(52) if code_of(seat, x) not in used]
        t.waste[seat] = []
    return t


def choice(name: str, t: Table, seat: int = 0, seed: str = "s"):
    return make_racer(name, seed, QUICK_HIDDEN).choose(t.view(seat))


def home_position(variant: str = OPEN, win: str = "count", a_top: str = "QH") -> Table:
    """B's AH on top of B's one face-up pile (over a face-down card): A may send it home. A's pile
    KS and ``a_top``."""
    return table_with(variant, [["KS", a_top]], [["5C", "AH"]], ([1], [1]), win)


def free_position(variant: str = OPEN) -> Table:
    """A's 7H lies on a face-down card; B's 8C, which would take it, is under B's 5D; B's 6S takes
    the 5D."""
    return table_with(variant, [["2S", "7H"]], [["8C", "5D"], ["6S"]], ([1], [0, 0]))


@pytest.mark.parametrize("name", TAKERS)
def test_the_open_player_sends_the_other_top_card_home(name):
    t = home_position()
    move = choice(name, t)
    assert (move.src_side, move.dst_side, move.card) == (1, FOUNDATION, c(1, "AH"))
    assert choice(name + "-own", t).src_side != 1  # the old player leaves it


@pytest.mark.parametrize("name", TAKERS)
def test_first_out_wins_the_other_card_is_not_sent_home(name):
    """With win first, B's AH sent home is one card fewer for B to clear: A leaves it, even with
    its own 2H to follow it (with win count it sends it)."""
    for a_top in ("QH", "2H"):
        assert choice(name, home_position(win="first", a_top=a_top)).src_side != 1


@pytest.mark.parametrize("name", TAKERS)
def test_the_open_player_moves_the_other_top_card_to_free_its_own_face_down_card(name):
    t = free_position()
    move = choice(name, t)
    assert str(move) == "A b1>b2 5Db"
    t.apply(move)
    follow = choice(name, t)
    assert str(follow) == "A a1>b1 7Ha" and t.face_down[0][0] == 1  # the 7H goes over: 2S turned up
    assert choice(name + "-own", free_position()).src_side != 1


def test_the_score_weighs_home_freeing_own_pile_and_reveals():
    t = free_position()
    view = t.view(0)
    onto_b = next(m for m in view.legal if str(m) == "A b1>b2 5Db")
    assert take_score(view, onto_b) == 2
    t.face_down[1][0] = 1  # the 8C face down: taking the 5D would turn it up, freeing nothing seen
    view = t.view(0)
    assert take_score(view, next(m for m in view.legal if str(m) == "A b1>b2 5Db")) == -1
    assert choice("careless", t).src_side != 1
    t = home_position()
    view = t.view(0)
    home = next(m for m in view.legal if m.src_side == 1 and m.dst_side == FOUNDATION)
    assert take_score(view, home) == 3 - 1  # home, but B's 5C is turned up
    for a_top in ("QH", "2H"):  # (win first) one fewer for B to clear, and the reveal
        assert take_score(home_position(win="first", a_top=a_top).view(0), home) == -1 - 1
    for win, score in (("count", -2), ("first", -2 - 1)):  # 8H onto A's own 9C: a card to clear (and one
        t = table_with(OPEN, [["9C"]], [["9D", "8H"]], ([0], [0]), win)  # fewer for B)
        view = t.view(0)
        assert take_score(view, next(m for m in view.legal if str(m) == "A b1>a1 8Hb")) == score


@pytest.mark.parametrize("name", TAKERS)
def test_the_locked_player_never_reaches_for_the_other_tableau(name):
    for t in (home_position(LOCKED), free_position(LOCKED)):
        move = choice(name, t)
        assert move.kind != PLAY or (move.src_side == 0 and move.dst_side in (0, FOUNDATION))
        assert move == choice(name + "-own", t)


def test_in_the_locked_race_each_player_plays_as_its_own_variant_move_for_move():
    setup = RaceSetup(RaceRules(LOCKED, 3), players=("careless", "careless"))
    for seeds in ((1, 2), (3, 4), (5, 6)):
        new = play_race(seeds, setup, "b")
        old = play_race(seeds, replace(setup, players=("careless-own", "careless-own")), "b")
        assert new.moves == old.moves and new.times == old.times and new.winner == old.winner


class Watched:
    """A player whose chosen moves are kept (the moves the progress check plays for an idle seat
    are the engine's, not the player's)."""

    def __init__(self, player) -> None:
        self.player, self.chosen = player, []

    def choose(self, view):
        move = self.player.choose(view)
        self.chosen.append(move)
        return move


@pytest.mark.parametrize("win", ["first", "count"])
def test_the_open_players_take_the_other_cards_in_real_races(win):
    taken = {0: 0, 1: 0}
    for seeds in ((1, 2), (2, 1), (3, 4), (4, 3)):
        players = [Watched(make_racer(name, f"b:{seeds}")) for name in ("careless", "careless-own")]
        play(Table.from_seeds(seeds, RaceRules(OPEN, 1, win=win)), players, rng=random.Random(1))
        for seat, watched in enumerate(players):
            taken[seat] += sum(m is not None and m.kind == PLAY and m.src_side != seat for m in watched.chosen)
    assert taken[0] > 0 and taken[1] == 0


class GivenUp:
    """A single-deck player that has no move (it gave up, or its worlds are all lost)."""

    def choose(self, view):
        return None


def test_no_move_only_when_no_progress_move_exists():
    # a card for the foundation, from the seat's own pile: played though the inner player gave up
    t = table_with(OPEN, [["KS", "AC"]], [["9D"]], ([1], [0]))
    for takes in (True, False):
        adapter = SeatAdapter(lambda view: GivenUp(), fresh=True, takes=takes)
        assert str(adapter.choose(t.view(0))) == "A a1>f1 ACa"
    # a reveal (the 7H over onto B's 8C) when nothing goes home
    t = table_with(OPEN, [["2S", "7H"]], [["8C"]], ([1], [0]))
    t.stock[0] = []
    assert str(SeatAdapter(lambda view: GivenUp(), fresh=True).choose(t.view(0))) == "A a1>b1 7Ha"


@pytest.mark.parametrize("players, hidden", [(("careless", "careless"), QUICK_HIDDEN),
                                             (("hidden", "careless"), QUICK_HIDDEN)])
def test_a_player_with_no_move_has_no_foundation_play(players, hidden):
    """Every time a seat's player returns no move in real races, the seat has no card to send home."""
    idle = []

    class Watched:
        def __init__(self, racer):
            self.racer = racer

        def choose(self, view):
            move = self.racer.choose(view)
            if move is None:
                idle.append(view)
            return move

    for seeds in ((1, 2), (5, 6)):
        t = Table.from_seeds(seeds, RaceRules(OPEN, 1))
        racers = [Watched(make_racer(name, f"w:{seat}", hidden)) for seat, name in enumerate(players)]
        play(t, racers, clock=Clock(), rng=random.Random(1), max_moves=400)
    for view in idle:
        assert not any(m.kind == PLAY and m.dst_side == FOUNDATION for m in view.legal)
        assert progress_move(view) is None


@pytest.mark.parametrize("name", TAKERS)
def test_the_open_players_are_reproducible_for_a_sampling_seed(name):
    setup = RaceSetup(RaceRules(OPEN, 1), players=(name, "careless-own"), hidden=QUICK_HIDDEN, max_moves=300)
    first, again = play_race((3, 4), setup, "r"), play_race((3, 4), setup, "r")
    assert first == again


def shuffle_unseen(t: Table, seat: int, rng: random.Random) -> None:
    """Shuffle what ``seat`` has not seen, per deck, among its places: its own face-down cards and
    unturned stock cards; the other's face-down cards, stock and waste under the top card."""
    view = t.view(seat)
    other = 1 - seat
    own = [(t.piles[seat][i], k) for i, d in enumerate(t.face_down[seat]) for k in range(d)]
    own += [(t.stock[seat], k) for k, seen in enumerate(view.stock) if seen is None]
    theirs = [(t.piles[other][i], k) for i, d in enumerate(t.face_down[other]) for k in range(d)]
    theirs += [(t.stock[other], k) for k in range(len(t.stock[other]))]
    theirs += [(t.waste[other], k) for k in range(len(t.waste[other]) - 1)]
    for places in (own, theirs):
        cards = [where[k] for where, k in places]
        rng.shuffle(cards)
        for (where, k), card in zip(places, cards):
            where[k] = card


@pytest.mark.parametrize("name", TAKERS)
def test_changing_only_unseen_cards_changes_no_move(name):
    rng = random.Random(9)
    for t in (free_position(), home_position()):
        twin = copy.deepcopy(t)
        shuffle_unseen(twin, 0, rng)
        assert twin.piles != t.piles and twin.view(0) == t.view(0)
        assert choice(name, t) == choice(name, twin)
    # along a real race: at every tenth move, each seat's fresh player moves the same on a twin table
    # whose unseen cards are shuffled
    setup = RaceSetup(RaceRules(OPEN, 1), players=(name, name), hidden=QUICK_HIDDEN, max_moves=200)
    record = play_race((7, 8), setup, "u")
    real = Table.from_seeds((7, 8), setup.rules)
    compared = 0
    for step, move in enumerate(record.moves):
        if step % 10 == 0:
            for seat in (0, 1):
                twin = copy.deepcopy(real)
                shuffle_unseen(twin, seat, rng)
                assert twin.view(seat) == real.view(seat)
                compared += twin.piles != real.piles or twin.stock != real.stock
                assert choice(name, real, seat) == choice(name, twin, seat)
        real.apply(move)
    assert compared >= 10


def test_the_players_are_listed_and_the_old_ones_selectable():
    assert {"hidden-own", "careless-own"} <= set(PLAYERS)
    assert isinstance(make_racer("careless-own", "x"), SeatAdapter)
