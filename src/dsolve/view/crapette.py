"""Crapette pictures: a round record (:func:`dsolve.crapette.rounds.round_record`, what
``dsolve crapette play --json`` prints) checked by replaying it whole, then played again move by
move on the engine, the table drawn after each move: both seats' reserves (face-down cards as a
back, the top face up), draw piles, wastes and drawn card, the eight houses and the eight
foundations, and which seat moved."""
from __future__ import annotations

from ..crapette.game import (DISCARD, DRAW, DRAW_PILE, FOUNDATION, HAND, OPP_RESERVE, OPP_WASTE, PASS, PLAY,
                             RESERVE, SEATS, TURN, WASTE, Move, Round, Table)
from ..crapette.rounds import replay_record
from ..crapette.rules import Options, name
from ..errors import InputError
from . import svg
from .page import Frame

MARGIN = 16
_HOUSES = 8
_WIDTH = 2 * MARGIN + _HOUSES * svg.STEP - (svg.STEP - svg.CARD_W)
_ROW = svg.CARD_H + 44          # a seat's row, with its title and counts
_HOUSE_DEPTH = svg.CARD_H + 12 * svg.UP_GAP
_MOVER = "#ffd34d"
_PLACES = {RESERVE: "its reserve", HAND: "the drawn card", FOUNDATION: "a foundation",
           OPP_RESERVE: "the other seat's reserve", OPP_WASTE: "the other seat's waste"}


def _place(place: int) -> str:
    return _PLACES.get(place) or f"house {place + 1}"


def describe(move: Move, seat: int) -> str:
    """``move`` of ``seat`` in words."""
    who = f"seat {SEATS[seat]}"
    if move.kind == DRAW:
        return f"{who} draws {name(move.card)}"
    if move.kind == DISCARD:
        return f"{who} cannot play {name(move.card)}: it goes to the waste and the turn ends"
    if move.kind == TURN:
        return f"{who} turns its waste over as a new draw pile"
    if move.kind == PASS:
        return f"{who} has nothing to draw and passes"
    source = "" if move.src == HAND else f" from {_place(move.src)}"
    return f"{who} plays {name(move.card)}{source} to {_place(move.dst)}"


def _card(x: float, y: float, card: int, cls: str = "up") -> str:
    return svg.card(x, y, card % 52, card // 52, cls)


def _marked(move: Move | None, seat: int, mover: int | None) -> int | None:
    """Which of ``seat``'s places the last move put a card on: RESERVE, DRAW_PILE, WASTE, HAND or None."""
    if move is None:
        return None
    if seat == mover:
        return {DRAW: HAND, DISCARD: WASTE, TURN: DRAW_PILE}.get(move.kind)
    return {OPP_RESERVE: RESERVE, OPP_WASTE: WASTE}.get(move.dst) if move.kind == PLAY else None


def _seat_row(table: Table, seat: int, player: str, top: float, move: Move | None, mover: int | None) -> list[str]:
    moved = seat == mover
    mark = _marked(move, seat, mover)
    parts = [svg.label(MARGIN, top + 12, f"seat {SEATS[seat]} ({player}): {table.left(seat)} cards left to score"
                       + (", moved" if moved else ""), 14, bold=moved, colour=_MOVER if moved else "#f4f4ea")]
    y, x = top + 22, MARGIN
    reserve, down = table.reserve[seat], table.down[seat]
    if not reserve:
        parts.append(svg.place(x, y, "reserve"))
    if down:
        parts.append(svg.back(x, y, seat))
    if len(reserve) > down:
        parts.append(_card(x + (18 if down else 0), y, reserve[-1]))
        if mark == RESERVE:
            parts.append(svg.mark(x + (18 if down else 0), y))
    if reserve:
        parts.append(svg.count(x, y, len(reserve)))
    x += 2 * svg.STEP
    if table.draw[seat]:
        parts += [svg.back(x, y, seat, "stock"), svg.count(x, y, len(table.draw[seat]))]
    else:
        parts.append(svg.place(x, y, "draw"))
    if mark == DRAW_PILE:
        parts.append(svg.mark(x, y))
    x += svg.STEP
    if table.waste[seat]:
        parts += [_card(x, y, table.waste[seat][-1], "waste"), svg.count(x, y, len(table.waste[seat]))]
    else:
        parts.append(svg.place(x, y, "waste"))
    if mark == WASTE:
        parts.append(svg.mark(x, y))
    x += svg.STEP
    if table.hand >= 0 and table.turn == seat:
        parts += [_card(x, y, table.hand), svg.label(x + svg.CARD_W / 2, y + svg.CARD_H + 14, "drawn", 12, "middle")]
        if mark == HAND:
            parts.append(svg.mark(x, y))
    return parts


def board(table: Table, players: tuple[str, str], move: Move | None = None, mover: int | None = None) -> str:
    """The Crapette table as an ``<svg>``: seat B's row on top, the foundations, the houses
    (1-4 dealt by A, 5-8 by B), seat A's row at the bottom; ``mover`` (the seat that made
    ``move``, the move that led here) is named in yellow and what the move put down is outlined."""
    played = move.dst if move is not None and move.kind == PLAY else None
    parts = _seat_row(table, 1, players[1], MARGIN, move, mover)
    top = MARGIN + _ROW
    for f, pile in enumerate(table.found):
        x = MARGIN + f * svg.STEP
        parts.append(_card(x, top, pile[-1], "home") if pile else svg.place(x, top, "found"))
        if played == FOUNDATION and pile and move is not None and pile[-1] == move.card:
            parts.append(svg.mark(x, top))
    top += svg.CARD_H + 30
    for h, pile in enumerate(table.houses):
        x, y = MARGIN + h * svg.STEP, top
        parts.append(svg.label(x + svg.CARD_W / 2, top - 8, f"h{h + 1}", 12, "middle", colour="#cfe3cf"))
        if not pile:
            parts.append(svg.place(x, y))
        for card in pile:
            parts.append(_card(x, y, card))
            y += svg.UP_GAP
        if played == h:
            parts.append(svg.mark(x, y - svg.UP_GAP))
    top += _HOUSE_DEPTH + 12
    parts += _seat_row(table, 0, players[0], top, move, mover)
    return svg.svg("".join(parts), _WIDTH, top + _ROW + MARGIN)


def frames(record: dict) -> list[Frame]:
    """The deal, then the table after each move of the round; :class:`InputError` unless the
    record replays to the end it claims."""
    try:
        replay_record(record)
        rnd = Round.deal(record["seed"], Options.parse(record["options"]))
        players = (str(record["players"][0]), str(record["players"][1]))
        moves = [str(m) for m in record["moves"]]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise InputError(f"not a Crapette round record: {type(err).__name__} {err}") from None
    out = [Frame(board(rnd.table, players), f"the deal of seed {record['seed']}: seat {SEATS[rnd.first]} "
                                            f"starts; {len(moves)} moves")]
    for k, text in enumerate(moves, 1):
        seat = rnd.turn
        move = rnd.play_text(text)
        out.append(Frame(board(rnd.table, players, move, seat),
                         f"{k}. seat {SEATS[seat]}: {move}: {describe(move, seat)}"))
    return out


def summary(record: dict) -> str:
    """One line: the seed, the players and how the round ended."""
    result = record["result"]
    end = (f"seat {SEATS[result['winner']]} goes out" if result["end"] == "out" else result["end"])
    return (f"seed {record['seed']}: A {record['players'][0]}, B {record['players'][1]}; {record['turns']} turns, "
            f"{len(record['moves'])} moves; {end}, points A {result['points'][0]}, B {result['points'][1]}")
