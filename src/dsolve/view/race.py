"""Double-solitaire race pictures: a race record (:meth:`dsolve.races.race.RaceRecord.to_dict`)
checked by the independent race referee, then replayed move by move on the race table, the
board drawn after each move: both seats' tableaux, stocks and wastes, the eight shared
foundations, and which seat moved. Each card's deck shows in its edge (A's grey, B's gold) and
its back (A's blue, B's red)."""
from __future__ import annotations

from ..cards import card_name
from ..errors import InputError
from ..races import referee
from ..races.table import (FOUNDATION, PASS, PLAY, REDEAL, SEATS, TURN, WASTE, RaceMove, RaceRules, Table,
                           parse_race_move)
from ..rules import parse_draw, parse_passes
from . import svg
from .page import Frame

MARGIN = 16
_GAP = 40                  # between the two seats' tableaux
_TOP = MARGIN + 22
_TABLEAU = _TOP + svg.CARD_H + 42
_FAN = 16
_WIDTH = 2 * MARGIN + 14 * svg.STEP - (svg.STEP - svg.CARD_W) + _GAP
_MOVER = "#ffd34d"


def _rules(text: str) -> RaceRules:
    variant, *fields = text.split(",")
    values = dict(f.split("=", 1) for f in fields)
    return RaceRules(variant, parse_draw(values["draw"]), parse_passes(values["passes"]))


def replay(record: dict) -> tuple[Table, list[RaceMove]]:
    """The record's starting table and its moves, after the referee has passed the whole record
    (:class:`InputError` naming the first fault otherwise)."""
    try:
        verdict = referee.replay(record)
        if verdict.ok:
            table = Table.from_seeds(record["seeds"], _rules(record["rules"]), record["convention"])
            return table, [parse_race_move(text) for text in record["moves"]]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise InputError(f"not a race record: {type(err).__name__} {err}") from None
    raise InputError(f"not a race record the referee passes: {verdict.error}")


def _place(side: int, pile: int) -> str:
    if side == FOUNDATION:
        return f"foundation {pile + 1}"
    if pile == WASTE:
        return "its waste"
    return f"{SEATS[side]}'s pile {pile + 1}"


def describe(move: RaceMove, table: Table) -> str:
    """``move`` in words (``table`` the position after it, for the pass count of a redeal)."""
    who = f"seat {SEATS[move.seat]}"
    if move.kind == TURN:
        return f"{who} turns its stock"
    if move.kind == REDEAL:
        return f"{who} turns its waste over (pass {table.passes_used[move.seat]})"
    if move.kind == PASS:
        return f"{who} passes"
    run = f" ({move.count} cards)" if move.count > 1 else ""
    return (f"{who} plays {card_name(move.card % 52)} of {SEATS[move.card // 52]}'s deck{run} from "
            f"{_place(move.src_side, move.src)} to {_place(move.dst_side, move.dst)}")


def _card(x: float, y: float, code: int, cls: str = "up") -> str:
    return svg.card(x, y, code % 52, code // 52, cls)


def board(table: Table, players: tuple[str, str], moved: RaceMove | None = None) -> str:
    """The race table as an ``<svg>``: seat A on the left, B on the right, the foundations
    between their stocks; the seat that made ``moved`` (the move that led here) is named in
    yellow, and what the move put down is outlined."""
    mover = None if moved is None else moved.seat
    kind = None if moved is None else moved.kind
    play = moved if moved is not None and moved.kind == PLAY else None
    parts = []
    halves = (MARGIN, MARGIN + 7 * svg.STEP + _GAP)
    for seat, left in enumerate(halves):
        right = left + 7 * svg.STEP - (svg.STEP - svg.CARD_W)
        title = (f"seat {SEATS[seat]} ({players[seat]}): {table.contributed[seat]} placed, "
                 f"pass {table.passes_used[seat]}" + (", moved" if seat == mover else ""))
        parts.append(svg.label(left if seat == 0 else right, MARGIN + 8, title, 14, "start" if seat == 0 else "end",
                               bold=seat == mover, colour=_MOVER if seat == mover else "#f4f4ea"))
        stock_x = left if seat == 0 else right - svg.CARD_W
        waste_x = left + svg.STEP if seat == 0 else right - svg.STEP - svg.CARD_W - 2 * _FAN
        if table.stock[seat]:
            parts += [svg.back(stock_x, _TOP, seat, "stock"), svg.count(stock_x, _TOP, len(table.stock[seat]))]
        else:
            parts.append(svg.place(stock_x, _TOP, "stock"))
        if kind == REDEAL and seat == mover:
            parts.append(svg.mark(stock_x, _TOP))
        shown = table.waste[seat][-table.rules.draw:]
        if not shown:
            parts.append(svg.place(waste_x, _TOP, "waste"))
        parts += [_card(waste_x + k * _FAN, _TOP, code, "waste") for k, code in enumerate(shown)]
        if table.waste[seat]:
            parts.append(svg.count(waste_x, _TOP, len(table.waste[seat])))
        if kind == TURN and seat == mover:
            parts.append(svg.mark(waste_x + (len(shown) - 1) * _FAN, _TOP))
        for i, (pile, down) in enumerate(zip(table.piles[seat], table.face_down[seat])):
            x, y = left + i * svg.STEP, _TABLEAU
            parts.append(svg.label(x + svg.CARD_W / 2, _TABLEAU - 8, f"{SEATS[seat].lower()}{i + 1}", 12,
                                   "middle", colour="#cfe3cf"))
            if not pile:
                parts.append(svg.place(x, y))
            for k, code in enumerate(pile):
                parts.append(svg.back(x, y, code // 52) if k < down else _card(x, y, code))
                if play is not None and (play.dst_side, play.dst) == (seat, i) and k == len(pile) - play.count:
                    parts.append(svg.mark(x, y, (play.count - 1) * svg.UP_GAP + svg.CARD_H))
                y += svg.DOWN_GAP if k < down else svg.UP_GAP
    first = _WIDTH / 2 - (8 * svg.STEP - (svg.STEP - svg.CARD_W)) / 2
    for f, pile in enumerate(table.foundations):
        x = first + f * svg.STEP
        parts.append(_card(x, _TOP, pile[-1], "home") if pile else svg.place(x, _TOP, f"f{f + 1}"))
        if play is not None and (play.dst_side, play.dst) == (FOUNDATION, f):
            parts.append(svg.mark(x, _TOP))
    longest = max(len(p) * svg.UP_GAP for side in table.piles for p in side)
    return svg.svg("".join(parts), _WIDTH, _TABLEAU + svg.CARD_H + longest + MARGIN)


def frames(record: dict) -> list[Frame]:
    """The race's start, then the table after each of its moves."""
    table, moves = replay(record)
    players = (str(record["players"][0]), str(record["players"][1]))
    out = [Frame(board(table, players), f"the start: seat A deals seed {record['seeds'][0]}, "
                                        f"seat B seed {record['seeds'][1]}; {len(moves)} moves")]
    for k, move in enumerate(moves, 1):
        if move.kind != PASS:
            table.apply(move)
        out.append(Frame(board(table, players, move), f"{k}. {move}: {describe(move, table)}"))
    return out


def summary(record: dict) -> str:
    """One line: the rules, mode, players, and how the race ended."""
    winner = "a draw" if record["winner"] is None else f"seat {record['winner']} wins"
    return (f"{record['rules']}, {record['mode']} mode; A {record['players'][0]} (seed {record['seeds'][0]}), "
            f"B {record['players'][1]} (seed {record['seeds'][1]}); ended {record['end']}, {winner}, "
            f"cards placed A {record['contributed'][0]}, B {record['contributed'][1]}")
