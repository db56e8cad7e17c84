"""The seat adapters: the hidden-information and careless players of :mod:`dsolve.players`, and a
random player, at a double solitaire table.

A seat's player sees its :class:`~dsolve.races.table.RaceView` only. The single-deck players
play the seat's own game through a *projection* (:func:`project`): a one-deck Klondike position
(a :class:`~dsolve.players.view.SeatView`, so its own face-down and unturned stock cards stay
unseen) built from the seat's own cards and the shared foundations as they stand. Per suit, with
the suit's two piles at heights ``a >= b``:

* the projection's foundation is ``a`` (the higher pile: the seat's cards from rank ``a`` up go
  there in order, whoever built it) when every own card of the suit below ``a`` still in the
  layout is visible; those cards (they wait for the lower pile) are lifted out of the projection;
* otherwise, or where lifting would leave a pile with only face-down cards or change the waste
  top, it is lower, down to ``b`` (both copies of every rank below ``b`` are home); the seat's own
  cards at or above it that are no longer in its layout (home on the higher pile, or in the open
  race lying on the other tableau) are put at the end of the projected stock, as cards still to
  be played from a place the seat does not control.

So a card the other seat puts up changes the projection: it can let the seat's next card of the
suit go home, and with it what the core and the safe-card rule see as safe or needed. A card the
other seat places on this seat's piles (open race) is left out of the projection.

Each decision, before asking the single-deck player: (1) a foundation move the projection does
not show (a lifted card, a card going onto the higher pile out of the projection's order, another
seat's card on this seat's piles) is played at once; (2) in the open race, the best play of the
other tableau's top card by :func:`take_score` if it scores above zero (ties: the table's order
of legal moves; a card taken onto a pile at most once); (3) in the open race, a card or run leaving
the seat's layout onto the other tableau (a reveal first, then one that empties a pile, then the
waste top, then any), never a card that came back after it sent it over. Otherwise the
single-deck player's move on the projection is played if the table allows the same move (same
card, same piles; the stock moves map onto whichever of turn / redeal the table allows). The
hidden player is started afresh when the other seat has disturbed the seat (moved on the
foundations or on its piles) or its own move bounced: its sampled worlds were dealt for a
projection that no longer holds. It takes a move the table refuses as a sign of the same and
asks once more afresh, then turns the stock if it can.

With ``win`` first (the first seat out wins), step (2) sends none of the other's cards home and
prices every card that leaves the other's piles (see :func:`take_score`): the other seat's card
out is one fewer for it to clear. The ``-own`` players (``hidden-own``, ``careless-own``) skip
step (2), and their progress moves (below) never take the other's card: they are the same
players, same random numbers, ignoring
the other tableau's cards (in the locked race they play exactly as ``hidden`` and ``careless``).

No adapter player returns no move while it has a *progress move*: when its single-deck player
has none (it gave up, or its worlds say its own game is lost), it still plays a card to a
foundation (the count decides a blocked race) or turns up one of its face-down cards
(:func:`progress_move`), and only then gives up.

The random player plays a uniformly random legal move (it is here to exercise the rules).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from ..cards import STANDARD
from ..errors import InputError
from ..seats import parse_seats
from ..klondike.moves import (REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN, WASTE_TO_FOUNDATION,
                     WASTE_TO_TABLEAU, Move)
from ..players.careless import CarelessPlayer
from ..players.hidden import HiddenOptions, HiddenPlayer
from ..players.view import Player, SeatView, view_of
from ..rules import Rules
from .table import (FIRST, FOUNDATION, KING, OPEN, PLAY, REDEAL as RACE_REDEAL, TURN as RACE_TURN, WASTE, RaceMove,
                    RaceRules, RaceView)

OWN = "-own"  # the suffix of a player that ignores the other tableau's cards
PLAYERS = ("hidden", "careless", "random", "hidden" + OWN, "careless" + OWN)

# take_score's weights (see there)
HOME_SCORE = 3  # the card goes to a foundation (win count only)
FREE_SCORE = 2  # one of the seat's face-down cards can be turned up just after
OWN_PILE_COST = 2  # the card lands on the seat's own tableau: one more card to clear
HELP_COST = 1  # (win first) the card leaves the other's piles: one fewer for them to clear
REVEAL_COST = 1  # one of the other's face-down cards is turned up for them


def _rank(code: int) -> int:
    return code % 52 // 4


def _suit(code: int) -> int:
    return code % 4


def _fits(card: int, onto: int | None) -> bool:
    """Does ``card`` (a code) build on ``onto`` (None: an empty pile)?"""
    if onto is None:
        return _rank(card) == KING
    return _rank(card) == _rank(onto) - 1 and card % 2 != onto % 2


def _frees_own(view: RaceView, onto: int | None) -> bool:
    """Could a whole face-up part of one of the seat's piles (a run over face-down cards) go onto
    a pile topped by ``onto`` (None: empty), turning up a face-down card of the seat's?"""
    seat = view.seat
    for pile, down in zip(view.face_up[seat], view.face_down[seat]):
        if down and pile and all(_fits(a, b) for a, b in zip(pile[1:], pile)) and _fits(pile[0], onto):
            return True
    return False


def take_score(view: RaceView, move: RaceMove) -> int:
    """The worth of ``move``, a play of the other tableau's top card, from what the seat sees.
    With win count, ``HOME_SCORE`` when the card goes to a foundation (the mover's count goes up);
    with win first (the first seat out wins) a card sent home scores nothing, and any card leaving
    the other's piles costs ``HELP_COST`` (one fewer for them to clear, whether it goes home or
    onto the seat's piles). ``FREE_SCORE`` when the pile it leaves is then topped by a face-up card
    (or empty) that takes a whole run of the seat's lying on face-down cards (the next move turns
    one of them up); less ``OWN_PILE_COST`` when the card lands on the seat's own tableau (one more
    card it must clear before it finishes), less ``REVEAL_COST`` when taking it turns up one of the
    other's face-down cards (a card they could not reach). Only face-up cards and face-down counts
    are read: what a card taken from a face-down card uncovers is never looked at."""
    other, first = 1 - view.seat, view.rules.win == FIRST
    left = view.face_up[other][move.src][:-1]
    down = view.face_down[other][move.src]
    score = 0
    if move.dst_side == FOUNDATION:
        if not first:
            score += HOME_SCORE
    elif (left or not down) and _frees_own(view, left[-1] if left else None):
        score += FREE_SCORE
    if move.dst_side == view.seat:
        score -= OWN_PILE_COST
    if first and move.dst_side != other:
        score -= HELP_COST
    if not left and down:
        score -= REVEAL_COST
    return score


def progress_move(view: RaceView, takes: bool = True) -> RaceMove | None:
    """A move that makes progress for the seat, or None: a card to a foundation (from the other
    tableau too if ``takes``), else a move that turns up one of its face-down cards (the table's
    first such legal move)."""
    seat = view.seat
    home = next((m for m in view.legal if m.kind == PLAY and m.dst_side == FOUNDATION
                 and (takes or m.src_side == seat)), None)
    return home or next((m for m in view.legal if m.kind == PLAY and m.src_side == seat and m.src != WASTE
                         and view.face_down[seat][m.src] and m.count == len(view.face_up[seat][m.src])), None)


@cache
def single_rules(rules: RaceRules) -> Rules:
    """The one-deck rules a seat's own game follows at a table of ``rules``: the table's draw and
    passes, king spaces, no card back from a foundation."""
    return Rules(draw=rules.draw, passes=rules.passes, empty_rule="king", worry_back=False)


def projection_heights(view: RaceView) -> list[int] | None:
    """The projection's foundation height per suit (see the module docstring); None if the
    seat's layout cannot be projected (a pile whose lowest face-up card is not its own)."""
    seat = view.seat
    tall = [max(len(view.foundations[s]), len(view.foundations[s + 4])) for s in range(4)]
    low = [min(len(view.foundations[s]), len(view.foundations[s + 4])) for s in range(4)]
    own_home = {c % 52 for pile in view.foundations for c in pile if c // 52 == seat}
    other_tableau = {c % 52 for pile in view.face_up[1 - seat] for c in pile if c // 52 == seat}
    visible = {c % 52 for pile in view.face_up[seat] for c in pile if c // 52 == seat}
    visible |= {c % 52 for c in view.waste} | {c % 52 for c in view.stock if c is not None}
    hidden = set(range(52)) - own_home - other_tableau - visible
    hidden_below = {c % 4 for c in hidden if c // 4 < tall[c % 4]}  # suits with a hidden card below the tall pile
    heights = [low[s] if s in hidden_below else tall[s] for s in range(4)]
    changed = True
    while changed:
        changed = False
        for pile, down in zip(view.face_up[seat], view.face_down[seat]):
            if down and all(c // 52 != seat or _rank(c) < heights[_suit(c)] for c in pile):
                if pile[0] // 52 != seat:
                    return None
                heights[_suit(pile[0])], changed = _rank(pile[0]), True
        if view.waste and _rank(view.waste[-1]) < heights[_suit(view.waste[-1])]:
            heights[_suit(view.waste[-1])], changed = _rank(view.waste[-1]), True
    return heights


def project(view: RaceView) -> SeatView | None:
    """The seat's own game as a one-deck position (see the module docstring), or None."""
    heights = projection_heights(view)
    if heights is None:
        return None
    seat = view.seat
    base = seat * 52
    kept = {base + rank * 4 + suit for suit in range(4) for rank in range(heights[suit], 13)}
    in_layout = {c for pile in view.face_up[seat] for c in pile} | set(view.waste)
    in_layout |= {c for c in view.stock if c is not None}
    out = sorted(c - base for pile in view.foundations for c in pile if c in kept)
    out += sorted(c - base for pile in view.face_up[1 - seat] for c in pile if c in kept and c not in in_layout)
    return SeatView(STANDARD, single_rules(view.rules),
                    tuple(tuple(c - base for c in pile if c in kept) for pile in view.face_up[seat]),
                    view.face_down[seat],
                    tuple(None if c is None else c - base for c in view.stock if c is None or c in kept) + tuple(out),
                    tuple(c - base for c in view.waste if c in kept), tuple(heights), view.passes_used)


def real_move(view: RaceView, move: Move) -> RaceMove | None:
    """The table move that is ``move`` of the projection, if the table allows it now."""
    seat, code = view.seat, view.seat * 52 + move.card
    if move.kind in (TURN, REDEAL):
        return next((m for m in view.legal if m.kind in (RACE_TURN, RACE_REDEAL)), None)
    wanted: Callable[[RaceMove], bool]
    if move.kind == WASTE_TO_FOUNDATION:
        wanted = lambda m: m.src == WASTE and m.dst_side == FOUNDATION
    elif move.kind == WASTE_TO_TABLEAU:
        wanted = lambda m: m.src == WASTE and m.dst_side == seat and m.dst == move.dst
    elif move.kind == TABLEAU_TO_FOUNDATION:
        wanted = lambda m: m.src_side == seat and m.src == move.src and m.dst_side == FOUNDATION
    elif move.kind == TABLEAU_TO_TABLEAU:
        wanted = lambda m: (m.src_side == seat and m.src == move.src and m.dst_side == seat
                            and m.dst == move.dst)
    else:
        return None
    return next((m for m in view.legal if m.kind == PLAY and m.card == code and wanted(m)), None)


class SeatAdapter:
    """A one-deck player at a race seat (see the module docstring). ``make`` builds the one-deck
    player for a view; ``fresh`` whether to build it again when the seat was disturbed; ``takes``
    whether it takes the other tableau's top card in the open race."""

    def __init__(self, make: Callable[[RaceView], Player], fresh: bool, takes: bool = True) -> None:
        self._make, self._fresh, self._takes = make, fresh, takes
        self._inner: Player | None = None
        self._expected: tuple | None = None  # (disturbed, bounced, heights) its last move left
        self._sent: set[int] = set()  # cards sent over to the other tableau
        self._taken: set[int] = set()  # the other's cards taken onto a pile

    def choose(self, view: RaceView) -> RaceMove | None:
        projected = project(view)
        move = self._free_home(view, projected) or self._take_over(view) or self._send_over(view)
        if move is not None or projected is None:
            self._expected = None
            return move or _stock_move(view) or progress_move(view, self._takes)
        if self._inner is None or (self._fresh and not self._as_expected(view, projected)):
            self._inner = self._make(view)
        for _ in range(2):
            choice = self._inner.choose(projected)
            if choice is None:
                self._expected = None
                return progress_move(view, self._takes)
            move = real_move(view, choice)
            if move is not None:
                if self._fresh:  # what _as_expected compares the next projection with
                    self._expected = (view.disturbed, view.bounced, _after(projected, choice),
                                      frozenset(projected.unseen()))
                return move
            self._inner = self._make(view)
        self._expected = None
        return _stock_move(view) or progress_move(view, self._takes)

    def _as_expected(self, view: RaceView, projected: SeatView) -> bool:
        """Is the projection what the one-deck player's last move should have left (nothing
        else changed it: the other seat, a bounce, the projection's own heights or stock)?"""
        if self._expected is None or self._expected[:2] != (view.disturbed, view.bounced):
            return False
        expected: SeatView = self._expected[2]
        unknown: frozenset[int] = self._expected[3]  # cards it could not know (a turned card: any)
        flipped = [a != b for a, b in zip(expected.face_down, projected.face_down)]
        return (expected.foundations == projected.foundations
                and len(expected.waste) == len(projected.waste) and len(expected.stock) == len(projected.stock)
                and all(a == b for a, b in zip(expected.waste, projected.waste) if a not in unknown)
                and not any(a != b for a, b, f in zip(expected.face_up, projected.face_up, flipped) if not f))

    def _free_home(self, view: RaceView, projected: SeatView | None) -> RaceMove | None:
        seat = view.seat
        for move in view.legal:
            if move.kind == PLAY and move.dst_side == FOUNDATION and move.src_side == seat:
                card = move.card
                if (projected is None or card // 52 != seat
                        or _rank(card) != projected.foundations[_suit(card)]):
                    return move
        return None

    def _take_over(self, view: RaceView) -> RaceMove | None:
        """In the open race, the best play of the other tableau's top card by :func:`take_score`
        if it scores above zero (a card taken onto a pile once only), else None."""
        if not self._takes or view.rules.variant != OPEN:
            return None
        best, most = None, 0
        for move in view.legal:
            if (move.kind == PLAY and move.src_side == 1 - view.seat
                    and (move.dst_side == FOUNDATION or move.card not in self._taken)):
                score = take_score(view, move)
                if score > most:
                    best, most = move, score
        if best is not None and best.dst_side != FOUNDATION:
            self._taken.add(best.card)
        return best

    def _send_over(self, view: RaceView) -> RaceMove | None:
        seat = view.seat
        moves = [m for m in view.legal if m.kind == PLAY and m.src_side == seat and m.dst_side == 1 - seat
                 and m.card not in self._sent]
        if not moves:
            return None

        def order(m: RaceMove) -> int:
            if m.src == WASTE:
                return 2
            left = len(view.face_up[seat][m.src]) - m.count
            return 0 if left == 0 and view.face_down[seat][m.src] else 1 if left == 0 else 3

        move = min(moves, key=order)
        self._sent.add(move.card)
        return move


def _after(projected: SeatView, move: Move) -> SeatView:
    """The projection after ``move``, as the one-deck player expects it (a card it turns up
    stands in for the unknown one)."""
    game = projected.game()
    game.apply(move)
    return view_of(game, ())


def _stock_move(view: RaceView) -> RaceMove | None:
    return next((m for m in view.legal if m.kind in (RACE_TURN, RACE_REDEAL)), None)


class RandomRacer:
    """A uniformly random legal move (None when there is none)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose(self, view: RaceView) -> RaceMove | None:
        return self._rng.choice(view.legal) if view.legal else None


def make_racer(name: str, seed: str, hidden: HiddenOptions = HiddenOptions()) -> SeatAdapter | RandomRacer:
    """The player ``name`` (one of :data:`PLAYERS`) with its random choices seeded by ``seed``
    (a ``-own`` player draws the same random numbers as the player it is named after)."""
    base, takes = (name[:-len(OWN)], False) if name.endswith(OWN) else (name, True)
    rng = random.Random(f"{base}:{seed}")
    if base == "hidden":
        return SeatAdapter(lambda view: HiddenPlayer(single_rules(view.rules), rng, hidden), True, takes)
    if base == "careless":
        return SeatAdapter(lambda view: CarelessPlayer(rng), False, takes)
    if name == "random":
        return RandomRacer(rng)
    raise InputError(f"unknown player {name!r} (players: {', '.join(PLAYERS)})")


def parse_players(text: str) -> tuple[str, str]:
    """``"hidden,careless"`` (seat A, seat B), or one name for both seats."""
    return parse_seats(text, PLAYERS, "hidden,careless")
