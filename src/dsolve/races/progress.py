"""Can a seat still progress? The check that ends a race as blocked (simultaneous-solitaire-fr.txt,
"Fin de la partie": when both seem blocked, the players look over the tableaus and a full cycle of
each stock; the game ends if neither can progress; moves to and fro between columns are not
progress).

*Progress* is a card placed on a foundation, a face-down card turned up, or a seat finished.
:func:`progress_path` searches, breadth first, every table reachable by one seat's own legal moves
alone (the other seat does not move): its stock turned and redealt within the pass limit, its
plays between piles (and, in the open and milder races, onto and from the other tableau as the
variant lets it), each table once (:meth:`~dsolve.races.table.Table.key`). A move that makes
progress ends the search with the moves that lead to it, shortest first. Without progress the
search has seen the seat's whole reachable game (a full cycle of its stock among it) and the
seat is blocked (:func:`cannot_progress` proves many blocks with no search), unless the search
hit its bound of ``max_tables`` tables first: then it cannot tell (:data:`UNKNOWN`) and the race
must not be declared blocked on it.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

from .table import (FOUNDATION, KING, LOCKED, OPEN, PLAY, RANK_RED, REDEAL, TAKES, TURN, WASTE, RaceMove,
                    RaceRules, Table, runs, spots_of)

MAX_TABLES = 100_000
UNKNOWN = "unknown"


def progress_path(table: Table, seat: int, max_tables: int = MAX_TABLES) -> list[RaceMove] | None | str:
    """The shortest list of ``seat``'s moves from ``table`` whose last one makes progress (see the
    module docstring); None: no progress is reachable (the seat is blocked); :data:`UNKNOWN`: the
    search met ``max_tables`` tables first. ``table`` is left as it is."""
    for result in searching(table, seat, max_tables):
        if result is not SEARCHING:
            return result
    raise AssertionError("a search ends with its result")


SEARCHING = object()


def searching(table: Table, seat: int, max_tables: int = MAX_TABLES) -> Iterator[object]:
    """:func:`progress_path` a table at a time: :data:`SEARCHING` after each table looked at, then
    the result (so two seats' searches can take turns, :func:`first_progress`).

    The search plays on a compact copy of what ``seat``'s own moves can change (both tableaus, its
    stock and waste, its passes: the foundations cannot change without progress, which ends the
    search) and makes the moves of :meth:`Table.legal_moves` in the same order, so it visits the
    tables that copying the :class:`Table` would, in the same order, and finds the same moves.
    Before it, :func:`cannot_progress` may prove the seat blocked with no search."""
    if cannot_progress(table, seat):
        yield None
        return
    rules, other = table.rules, 1 - seat
    sides = (seat,) if rules.variant == LOCKED else (seat, other)
    take_other = rules.variant == OPEN
    home = [table.home_pile(code) for code in range(2 * 52)]  # (the foundations stand still)
    other_out = not table.stock[other] and not table.waste[other]  # its piles emptied: finished
    start = (tuple(tuple(p) for p in table.piles[0]), tuple(tuple(p) for p in table.piles[1]),
             tuple(table.face_down[0]), tuple(table.face_down[1]), tuple(table.stock[seat]),
             tuple(table.waste[seat]), table.passes_used[seat])
    parent: dict[tuple, tuple] = {start: ()}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        seat_done, other_done = _finished(here, seat), other_out and not any(here[other])
        for move, after in _children(here, seat, sides, take_other, home, rules):
            if after is None or (not seat_done and _finished(after, seat)) or (
                    other_out and not other_done and not any(after[other])):  # a seat finished
                yield _path(parent, here, move, seat)
                return
            if after in parent:
                continue
            if len(parent) >= max_tables:
                yield UNKNOWN
                return
            parent[after] = (here, move)
            queue.append(after)
        yield SEARCHING
    yield None


def _finished(state: tuple, seat: int) -> bool:
    return not state[4] and not state[5] and not any(state[seat])


def _path(parent: dict[tuple, tuple], here: tuple, last: tuple, seat: int) -> list[RaceMove]:
    moves = [last]
    while parent[here]:
        here, move = parent[here]
        moves.append(move)
    return [RaceMove(seat, *m) for m in reversed(moves)]


def _children(state: tuple, seat: int, sides: tuple[int, ...], take_other: bool,
              home: list[int | None], rules: RaceRules) -> Iterator[tuple[tuple, tuple | None]]:
    """``seat``'s moves from ``state`` in :meth:`Table.legal_moves` order, each as (the RaceMove's
    fields after ``seat``, the state after it); the state is None when the move progresses (a card
    home or a face-down card turned up). ``home[code]``: the foundation that takes the card."""
    piles, down, stock, waste, passes = state[:2], state[2:4], state[4], state[5], state[6]
    spots = spots_of(piles, sides)
    sources: list[tuple[int, int, int, int]] = []  # (side, pile, head, count); the waste is pile WASTE
    if waste:
        sources.append((seat, WASTE, waste[-1], 1))
    for side in sides:
        for i, pile in enumerate(piles[side]):
            if side == seat:
                sources += [(side, i, head, count) for head, count in runs(pile, down[side][i])]
            elif take_other and pile:
                sources.append((side, i, pile[-1], 1))
    for src_side, src, head, count in sources:
        if count == 1:
            if home[head] is not None:
                yield (PLAY, src_side, src, FOUNDATION, home[head], 1, head), None
        for side, j in spots.get(RANK_RED[head], ()):
            if (side, j) == (src_side, src):
                continue
            move = (PLAY, src_side, src, side, j, count, head)
            new_piles = list(piles)
            if src == WASTE:
                new_waste, cards = waste[:-1], (head,)
            else:
                new_waste, cards = waste, piles[src_side][src][-count:]
                left = piles[src_side][src][:-count]
                if left and down[src_side][src] >= len(left):
                    yield move, None  # a face-down card turned up
                    continue
                rest = list(new_piles[src_side])
                rest[src] = left
                new_piles[src_side] = tuple(rest)
            onto = list(new_piles[side])
            onto[j] += cards
            new_piles[side] = tuple(onto)
            yield move, (new_piles[0], new_piles[1], down[0], down[1], stock, new_waste, passes)
    if stock:
        n = rules.draw
        yield (TURN,), (piles[0], piles[1], down[0], down[1], stock[n:], waste + stock[:n], passes)
    elif rules.passes is None:  # (the passes used matter only under a limit)
        if waste:
            yield (REDEAL,), (piles[0], piles[1], down[0], down[1], waste, (), passes)
    elif waste and passes < rules.passes:
        yield (REDEAL,), (piles[0], piles[1], down[0], down[1], waste, (), passes + 1)


def cannot_progress(table: Table, seat: int) -> bool:
    """True only if ``seat`` surely cannot progress: no search needed. (False says nothing.)

    It works out, in a relaxed game, which cards ``seat`` could ever lift: a card lifts when what
    lay above it at the start has lifted or lies on it in sequence (so moves with it), and some
    spot takes it: a card of the rank above in the other colour that has lifted (it lies on top
    wherever it went) or is still where it was with what lay above it lifted, or, for a king, a
    pile empty or emptied (its bottom card lifted). Every card of the seat's stock and waste counts
    as reachable. The relaxed game lets a spot take any number of cards, at any time, in any order,
    so it lifts at least every card the real game can lift before its first progress (by induction
    over a real line: at a card's first lift, what lay on it has lifted or rides on it, and the
    spot it goes to has lifted or had its cover lifted). Progress needs a card of the next rank of
    a foundation reachable (lifted, uncovered, or in the stock or waste), a pile's lowest face-up
    card over face-down ones lifted, or (open and milder) every card of a seat's lifted; when the
    relaxed game reaches none of these, neither can the real one."""
    rules, other = table.rules, 1 - seat
    if table.finished(seat) or table.finished(other):
        return False  # (a seat out may take a card back and finish again)
    spot_sides = (seat,) if rules.variant == LOCKED else (seat, other)
    piles, down = table.piles, table.face_down
    hand = table.stock[seat] + table.waste[seat]
    lifted: set[int] = set()

    def clear(side: int, pile: list[int], i: int) -> bool:
        """Can the card at ``pile[i]`` come to the top, or ride on top with what lies on it?"""
        for j in range(i + 1, len(pile)):
            if pile[j] in lifted:
                return True
            if side != seat or RANK_RED[pile[j]] != TAKES[pile[j - 1]]:
                return False  # (the other's cards are taken one at a time)
        return True

    def uncovered(pile: list[int], i: int) -> bool:
        """Is (or will) the card at ``pile[i]`` be on top? (A card that lifted carries what lay on
        it: what it lay on is uncovered once it lifted, not itself.)"""
        return i + 1 == len(pile) or pile[i + 1] in lifted

    def empties(side: int, k: int) -> bool:
        """Is (or will) pile ``k`` of ``side`` be empty (its bottom card lifted)?"""
        pile = piles[side][k]
        return not pile or (not down[side][k] and pile[0] in lifted)

    # The cards that could take a card of each (rank, red) on them: (side, pile, index) of each
    # face-up card on a side the seat builds on; and the seat's stock and waste cards (once played).
    holders: dict[tuple[int, bool], list[tuple[int, int, int]]] = {}
    for side in spot_sides:
        for k, pile in enumerate(piles[side]):
            for i in range(down[side][k], len(pile)):
                holders.setdefault(TAKES[pile[i]], []).append((side, k, i))
    hand_holders: dict[tuple[int, bool], list[int]] = {}
    for code in hand:
        hand_holders.setdefault(TAKES[code], []).append(code)

    def spot(code: int, sides: tuple[int, ...] = spot_sides) -> bool:
        """Can a spot on one of ``sides``'s tableaus take ``code`` (now or later)?"""
        if RANK_RED[code][0] == KING:
            return any(empties(side, k) for side in sides for k in range(len(piles[side])))
        if seat in sides and any(c in lifted for c in hand_holders.get(RANK_RED[code], ())):
            return True  # (a stock or waste card, played onto the seat's tableau)
        return any(side in sides and uncovered(piles[side][k], i)
                   for side, k, i in holders.get(RANK_RED[code], ()))

    takeable = [(side, k, i) for side in ((seat, other) if rules.variant == OPEN else (seat,))
                for k, pile in enumerate(piles[side]) for i in range(down[side][k], len(pile))]
    changed = True
    while changed:
        changed = False
        for code in hand:
            if code not in lifted and spot(code):
                lifted.add(code)
                changed = True
        for side, k, i in takeable:
            code = piles[side][k][i]
            if code not in lifted and clear(side, piles[side][k], i) and spot(code):
                lifted.add(code)
                changed = True
    heights = [len(f) for f in table.foundations]
    wanted = {owner * 52 + heights[f] * 4 + f % 4 for f in range(len(heights)) if heights[f] <= KING
              for owner in (0, 1)}
    if wanted & (lifted | set(hand)):
        return False
    for side, k, i in takeable:
        pile = piles[side][k]
        if pile[i] in wanted and uncovered(pile, i):
            return False
        if i == down[side][k] > 0 and pile[i] in lifted:
            return False  # a face-down card turned up
    if rules.variant != LOCKED:
        for s in (seat, other) if rules.variant == OPEN else (seat,):
            if s == seat:
                out, cards = all(code in lifted for code in hand), [*hand]
            else:
                out, cards = not (table.stock[s] or table.waste[s]), []
            cards += [code for pile in piles[s] for code in pile]
            kings = sum(RANK_RED[code][0] == KING for code in cards)
            room = sum(empties(1 - s, k) for k in range(len(piles[1 - s])))
            if out and any(piles[s]) and kings <= room and all(
                    not p or (empties(s, k) and spot(p[0], (1 - s,))) for k, p in enumerate(piles[s])):
                return False  # a seat finished: its piles gone to the other tableau (a king to each empty pile)
    return True


def first_progress(table: Table, seats: Sequence[int],
                   max_tables: int = MAX_TABLES) -> tuple[int, list[RaceMove]] | None | str:
    """The first of ``seats`` found able to progress, and its moves: their searches take turns a
    table at a time, so a seat that progresses in a few moves is found before another's long
    search ends (the earlier seat first at equal effort). None: no seat can progress;
    :data:`UNKNOWN`: none was found to and a search met its bound."""
    searches = {seat: searching(table, seat, max_tables) for seat in seats}
    results: dict[int, object] = {}
    while len(results) < len(searches):
        for seat, search in searches.items():
            if seat in results:
                continue
            result = next(search)
            if isinstance(result, list):
                return seat, result
            if result is not SEARCHING:
                results[seat] = result
    return UNKNOWN if UNKNOWN in results.values() else None


def blocked(table: Table, max_tables: int = MAX_TABLES) -> bool:
    """Is the race on ``table`` blocked: neither seat can progress (each search complete)?"""
    return first_progress(table, (0, 1), max_tables) is None
