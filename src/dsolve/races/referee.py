"""An independent referee of race records: it replays a record (the JSON-ready data of
:meth:`dsolve.races.race.RaceRecord.to_dict`) move by move from the two seeds, written from the
rules pages and sharing no code with the table, the clock or the players.

It checks every move against the variant's rules (the table module's docstring states them),
that all 104 cards are where they should be after every move, each exactly once, that no card
ever leaves a foundation (each foundation's cards before a move lie under the same cards after
it) and each holds A upward of its suit; in turn mode that the right seat moves (the lower
one-card pile starts; a seat's turn ends with a turn of its stock or a pass); and that the
claimed end, winner and counts are what the moves give: with the win line ``first`` a race
ends the moment a seat has emptied its own piles, stock and waste (checked for both seats after
every move: the other seat's move can carry a seat's last card away), never earlier, and that
seat wins; with ``count`` it ends when both have; otherwise (and always with ``count``) the seat
that placed more cards on the foundations wins and equal counts draw. The variants: ``locked``
keeps each seat in its own layout; ``milder`` lets a seat build on the other tableau but never
move a card off it; ``open`` also lets it take the other tableau's top card onward. (That a race
ended blocked, no seat able to progress, is the engine's check; the referee does not search.)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..cards import parse_card
from ..klondike.deals import make_deal

_STOCK = re.compile(r"^([AB]) (turn|redeal|pass)$")
_PLAY = re.compile(r"^([AB]) ([ab])(w|[1-7])>(f[1-8]|[ab][1-7])(?:x([0-9]+))? (\S+)([ab])$")


class Foul(Exception):
    """A move or claim the rules do not allow."""


@dataclass(frozen=True)
class Verdict:
    """``ok`` when the whole record is lawful; ``steps`` moves replayed; ``error`` names the first
    failing step (1-based) or claim and why."""

    ok: bool
    steps: int
    error: str | None = None


class _Seat:
    def __init__(self, owner: int, seed: int, convention: str) -> None:
        deal = make_deal(convention, seed)
        self.piles = [[(owner, c) for c in pile] for pile in deal.tableau]
        self.down = [len(pile) - 1 for pile in deal.tableau]
        self.stock = [(owner, c) for c in deal.stock]
        self.waste: list[tuple[int, int]] = []
        self.passes = 1

    def clear(self) -> bool:
        return not self.stock and not self.waste and all(not p for p in self.piles)


def _colour(card: tuple[int, int]) -> int:
    return card[1] % 2


def _rank(card: tuple[int, int]) -> int:
    return card[1] // 4


class _Race:
    def __init__(self, record: dict) -> None:
        parts = record["rules"].split(",")
        self.variant = parts[0]
        fields = dict(p.split("=") for p in parts[1:])
        self.draw = int(fields["draw"])
        self.passes = None if fields["passes"] == "unlimited" else int(fields["passes"])
        self.win = fields.get("win", "first")  # records made before the win line was chosen: first
        if self.variant not in ("locked", "open", "milder") or self.draw not in (1, 3) or self.win not in (
                "first", "count"):
            raise Foul(f"unknown rules {record['rules']!r}")
        self.mode = record["mode"]
        self.seats = [_Seat(owner, seed, record["convention"]) for owner, seed in enumerate(record["seeds"])]
        self.found: list[list[tuple[int, int]]] = [[] for _ in range(8)]
        self.placed = [0, 0]
        self.made = [0, 0]

    def over(self, done: list[int]) -> bool:
        """Do the seats ``done`` (those finished) end the race: one seat (win first), both (count)?"""
        return len(done) == 2 if self.win == "count" else bool(done)

    def all_cards(self) -> list[tuple[int, int]]:
        cards = [c for f in self.found for c in f]
        for seat in self.seats:
            cards += [c for p in seat.piles for c in p] + seat.stock + seat.waste
        return cards

    def fits(self, head: tuple[int, int], pile: list[tuple[int, int]]) -> bool:
        if not pile:
            return _rank(head) == 12
        return _colour(head) != _colour(pile[-1]) and _rank(head) + 1 == _rank(pile[-1])

    def play(self, text: str) -> int:
        """Play one move; return the mover."""
        stock = _STOCK.match(text)
        if stock:
            mover = "AB".index(stock.group(1))
            seat, kind = self.seats[mover], stock.group(2)
            if kind == "turn":
                if not seat.stock:
                    raise Foul("the stock is empty")
                n = min(self.draw, len(seat.stock))
                seat.waste += seat.stock[:n]
                seat.stock = seat.stock[n:]
            elif kind == "redeal":
                if seat.stock or not seat.waste:
                    raise Foul("a redeal needs an empty stock and a waste")
                if self.passes is not None and seat.passes >= self.passes:
                    raise Foul("no pass left")
                seat.stock, seat.waste = seat.waste, []
                seat.passes += 1
            elif self.mode != "turns":
                raise Foul("a pass outside turn mode")
            if kind != "pass":
                self.made[mover] += 1
            return mover
        m = _PLAY.match(text)
        if not m:
            raise Foul("not a move")
        mover = "AB".index(m.group(1))
        src_owner, src, dst = "ab".index(m.group(2)), m.group(3), m.group(4)
        count = int(m.group(5) or 1)
        head = ("ab".index(m.group(7)), parse_card(m.group(6)))
        if src_owner != mover and self.variant != "open":
            raise Foul("the other layout is locked" if self.variant == "locked" else
                       "the other layout's cards are never moved (milder)")
        if src == "w":
            if src_owner != mover:
                raise Foul("the other waste is never played from")
            source, down = self.seats[mover].waste, None
            if count != 1 or not source or source[-1] != head:
                raise Foul("not the waste top")
        else:
            seat, i = self.seats[src_owner], int(src) - 1
            source, down = seat.piles[i], (seat, i)
            if src_owner != mover and count != 1:
                raise Foul("only the top card of the other tableau may be taken")
            if not 1 <= count <= len(source) - seat.down[i] or source[-count] != head:
                raise Foul("the run is not there face up")
            run = source[-count:]
            if any(_colour(a) == _colour(b) or _rank(a) != _rank(b) + 1 for a, b in zip(run, run[1:])):
                raise Foul("not a run")
            if dst[0] != "f" and "ab".index(dst[0]) == src_owner and int(dst[1]) - 1 == i:
                raise Foul("a pile onto itself")
        self._check_target(mover, head, count, dst)
        cards = source[-count:]
        del source[-count:]
        if down is not None:
            seat, i = down
            if source and seat.down[i] >= len(source):
                seat.down[i] = len(source) - 1
        self._put(mover, cards, dst)
        self.made[mover] += 1
        return mover

    def _check_target(self, mover: int, head: tuple[int, int], count: int, dst: str) -> None:
        if dst[0] == "f":
            f = int(dst[1:]) - 1
            if count != 1 or head[1] % 4 != f % 4 or len(self.found[f]) != _rank(head):
                raise Foul("the foundation does not take it")
            return
        side = "ab".index(dst[0])
        if side != mover and self.variant == "locked":
            raise Foul("the other layout is locked")
        if not self.fits(head, self.seats[side].piles[int(dst[1]) - 1]):
            raise Foul("it does not fit there")

    def _put(self, mover: int, cards: list[tuple[int, int]], dst: str) -> None:
        if dst[0] == "f":
            self.found[int(dst[1:]) - 1] += cards
            self.placed[mover] += 1
        else:
            self.seats["ab".index(dst[0])].piles[int(dst[1]) - 1] += cards


def _first(race: _Race) -> int:
    for i in range(7):
        a, b = (_rank(race.seats[s].piles[i][-1]) for s in (0, 1))
        if a != b:
            return 0 if a < b else 1
    return 0


def replay(record: dict) -> Verdict:
    """Replay ``record`` (see the module docstring)."""
    try:
        race = _Race(record)
    except (Foul, KeyError, ValueError) as err:
        return Verdict(False, 0, f"bad record: {err}")
    return _judge(race, record)


def _judge(race: _Race, record: dict) -> Verdict:
    """Replay ``record``'s moves from ``race`` as it stands (the deal, or a position set by hand)."""
    everything = sorted((o, c) for o in (0, 1) for c in range(52))
    moves = record["moves"]
    turn = _first(race)
    if race.mode == "turns" and record["first"] != "AB"[turn]:
        return Verdict(False, 0, f"seat {'AB'[turn]} starts, not {record['first']}")
    for step, text in enumerate(moves, 1):
        before = [list(f) for f in race.found]
        try:
            if race.mode == "turns" and text[:1] != "AB"[turn]:
                raise Foul(f"it is {'AB'[turn]}'s turn")
            race.play(text)
        except (Foul, ValueError, IndexError) as err:
            return Verdict(False, step - 1, f"step {step} ({text}): {err}")
        if race.mode == "turns" and text.split()[1] in ("turn", "pass"):
            turn = 1 - turn
        if sorted(race.all_cards()) != everything:
            return Verdict(False, step, f"step {step} ({text}): the 104 cards are not all there once")
        for f, (old, new) in enumerate(zip(before, race.found)):
            if new[:len(old)] != old or any(c[1] != r * 4 + f % 4 for r, c in enumerate(new)):
                return Verdict(False, step, f"step {step} ({text}): foundation {f + 1} lost or misbuilt a card")
        done = [s for s in (0, 1) if race.seats[s].clear()]
        if race.over(done) and step != len(moves):
            return Verdict(False, step, f"step {step} ({text}): seat {'AB'[done[0]]} had finished; the race was over")
    return _check_end(record, race, moves)


def _check_end(record: dict, race: _Race, moves: list[str]) -> Verdict:
    n = len(moves)
    done = [s for s in (0, 1) if race.seats[s].clear()]
    if (record["end"] == "finished") != race.over(done):
        return Verdict(False, n, f"the record says {record['end']!r} but the seats finished: {done}")
    if done and race.win == "first":
        winner: str | None = "AB"[done[0]]
    else:
        a, b = race.placed
        winner = None if a == b else "AB"[int(b > a)]
    if record["winner"] != winner:
        return Verdict(False, n, f"the winner is {winner}, not {record['winner']}")
    if list(record["contributed"]) != race.placed or list(record["made"]) != race.made:
        return Verdict(False, n, f"counts: placed {race.placed}, moves {race.made}; the record says "
                                 f"{record['contributed']}, {record['made']}")
    return Verdict(True, n)
