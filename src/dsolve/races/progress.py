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
seat is blocked, unless the search hit its bound of ``max_tables`` tables first: then it cannot
tell (:data:`UNKNOWN`) and the race must not be declared blocked on it.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

from .table import PLAY, RaceMove, Table

MAX_TABLES = 10_000
UNKNOWN = "unknown"


def _measure(table: Table) -> tuple[int, int]:
    return sum(map(len, table.foundations)), sum(map(sum, table.face_down))


def progressed(before: Table, after: Table) -> bool:
    """Has ``after`` (``before`` and moves) progressed: a card more on the foundations, a face-down
    card fewer, or a seat finished?"""
    (home, down), (home2, down2) = _measure(before), _measure(after)
    return home2 > home or down2 < down or any(after.finished(s) and not before.finished(s) for s in (0, 1))


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
    the result (so two seats' searches can take turns, :func:`first_progress`)."""
    seen = {table.key()}
    queue: deque[tuple[Table, list[RaceMove]]] = deque([(table, [])])
    while queue:
        here, path = queue.popleft()
        for move in here.legal_moves(seat):
            after = here.copy()
            after.apply(move, check=False)
            if move.kind == PLAY and progressed(here, after):
                yield path + [move]
                return
            key = after.key()
            if key in seen:
                continue
            if len(seen) >= max_tables:
                yield UNKNOWN
                return
            seen.add(key)
            queue.append((after, path + [move]))
        yield SEARCHING
    yield None


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
