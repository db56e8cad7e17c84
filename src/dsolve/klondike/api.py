"""The public API: decide a deal with the native core and return a replayable winning line.

The core searches macro moves (a talon card reached by turning the stock, a run moved and the
exposed card sent home, safe cards sent home automatically, a lone child moved onto its other
parent so that a safe card under it can go home). :func:`solve` expands them into the
single steps of :mod:`dsolve.klondike.moves`, applying each to a :class:`dsolve.klondike.referee.Game`, so a line
that comes out of here has already been checked move by move by the independent referee.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .. import _core
from ..cards import SUITS, full_shape
from .deal import Deal
from .deals import DEFAULT_CONVENTION, make_deal
from .dealfiles import dump_deal
from ..errors import InputError, SolverBug
from ..limits import checked_limit, default_memory_mb
from .moves import (FOUNDATION_TO_TABLEAU, REDEAL, TABLEAU_TO_FOUNDATION, TABLEAU_TO_TABLEAU,
                    TURN, WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move)
from .referee import Game, IllegalMove
from .result import UNKNOWN, UNWINNABLE, WINNABLE, Hint, Result
from ..rules import STANDARD_RULES, Rules

_VERDICTS = {1: WINNABLE, 0: UNWINNABLE, -1: UNKNOWN}


def _rules(rules: Rules | str) -> Rules:
    """``rules`` itself, or the rules a preset name or rules string gives."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.parse(rules)
    raise InputError(f"rules must be a Rules, a preset name or a rules string, got {rules!r}")


def solve(deal: Deal, rules: Rules | str = STANDARD_RULES, *, max_nodes: int | None = None,
          timeout: float | None = None, memory_mb: float | None = None) -> Result:
    """Decide ``deal`` under ``rules`` (a :class:`Rules`, a preset name or a rules string).

    ``max_nodes`` (positions), ``timeout`` (seconds) and ``memory_mb`` (the transposition tables'
    memory, default :func:`default_memory_mb`) bound the search; each is ``None`` or a positive
    finite number. When the positions or seconds run out the verdict is ``unknown`` and
    ``Result.limit`` says why (see :data:`dsolve.klondike.result.LIMITS`).
    """
    rules = _rules(rules)
    verdict, line, nodes, seconds, peak, limit, memory_mb, dead = _search(deal, rules, max_nodes,
                                                                          timeout, memory_mb)
    try:
        moves = expand_line(deal, rules, line) if verdict == 1 else ()
    except (IllegalMove, RuntimeError) as err:
        raise _line_bug(deal, rules, err) from None
    return Result(_VERDICTS[verdict], moves, nodes, seconds, peak, limit, memory_mb, tuple(dead))


@dataclass(frozen=True)
class Plan:
    """A verdict whose winning line is expanded into single moves only as far as it is read.

    ``verdict``, ``nodes``, ``limit`` as in :class:`Result`; ``moves``: for a win, an iterator over
    the line's single moves, each checked by a referee game as it is produced (empty otherwise).
    For players that read a line's first moves only, this saves expanding all of it.
    """

    verdict: str
    nodes: int
    limit: str
    moves: Iterator[Move]


def plan(deal: Deal, rules: Rules | str = STANDARD_RULES, *, max_nodes: int | None = None,
         timeout: float | None = None, memory_mb: float | None = None) -> Plan:
    """Decide ``deal`` like :func:`solve`, expanding the winning line lazily (see :class:`Plan`)."""
    rules = _rules(rules)
    verdict, line, nodes, _, _, limit, _, _ = _search(deal, rules, max_nodes, timeout, memory_mb)

    def checked() -> Iterator[Move]:
        try:
            yield from single_moves(Game(deal, rules), line)
        except (IllegalMove, RuntimeError) as err:
            raise _line_bug(deal, rules, err) from None

    return Plan(_VERDICTS[verdict], nodes, limit, checked() if verdict == 1 else iter(()))


def _search(deal: Deal, rules: Rules, max_nodes: int | None, timeout: float | None,
            memory_mb: float | None) -> tuple:
    """The core's answer for ``deal``: (verdict code, macro line, nodes, seconds, table peak,
    limit, the table memory used, dead cards)."""
    if deal.shape.decks != rules.decks:
        raise InputError(f"the deal has {deal.shape.decks} deck(s) but the rules are for "
                         f"{rules.decks} (see --decks)")
    max_nodes = checked_limit("max_nodes", max_nodes, integer=True)
    timeout = checked_limit("timeout", timeout)
    memory_mb = checked_limit("memory_mb", memory_mb) or default_memory_mb()
    if rules.passes is not None and deal.passes_used > rules.passes:
        raise InputError(f"the position is in pass {deal.passes_used}, but the rules allow "
                         f"{rules.passes}")
    try:
        verdict, line, nodes, seconds, peak, limit, dead = _core.solve_position(
            [list(p) for p in deal.tableau], list(deal.face_down), deal.talon,
            deal.shape.suits, deal.shape.ranks, rules.draw, rules.passes or 0,
            _core.EMPTY_RULE_CODES[rules.empty_rule], rules.worry_back, max_nodes or 0, timeout or 0.0,
            memory_mb, home=core_foundations(deal, rules), waste=len(deal.waste),
            passes_used=deal.passes_used, decks=rules.decks, foundations=rules.foundations)
    except ValueError as err:  # a layout beyond the core's fixed sizes
        raise InputError(str(err)) from None
    return verdict, line, nodes, seconds, peak, limit, memory_mb, dead


def _line_bug(deal: Deal, rules: Rules, err: Exception) -> SolverBug:
    return SolverBug(f"the solver's winning line is wrong ({err}) under {rules}; please report "
                     f"it with this deal: {' '.join(dump_deal(deal, 'json').split())}")


def core_foundations(deal: Deal, rules: Rules) -> list[int]:
    """The deal's foundation piles as the core keeps them: one height a suit; two decks with 4
    foundations, the cards of both rounds (the second pile begun only on a complete first);
    with 8, each suit's higher pile in slots 0..3, then the lower ones in slots 4..7 (whatever
    the number of suits)."""
    heights = list(deal.foundations)
    suits, ranks = deal.shape.suits, deal.shape.ranks
    if rules.decks == 1:
        return heights
    first, second = heights[:suits], heights[suits:]
    if rules.foundations == 8:
        higher = [max(p) for p in zip(first, second)]
        return higher + [0] * (4 - suits) + [min(p) for p in zip(first, second)]
    for suit, (a, b) in enumerate(zip(first, second)):
        if b and a < ranks:
            raise InputError(f"the second {SUITS[suit]} foundation is begun before the first is "
                             "complete (4 foundations: A..K, then A..K again)")
    return [a + b for a, b in zip(first, second)]


def hints(deal: Deal, rules: Rules | str = STANDARD_RULES, *, max_nodes: int | None = None,
          timeout: float | None = None, memory_mb: float | None = None) -> list[Hint]:
    """Every legal single move from ``deal`` (a game in progress or a starting deal), each with the
    verdict of the position it leads to under the limits given (per move): moves that keep the
    game winnable first, those with the shortest winning line found first, then unknown, then
    the moves that lose it."""
    rules = _rules(rules)
    game = Game(deal, rules)
    out = []
    for move in game.legal_moves():
        child = game.copy()
        child.apply(move)
        out.append(Hint(move, solve(child.position(), rules, max_nodes=max_nodes, timeout=timeout,
                                    memory_mb=memory_mb)))
    order = {WINNABLE: 0, UNKNOWN: 1, UNWINNABLE: 2}
    return sorted(out, key=lambda h: (order[h.verdict], len(h.result.moves)))


def check(seed_or_deal: int | str | Deal, rules: Rules | str = STANDARD_RULES,
          deal: str = DEFAULT_CONVENTION, *, max_nodes: int | None = None,
          timeout: float | None = None, memory_mb: float | None = None) -> Result:
    """Decide a deal: a :class:`Deal` (or game in progress), or the seed of one in the seed
    convention ``deal`` (see :mod:`dsolve.klondike.deals`; as the CLI's ``--deal``; two-deck rules deal the
    two-deck shape). ``rules``: a :class:`Rules`, a preset name or a rules string. The rest as
    :func:`solve`."""
    rules = _rules(rules)
    position = (seed_or_deal if isinstance(seed_or_deal, Deal)
                else make_deal(deal, seed_or_deal, full_shape(rules.decks)))
    return solve(position, rules, max_nodes=max_nodes, timeout=timeout, memory_mb=memory_mb)


def expand_line(deal: Deal, rules: Rules, line: list[tuple[int, ...]]) -> tuple[Move, ...]:
    """Turn the core's macro moves into single moves, each applied to (so checked by) a referee game."""
    game = Game(deal, rules)
    out = tuple(single_moves(game, line))
    if not game.won:
        raise RuntimeError("internal error: the winning line does not win")
    return out


def single_moves(game: Game, line: list[tuple[int, ...]]) -> Iterator[Move]:
    """The single moves of the core's macro ``line`` from ``game``'s position, one at a time, each
    applied to ``game`` (so checked by the referee) before it is yielded."""

    def play(move: Move) -> Move:
        game.apply(move)
        return move

    def bring_to_waste_top(card: int, position: int | None = None) -> Iterator[Move]:
        # The core promises the card is reachable in this pass or after one redeal. Its position
        # in the talon (waste then stock) tells two copies of a card apart.
        for _ in range(2 * (len(game.stock) + len(game.waste)) + 2):
            if game.waste and game.waste[-1] == card and position in (None, len(game.waste) - 1):
                return
            yield play(Move(TURN) if game.stock else Move(REDEAL))
        raise RuntimeError(f"internal error: talon card {card} not reachable")

    def pile_topped_by(card: int, first: int = 0) -> int | None:
        return next((i for i, p in enumerate(game.piles)
                     if i >= first and p and p[-1] == card), None)

    def safe_source(card: int) -> int | None:
        # The pile the core sent a safe card home from. Its safe moves sweep the piles in order,
        # each pile once a sweep, until a sweep sends nothing (apply_safe_moves): with two copies
        # of a card on top of two piles, the first at or after the pile it last took from is the
        # one, else a new sweep began (a copy met earlier in the sweep was not safe yet, or was
        # uncovered only after the sweep passed it).
        nonlocal sweep_from
        src = pile_topped_by(card, sweep_from)
        if src is None:
            src = pile_topped_by(card)
        sweep_from = src + 1 if src is not None else 0
        return src

    def move_lone_child(child: int) -> Move:
        # From one parent onto the other (the first's twin, a pile's top card).
        src, idx = next((i, p.index(child)) for i, p in enumerate(game.piles) if child in p[1:])
        dst = pile_topped_by(game.piles[src][idx - 1] ^ 2)
        return play(Move(TABLEAU_TO_TABLEAU, src=src, dst=dst, count=len(game.piles[src]) - idx,
                         card=child))

    sweep_from = 0
    for step in line:
        kind, card = step[0], step[-1]
        if kind == _core.AUTO_TRANSFER:
            yield move_lone_child(card)
            continue
        if kind == _core.AUTO_HOME:
            src = safe_source(card)
            if src is not None:
                yield play(Move(TABLEAU_TO_FOUNDATION, src=src, card=card))
            else:
                yield from bring_to_waste_top(card)
                yield play(Move(WASTE_TO_FOUNDATION, card=card))
            continue
        sweep_from = 0                 # the safe moves after this move begin a sweep
        _, src, dst, idx, flags, _ = step
        if kind == _core.TABLEAU_FOUNDATION:
            yield play(Move(TABLEAU_TO_FOUNDATION, src=src, card=card))
        elif kind == _core.TABLEAU_TABLEAU:
            yield play(Move(TABLEAU_TO_TABLEAU, src=src, dst=dst, count=len(game.piles[src]) - idx, card=card))
            if flags & _core.THEN_HOME:
                yield play(Move(TABLEAU_TO_FOUNDATION, src=src, card=game.piles[src][-1]))
        elif kind == _core.TALON_FOUNDATION:
            yield from bring_to_waste_top(card, idx)
            yield play(Move(WASTE_TO_FOUNDATION, card=card))
        elif kind == _core.TALON_TABLEAU:
            yield from bring_to_waste_top(card, idx)
            yield play(Move(WASTE_TO_TABLEAU, dst=dst, card=card))
        else:
            yield play(Move(FOUNDATION_TO_TABLEAU, dst=dst, card=card))
