"""Brute force over the referee: complete search of small deals and random small deals and games
in progress, the yardstick the native core's verdicts are checked against in the tests."""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import DeckShape, make_card
from ..rules import Rules
from .deal import Deal, deal_from_order
from .moves import TABLEAU_TO_FOUNDATION, WASTE_TO_FOUNDATION, Move
from .referee import Game


@dataclass
class Search:
    """The outcome of :func:`search`: ``winnable`` (None if the node limit was hit), a winning
    move list when winnable, and how many distinct positions were visited."""

    winnable: bool | None
    moves: list[Move] | None
    nodes: int


def search(deal: Deal, rules: Rules, limit: int = 500_000) -> Search:
    """Complete depth-first search over single moves with a visited set of
    :meth:`Game.symmetric_key`.

    A win is reachable from the start iff the search meets a won position; every reachable
    position (up to the order of the piles) is expanded once, so cycles (turn/redeal with
    unlimited passes, moves back and forth) are harmless. The winning moves are recorded as
    played on the positions actually expanded, so they replay exactly. Stops with
    ``winnable=None`` after ``limit`` distinct positions.
    """
    start = Game(deal, rules)
    parent: dict[tuple, tuple[tuple, Move] | None] = {start.symmetric_key(): None}

    def path_to(key: tuple) -> list[Move]:
        moves: list[Move] = []
        while parent[key] is not None:
            key, move = parent[key]  # type: ignore[misc]
            moves.append(move)
        return moves[::-1]

    if start.won:
        return Search(True, [], 1)
    stack = [(start, start.symmetric_key())]
    while stack:
        game, key = stack.pop()
        # Reversed, so the first legal moves (foundation moves) are tried first.
        for move in reversed(game.legal_moves()):
            child = game.copy()
            child._play(move)
            child_key = child.symmetric_key()
            if child_key in parent:
                continue
            if len(parent) >= limit:
                return Search(None, None, len(parent))
            parent[child_key] = (key, move)
            if child.won:
                return Search(True, path_to(child_key), len(parent))
            stack.append((child, child_key))
    return Search(False, None, len(parent))


def exhaustive(deal: Deal, rules: Rules, limit: int = 500_000) -> bool | None:
    """Is the deal winnable? Decided by complete search (for small decks); None if more than
    ``limit`` positions would have to be visited."""
    return search(deal, rules, limit).winnable


def random_small_deal(rng: random.Random, shape: DeckShape) -> Deal:
    """A uniformly shuffled deal of ``shape`` (every card ``decks`` times), dealt the Klondike way."""
    order = shape.cards() * shape.decks
    rng.shuffle(order)
    return deal_from_order(order, shape)


def random_position(rng: random.Random, shape: DeckShape, rules: Rules, moves: int,
                    home_bias: float = 0.0) -> Deal:
    """A game in progress: a random deal of ``shape`` after up to ``moves`` random legal moves,
    then a random number of each pile's face-down cards turned face up (so its face-up cards
    need not form one run). ``home_bias``: the chance that a move is one to the foundation when
    there is one (so more cards are home)."""
    game = Game(random_small_deal(rng, shape), rules)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        home = [move for move in legal if move.kind in (TABLEAU_TO_FOUNDATION, WASTE_TO_FOUNDATION)]
        game.apply(rng.choice(home if home and rng.random() < home_bias else legal))
    game.face_down = [rng.randint(0, down) for down in game.face_down]
    return game.position()


def random_late_position(rng: random.Random, shape: DeckShape, rules: Rules) -> Deal:
    """A two-deck game late in progress, made directly: each suit's foundation at random
    heights (with 4 foundations mostly in the second round, so that both copies of low ranks are
    home), the other cards scattered over the piles and a short stock, a random number of each
    pile's cards face down. Positions random play seldom reaches: the ones the two-copy
    safe-move rule acts on."""
    ranks, first, second = shape.ranks, [], []
    for _ in range(shape.suits):
        if rules.foundations == 4:
            round_two = rng.random() < 0.7
            first.append(ranks if round_two else rng.randint(0, ranks))
            second.append(rng.randint(0, ranks - 1) if round_two else 0)
        else:
            low, high = sorted((rng.randint(0, ranks), rng.randint(0, ranks)))
            first.append(high)
            second.append(low)
    out = [make_card(rank, suit) for suit in range(shape.suits) for rank in range(ranks)
           for _ in range(2 - (rank < first[suit]) - (rank < second[suit]))]
    rng.shuffle(out)
    stock = [out.pop() for _ in range(min(len(out) // 4, rng.randint(0, 3)))]
    piles: list[list[int]] = [[] for _ in range(shape.columns)]
    for card in out:
        piles[rng.randrange(shape.columns)].append(card)
    face_down = [rng.randint(0, max(len(p) - 1, 0)) for p in piles]
    return Deal(tuple(map(tuple, piles)), tuple(stock), shape, tuple(face_down),
                foundations=tuple(first + second))
