"""The hidden-information player: hindsight optimisation over sampled deals.

It sees only its :class:`~dsolve.players.view.SeatView`. To decide, it deals the cards it has not
seen into the places it cannot see (uniformly: every such filling is consistent with what it has
seen) and decides each of these ``samples`` worlds with the native core under a small node budget
(Bjarnason, Fern & Tadepalli 2009, "Lower bounding Klondike solitaire with Monte-Carlo planning";
lonelybot's ``hop``). A world the budget does not decide counts for no move. The worlds won vote
with the first move of their winning lines. When the move most of them vote for commits the
player (:func:`committing`: it cannot simply be taken back), every committing legal move is scored
by the number of won worlds still won after it, and the best is played (most votes, then a seeded
random pick, breaking ties); a move that can be taken back scores its votes only, so that waiting
is never preferred by default.

What it saves, since none of this changes what the worlds say:

* worlds are dealt again only when something new is seen (a card turned face up, in the tableau
  or from the stock); until then each world keeps its winning line, takes up the line decided
  after the move played when it was scored, and is otherwise decided again (a world lost or
  undecided stays so until new worlds are dealt);
* before new worlds are dealt, a safe card goes home without a vote (Blake & Gent, Theorem 1:
  it never turns a win into a loss), and a lone legal move is played;
* under unlimited passes it first turns the whole stock once and turns the waste over, which
  returns to the same position (the stock keeps its order) having seen every stock card: the
  advice the race page gives its players ("knowing what is in it is most of the planning").

When no world is won it plays as the careless player would (foundations, reveals, then other
moves; it gives up when a trip round the stock changes nothing) until new worlds are dealt. It
gives up when it meets the same position a fourth time (its votes go round in circles).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ..klondike import api
from ..klondike.deal import Deal
from ..klondike.referee import Game
from ..klondike.moves import (FOUNDATION_TO_TABLEAU, REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU, TURN,
                     WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move)
from ..klondike.result import WINNABLE
from ..rules import Rules
from .careless import CarelessPlayer
from .view import DEFAULT_MAX_MOVES, Play, SeatView, play_out


MAX_VISITS = 3  # a position met more often than this: the player is going round in circles, gives up


@dataclass(frozen=True)
class HiddenOptions:
    """``samples``: worlds dealt per decision; ``max_nodes``: the core's budget per world (it
    stops at exactly that many positions); ``memory_mb``: its table per world (a small table is
    quick to set up); ``peek``: look through the stock first under unlimited passes."""

    samples: int = 8
    max_nodes: int = 2000
    memory_mb: float = 4.0
    peek: bool = True


class _World:
    """One sampled filling of the hidden places and what the core made of it: ``verdict`` from
    the current position (None: not decided yet), and for a win the rest of its line (``next``
    its next move); ``after``: plans decided from the positions after other moves."""

    __slots__ = ("fill", "verdict", "line", "next", "after")

    def __init__(self, fill: list[int]) -> None:
        self.fill = fill
        self.verdict: str | None = None
        self.line: Iterator[Move] = iter(())
        self.next: Move | None = None
        self.after: dict[Move, api.Plan] = {}

    def take(self, plan: api.Plan) -> None:
        self.verdict, self.line, self.after = plan.verdict, plan.moves, {}
        self.next = next(self.line, None)


def safe_home(view: SeatView, legal: list[Move]) -> Move | None:
    """A legal move that sends a safe card home (see the core's ``safe_at``: Blake & Gent,
    Theorem 1 / Corollary 3), or None. From the waste only under draw 1 with unlimited passes,
    where every talon card stays reachable."""
    rules, home = view.rules, view.foundations
    waste_ok = rules.draw == 1 and rules.passes is None

    def height(suit: int) -> int:  # a suit absent from a small deck counts as complete
        return home[suit] if suit < len(home) else view.shape.ranks

    for move in legal:
        if move.kind != TABLEAU_TO_FOUNDATION and not (move.kind == WASTE_TO_FOUNDATION and waste_ok):
            continue
        rank, suit = move.card // 4 + 1, move.card % 4
        low = min(height(suit ^ 1), height(suit ^ 3))
        if rank <= low + 1 or (rules.worry_back and rank <= low + 2 and rank <= height(suit ^ 2) + 3):
            return move
    return None


def committing(view: SeatView, move: Move) -> bool:
    """Whether ``move`` cannot simply be taken back: a card leaving the waste, a face-down card
    uncovered, a pile emptied, a card sent home without worrying back, the stock turned under
    a pass limit."""
    kind = move.kind
    if kind in (TURN, REDEAL):
        return view.rules.passes is not None
    if kind in (WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU):
        return True
    if kind == FOUNDATION_TO_TABLEAU:
        return False
    count = move.count if kind == TABLEAU_TO_TABLEAU else 1
    return count == len(view.face_up[move.src]) or (kind == TABLEAU_TO_FOUNDATION
                                                     and not view.rules.worry_back)


class HiddenPlayer:
    """See the module docstring. ``rng`` deals the worlds and breaks tied votes."""

    def __init__(self, rules: Rules, rng: random.Random, options: HiddenOptions = HiddenOptions()) -> None:
        self._rules, self._rng, self._options = rules, rng, options
        self._worlds: list[_World] = []
        self._unseen = -1  # how many cards were unseen when the worlds were dealt
        self._peeking = False
        self._fallback = CarelessPlayer(rng)
        self._visits: Counter[SeatView] = Counter()
        self.solves = 0  # worlds decided so far (for measurements)

    def choose(self, view: SeatView) -> Move | None:
        legal = view.legal_moves()
        self._visits[view] += 1
        if not legal or self._visits[view] > MAX_VISITS:
            return None
        move = self._peek(view)
        if move is None:
            fresh = len(view.unseen()) == self._unseen
            move = (None if fresh else safe_home(view, legal)) or (legal[0] if len(legal) == 1 else None)
            if move is None:
                move = self._vote(view, legal)
        if move is not None:
            self._follow(move)
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

    def _vote(self, view: SeatView, legal: list[Move]) -> Move | None:
        unseen = view.unseen()
        if len(unseen) != self._unseen:
            self._unseen = len(unseen)
            self._worlds = [_World(self._rng.sample(unseen, len(unseen)))
                            for _ in range(self._options.samples)]
        for world in self._worlds:
            if world.verdict is None:
                world.take(self._plan(view.world(world.fill)))
        winners = [world for world in self._worlds if world.verdict == WINNABLE]
        if not winners:
            return self._fallback.choose(view)
        votes = Counter(world.next for world in winners)
        top = max(votes.values())
        choice = self._rng.choice(sorted((m for m, n in votes.items() if n == top), key=str))
        if not committing(view, choice):
            return choice
        # About to commit: score every committing move by the worlds still won after it (a move
        # that can be taken back scores its votes only, so that waiting never wins by default).
        wins = Counter({m: n for m, n in votes.items() if not committing(view, m)})
        for move in (m for m in legal if committing(view, m)):
            wins[move] = votes[move]
            for world in winners:
                if world.next != move:
                    game = Game(view.world(world.fill), self._rules)
                    game.apply(move)
                    world.after[move] = plan = self._plan(game.position())
                    wins[move] += plan.verdict == WINNABLE
        best = max(wins.values())
        top = max(votes[m] for m in wins if wins[m] == best)
        return self._rng.choice(sorted((m for m in wins if wins[m] == best and votes[m] == top), key=str))

    def _plan(self, deal: Deal) -> api.Plan:
        self.solves += 1
        return api.plan(deal, self._rules, max_nodes=self._options.max_nodes,
                        memory_mb=self._options.memory_mb)

    def _follow(self, move: Move) -> None:
        """Advance the worlds whose line ``move`` follows; take up the plans decided after
        ``move`` for the others; leave the rest to be decided again."""
        for world in self._worlds:
            if world.verdict == WINNABLE:
                if world.next == move:
                    world.next, world.after = next(world.line, None), {}
                elif move in world.after:
                    world.take(world.after[move])
                else:
                    world.verdict = None


def play_hidden(deal: Deal, rules: Rules, seed: int | str = 0, options: HiddenOptions = HiddenOptions(),
                max_moves: int = DEFAULT_MAX_MOVES) -> Play:
    """One hidden-information play of ``deal``; the same ``seed`` (and options) gives the same game."""
    player = HiddenPlayer(rules, random.Random(f"hidden:{seed}"), options)
    return play_out(deal, rules, player, max_moves)
