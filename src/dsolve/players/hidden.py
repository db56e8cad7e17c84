"""The hidden-information player: hindsight optimisation over sampled worlds.

It sees only its :class:`~dsolve.players.view.SeatView`. To decide, it deals the cards it has not
seen into the places it cannot see (uniformly: every such filling is consistent with what it has
seen): ``samples`` worlds, each decided by the native core under a small node budget. Then, as in
hindsight optimisation (Bjarnason, Fern & Tadepalli 2009, "Lower bounding Klondike solitaire with
Monte-Carlo planning"; lonelybot's ``hop``), every candidate move is scored in the SAME worlds:
a move's losses are the worlds won from here that the core does not find won after the move (a
world it leaves undecided counts as lost).

Candidate moves are *actions*. Under unlimited passes, once every stock card has been seen,
turning the stock only walks round the talon (it is always undone by walking on), so a talon card
is one action wherever it lies: the player turns to it and plays it, and the position after that
is the same wherever the walk began. Otherwise every legal single move is an action.

The decision, with ``won`` the worlds the core wins from here:

1. a safe card goes home at once (Blake & Gent, Theorem 1: it never turns a win into a loss in
   any world), fetched from the talon under draw 1; a lone legal move is played;
2. every *committing* action (:func:`committing`: one that cannot simply be taken back) is scored,
   once for all actions that lead to the same position up to the piles' order (:func:`same_up_to_order`);
   the least losses wins, ties going to a card sent home, then to a reveal (it shows a card), then
   to the move most worlds' winning lines begin with. Scores are computed with early stops: a
   move is dropped as soon as it has lost as many worlds as the best so far. A card the player
   took back from its foundation is not sent home again while no world's line does so next (it
   came back to be used);
3. when the best committing action loses no world, it is checked in more worlds (``confirm``
   in all, by default twice ``samples``) before it is played: agreement in a few worlds is weak
   evidence;
4. when every committing action loses some world, a move that can be taken back and that the
   worlds' lines begin with is played instead if it leads to a position not met since the last
   new card was seen (it loses nothing, and the lines say it leads somewhere); otherwise the best
   committing action is played.

What it saves, since none of this changes what the worlds say: worlds are dealt again only when a
new card is seen; until then a world keeps its winning line (its next action is a free win) and,
after a move, takes up the plan decided after that move in scoring, and is otherwise decided
again; a world lost stays lost, and one left undecided stays so. When no world is won, the
undecided ones are decided again with eight times the budget, once; if none is won still, it plays
as the careless player would until new worlds are dealt. It gives up when it meets the same view
a fourth time.

Under unlimited passes it first turns the whole stock once and turns the waste over, which
returns to the same position (the stock keeps its order) having seen every stock card: the advice
the race page gives its players ("knowing what is in it is most of the planning").
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ..klondike import api
from ..cards import rank_of, suit_of
from ..klondike.deal import Deal
from ..klondike.referee import Game
from ..klondike.moves import (FOUNDATION_TO_TABLEAU, REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN,
                     WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move)
from ..klondike.result import UNKNOWN, UNWINNABLE, WINNABLE
from ..rules import Rules
from .careless import CarelessPlayer
from .view import DEFAULT_MAX_MOVES, Play, SeatView, play_out


MAX_VISITS = 3  # a view met more often than this: the player is going round in circles, gives up
GROWN_BUDGET = 8  # how many times the node budget an undecided world gets when no world is won
STOCK_MOVES = (TURN, REDEAL)
HOME_MOVES = (WASTE_TO_FOUNDATION, TABLEAU_TO_FOUNDATION)
TALON_MOVES = (WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU)


@dataclass(frozen=True)
class HiddenOptions:
    """``samples``: worlds dealt per decision; ``max_nodes``: the core's budget per world and
    move (it stops at exactly that many positions); ``memory_mb``: its table per solve (a small
    table is quick to set up); ``peek``: look through the stock first under unlimited passes;
    ``confirm``: the worlds a committing move that loses none must be checked in before it is
    played (None: twice ``samples``; ``samples`` or fewer: no check)."""

    samples: int = 16
    max_nodes: int = 10_000
    memory_mb: float = 4.0
    peek: bool = True
    confirm: int | None = None

    @property
    def confirm_worlds(self) -> int:
        """The worlds a unanimous commitment is checked in (see ``confirm``)."""
        return 2 * self.samples if self.confirm is None else self.confirm


FAST = HiddenOptions(samples=8, max_nodes=2000)  # about a quarter of the defaults' CPU, weaker


class _World:
    """One sampled filling of the hidden places and what the core made of it from the current
    position: ``verdict`` (None: not decided yet); for a win ``first``, the first action of its
    line, and ``line`` the rest of it (single moves); ``after``: the plans decided after actions."""

    __slots__ = ("fill", "verdict", "line", "first", "after", "grown")

    def __init__(self, fill: list[int]) -> None:
        self.fill = fill
        self.verdict: str | None = None
        self.line: Iterator[Move] = iter(())
        self.first: Move | None = None
        self.after: dict[Move, api.Plan] = {}
        self.grown = False  # decided with the grown budget since it was dealt

    def take(self, plan: api.Plan, walk: bool) -> None:
        self.verdict, self.line, self.after = plan.verdict, plan.moves, {}
        self.advance(walk)

    def advance(self, walk: bool) -> None:
        """Move ``first`` on to the line's next action (skipping stock moves when ``walk``)."""
        self.first = next((m for m in self.line if not (walk and m.kind in STOCK_MOVES)), None)


def safe_home(view: SeatView, legal: list[Move]) -> Move | None:
    """A move of ``legal`` that sends a safe card home (the core's ``safe_at``: Blake & Gent,
    Theorem 1 / Corollary 3), or None. From the waste only under draw 1 with unlimited passes,
    where every talon card stays reachable. Within one rank of both opposite-colour foundations
    is safe only without worrying back: with it, a card so close may still be needed to hold one
    taken back (a king with its own colour's other suit four ranks behind)."""
    rules, home = view.rules, view.foundations
    waste_ok = rules.draw == 1 and rules.passes is None

    def height(suit: int) -> int:  # a suit absent from a small deck counts as complete
        return home[suit] if suit < len(home) else view.shape.ranks

    for move in legal:
        if move.kind != TABLEAU_TO_FOUNDATION and not (move.kind == WASTE_TO_FOUNDATION and waste_ok):
            continue
        rank, suit = rank_of(move.card) + 1, suit_of(move.card)
        low = min(height(suit ^ 1), height(suit ^ 3))
        if (rank <= low + 2 and rank <= height(suit ^ 2) + 3 if rules.worry_back else rank <= low + 1):
            return move
    return None


def committing(view: SeatView, move: Move) -> bool:
    """Whether ``move`` cannot simply be taken back: a card leaving the waste, a face-down card
    uncovered, a pile emptied, a card sent home without worrying back, the stock turned under
    a pass limit."""
    kind = move.kind
    if kind in STOCK_MOVES:
        return view.rules.passes is not None
    if kind in TALON_MOVES:
        return True
    if kind == FOUNDATION_TO_TABLEAU:
        return False
    count = move.count if kind == TABLEAU_TO_TABLEAU else 1
    return count == len(view.face_up[move.src]) or (kind == TABLEAU_TO_FOUNDATION
                                                     and not view.rules.worry_back)


def _reveals(view: SeatView, move: Move) -> bool:
    """Whether ``move`` turns up a face-down card."""
    count = move.count if move.kind == TABLEAU_TO_TABLEAU else 1
    return (move.kind in (TABLEAU_TO_TABLEAU, TABLEAU_TO_FOUNDATION) and view.face_down[move.src] > 0
            and count == len(view.face_up[move.src]))


def walks(view: SeatView) -> bool:
    """Whether turning the stock only walks round a talon of cards all seen (unlimited passes)."""
    return view.rules.passes is None and None not in view.stock


def walk_to(game: Game, move: Move) -> None:
    """Turn ``game``'s stock (under unlimited passes) until ``move`` is legal, then play it."""
    for _ in range(2 * (len(game.stock) + len(game.waste)) + 2):
        if move.kind not in TALON_MOVES or game.waste[-1:] == [move.card]:
            break
        game.apply(Move(TURN) if game.stock else Move(REDEAL))
    game.apply(move)


def layout_key(game: Game, walk: bool) -> tuple:
    """What a player sees of ``game``'s position; with ``walk`` (see :func:`walks`) the talon as
    one ring (waste then stock, which turning does not change), so that every position turning
    alone leads to has the same key."""
    talon = ((tuple(game.waste + game.stock),) if walk
             else (tuple(game.waste), len(game.stock), game.passes_used))
    return (tuple(tuple(p[d:]) for p, d in zip(game.piles, game.face_down)), tuple(game.face_down),
            tuple(game.foundations.values()), *talon)


def same_up_to_order(key: tuple) -> tuple:
    """A :func:`layout_key` with the piles in a fixed order. No rule looks at a pile's place, and the
    cards hidden under two piles that look alike are alike to a player: actions whose positions
    differ only so (a king into one space or another) are the same choice."""
    piles, face_down, *rest = key
    return (tuple(sorted(zip(piles, face_down))), *rest)


def shuffles(view: SeatView, move: Move) -> bool:
    """Whether ``move`` carries a whole pile with nothing face down into a space: the same layout."""
    return (move.kind == TABLEAU_TO_TABLEAU and view.face_down[move.src] == 0
            and move.count == len(view.face_up[move.src]) and not view.face_up[move.dst])


def actions(view: SeatView, legal: list[Move], here: Game | None = None) -> list[Move]:
    """The player's candidate actions: when it :func:`walks`, the legal moves other than stock
    moves plus each move of a talon card that turning reaches; otherwise ``legal``. Moves that
    only :func:`shuffles` are left out. ``here``: a game of the view (any filling), if made."""
    legal = [m for m in legal if not shuffles(view, m)]
    if not walks(view):
        return legal
    found = [m for m in legal if m.kind not in STOCK_MOVES]
    game = here.copy() if here else view.game()
    states = {len(game.waste)}
    while game.stock or game.may_redeal():
        game.apply(Move(TURN) if game.stock else Move(REDEAL))
        if len(game.waste) in states:
            break
        states.add(len(game.waste))
        top = game.waste[-1] if game.waste else None
        if top is None:
            continue
        if game.may_found(top):
            found.append(Move(WASTE_TO_FOUNDATION, card=top))
        found += [Move(WASTE_TO_TABLEAU, dst=j, card=top) for j in range(len(game.piles))
                  if game.may_place(top, j)]
    return list(dict.fromkeys(found))


class HiddenPlayer:
    """See the module docstring. ``rng`` deals the worlds."""

    def __init__(self, rules: Rules, rng: random.Random, options: HiddenOptions = HiddenOptions()) -> None:
        self._rules, self._rng, self._options = rules, rng, options
        self._worlds: list[_World] = []
        self._unseen = -1  # how many cards were unseen when the worlds were dealt
        self._peeking = False
        self._target: Move | None = None  # a talon card's action being walked to
        self._met: set[tuple] = set()  # positions (talon as a ring) met since the worlds were dealt
        self._fallback = CarelessPlayer(rng)
        self._visits: Counter[SeatView] = Counter()
        self._taken_back: set[int] = set()  # cards taken back from a foundation, not home since
        self.solves = 0  # positions decided so far (for measurements)

    def choose(self, view: SeatView) -> Move | None:
        self._visits[view] += 1
        if self._visits[view] > MAX_VISITS:
            return None
        move = self._peek(view)
        if move is None and self._target is not None:
            move = self._step(view, self._target)
        if move is None:
            here = view.game()  # a game of the view, to play on
            legal = here.legal_moves()
            action = self._decide(view, here, legal) if legal else None
            if action is None:
                return None
            move = self._step(view, action)
        self._follow(view, move)
        if move.kind == FOUNDATION_TO_TABLEAU:
            self._taken_back.add(move.card)
        elif move.kind == TABLEAU_TO_FOUNDATION:
            self._taken_back.discard(move.card)
        return move

    def _peek(self, view: SeatView) -> Move | None:
        if (not self._peeking and self._options.peek and self._rules.passes is None
                and None in view.stock and (not view.waste or self._rules.draw == 1)):
            self._peeking = True
        if not self._peeking:
            return None
        if view.stock:
            return Move(TURN)
        self._peeking = False
        return Move(REDEAL)

    def _step(self, view: SeatView, action: Move) -> Move:
        """The single move towards ``action`` (a legal move, or a talon card's move when the
        player :func:`walks`): itself, or a turn of the stock to bring its card up."""
        if action.kind in TALON_MOVES and view.waste[-1:] != (action.card,):
            self._target = action
            return Move(TURN) if view.stock else Move(REDEAL)
        self._target = None
        return action

    def _decide(self, view: SeatView, here: Game, legal: list[Move]) -> Move | None:
        options = actions(view, legal, here)
        if len(view.unseen()) != self._unseen:
            self._deal(view, self._options.samples)
        walk = walks(view)
        self._met.add(layout_key(here, walk))
        safe = safe_home(view, options)
        if safe is not None or len(options) == 1:
            return safe or options[0]
        won = self._won(view, here)
        if not won:
            return self._fallback.choose(view)
        votes = Counter(world.first for world in won)
        choices: dict[tuple, Move] = {}  # one committing action per position it leads to
        for action in options:
            if committing(view, action) and not self._sends_back(action, votes):
                choices.setdefault(same_up_to_order(layout_key(self._led_to(here, action), walk)), action)
        commits = list(choices.values())
        best, losses = self._best_commit(view, here, commits, won, votes)
        if best is not None and losses == 0 and len(self._worlds) < self._options.confirm_worlds:
            self._deal(view, self._options.confirm_worlds - len(self._worlds))
            won = self._won(view, here)
            votes = Counter(world.first for world in won)
            best, losses = self._best_commit(view, here, commits, won, votes)
        if best is None or losses > 0:
            free = [a for a in options
                    if votes[a] and not committing(view, a) and not self._met_after(here, a, walk)]
            if free:
                return max(free, key=lambda a: votes[a])  # the first of the most voted
        return best or self._fallback.choose(view)

    def _sends_back(self, action: Move, votes: Counter[Move]) -> bool:
        """Whether ``action`` sends home a card taken back from its foundation that no won world
        sends home next. Such a card came back to be used, and while the worlds' plans use it the
        player does not commit to undoing that because a world still wins without it (each plan
        winning on its own, the player could otherwise take cards back and send them home in turn,
        round and round)."""
        return action.kind == TABLEAU_TO_FOUNDATION and action.card in self._taken_back and not votes[action]

    def _deal(self, view: SeatView, count: int) -> None:
        """Deal ``count`` more worlds (all new ones when something new has been seen)."""
        unseen = view.unseen()
        if len(unseen) != self._unseen:
            self._unseen, self._worlds, self._met = len(unseen), [], set()
        self._worlds += [_World(self._rng.sample(unseen, len(unseen))) for _ in range(count)]

    def _world(self, view: SeatView, here: Game, world: _World) -> Game:
        """``world``'s game: ``here`` with the hidden places filled as :meth:`SeatView.world` does."""
        game, cards = here.copy(), iter(world.fill)
        for pile, down in zip(game.piles, game.face_down):
            pile[:down] = [next(cards) for _ in range(down)]
        game.stock = [next(cards) if c is None else c for c in view.stock]
        return game

    def _won(self, view: SeatView, here: Game) -> list[_World]:
        """The worlds the core wins from here, deciding those not yet decided; when none is won,
        the undecided ones again with the grown budget (once since they were dealt)."""
        walk = walks(view)
        for world in self._worlds:
            if world.verdict is None:
                world.take(self._plan(self._world(view, here, world).position()), walk)
        won = [world for world in self._worlds if world.verdict == WINNABLE]
        if not won:
            for world in self._worlds:
                if world.verdict != UNWINNABLE and not world.grown:
                    world.grown = True
                    world.take(self._plan(self._world(view, here, world).position(), GROWN_BUDGET), walk)
            won = [world for world in self._worlds if world.verdict == WINNABLE]
        return won

    def _best_commit(self, view: SeatView, here: Game, commits: list[Move], won: list[_World],
                     votes: Counter[Move]) -> tuple[Move | None, int]:
        """The committing action with the fewest won worlds lost (ties: home, reveal, votes) and
        that number; a move is dropped once it has lost as many as the best so far."""
        best, fewest = None, len(won) + 1
        ranked = sorted(commits, key=lambda a: (a.kind not in HOME_MOVES, not _reveals(view, a), -votes[a]))
        for action in ranked:
            lost = 0
            for world in won:
                if world.first != action and self._after(view, here, world, action) != WINNABLE:
                    lost += 1
                    if lost >= fewest:
                        break
            if lost < fewest:
                best, fewest = action, lost
                if fewest == 0:
                    break  # nothing ranked lower can beat it
        return best, fewest

    def _after(self, view: SeatView, here: Game, world: _World, action: Move) -> str:
        """The verdict of ``world`` after ``action`` (decided once, kept in ``world.after``)."""
        plan = world.after.get(action)
        if plan is None:
            game = self._world(view, here, world)
            walk_to(game, action)
            world.after[action] = plan = self._plan(game.position())
        return plan.verdict

    def _met_after(self, here: Game, action: Move, walk: bool) -> bool:
        """Whether ``action`` leads from ``here`` to a position met since the worlds were dealt."""
        return layout_key(self._led_to(here, action), walk) in self._met

    @staticmethod
    def _led_to(here: Game, action: Move) -> Game:
        """The game ``action`` leads to from ``here`` (its hidden places as ``here`` fills them)."""
        game = here.copy()
        walk_to(game, action)
        return game

    def _plan(self, deal: Deal, scale: int = 1) -> api.Plan:
        self.solves += 1
        return api.plan(deal, self._rules, max_nodes=self._options.max_nodes * scale,
                        memory_mb=self._options.memory_mb)

    def _follow(self, view: SeatView, move: Move) -> None:
        """After ``move``: advance the worlds whose line it follows, take up the plans decided
        after it for the others, leave the rest to be decided again (a lost world stays lost, an
        undecided one undecided until new worlds are dealt).
        Turns of a talon walked round change nothing."""
        walk = walks(view)
        if walk and move.kind in STOCK_MOVES:
            return
        for world in self._worlds:
            if world.verdict in (UNWINNABLE, UNKNOWN):
                continue
            if world.verdict == WINNABLE and world.first == move:
                world.advance(walk)
                world.after = {}
            elif move in world.after:
                world.take(world.after[move], walk)
            else:
                world.verdict = None


def play_hidden(deal: Deal, rules: Rules, seed: int | str = 0, options: HiddenOptions = HiddenOptions(),
                max_moves: int = DEFAULT_MAX_MOVES) -> Play:
    """One hidden-information play of ``deal``; the same ``seed`` (and options) gives the same game."""
    return play_out(deal, rules, seeded_player(rules, seed, options), max_moves)


def seeded_player(rules: Rules, seed: int | str = 0, options: HiddenOptions = HiddenOptions()) -> HiddenPlayer:
    """The player :func:`play_hidden` plays with for ``seed`` (its worlds dealt from that seed)."""
    return HiddenPlayer(rules, random.Random(f"hidden:{seed}"), options)
