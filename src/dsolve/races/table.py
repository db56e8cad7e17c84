"""The two-seat double solitaire table: each seat's layout, stock and waste from its own seed, the
eight shared foundations, the legal moves of each seat, and what each seat sees.

A card on the table is a *code* ``owner * 52 + card``: ``owner`` is the seat whose deck it comes
from (0 = A, 1 = B) and ``card`` the card of :mod:`dsolve.cards`. Rules (both pages): Klondike
building (down, alternating colour; a face-up run moves as a block if its bottom card fits; an
empty pile takes a king or a king-headed run; a face-down card left on top is turned up at once);
draw 1 or 3; unlimited passes or a pass limit; eight foundations, two per suit (pile ``f`` holds
suit ``f % 4``), each built A..K by either seat, and cards never leave them; a foundation slot goes
to the first card legally placed on it. ``locked`` (simultaneous-solitaire-fr.txt, Pagat): a seat
plays only from its own waste and its own piles onto its own piles and the foundations. ``open``
(double-solitaire-open-race.txt): a seat may also build its cards (and runs) on the other tableau,
and may take the other tableau's *top card* only by playing it onward: onto a foundation or onto
a legal spot on either tableau. ``milder`` (the open-race page's milder game: "you play onto
their tableau but not to move their cards away"): a seat may build its cards and runs on the
other tableau but never moves a card off it. A seat never touches the other stock or waste. A
seat has finished when its own piles, stock and waste are all empty (its cards lying on the other
tableau are out). The win line (the open-race page's "Win line"; ``win``): ``first``, the first
seat to finish wins at once; ``count``, "most cards to foundations", a full game that goes on
until both seats have finished or neither can progress, won by the seat that placed more cards
on the foundations.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..cards import card_name, parse_card
from ..klondike.deal import Deal
from ..klondike.deals import DEFAULT_CONVENTION, make_deal
from ..errors import InputError

LOCKED, OPEN, MILDER = "locked", "open", "milder"
VARIANTS = (OPEN, LOCKED, MILDER)
FIRST, COUNT = "first", "count"
WINS = (FIRST, COUNT)
SEATS = "AB"
PILES = 7
FOUNDATIONS = 8
KING = 12
WASTE = -1        # RaceMove.src: the mover's waste
FOUNDATION = -1   # RaceMove.dst_side: a foundation (dst is its index 0..7)
TURN, REDEAL, PLAY, PASS = "turn", "redeal", "play", "pass"


class IllegalMove(Exception):
    """A move the table's rules forbid (``str(exc)`` says which and why)."""


@dataclass(frozen=True)
class RaceRules:
    """``variant`` locked, open or milder; ``draw`` 1 or 3; ``passes`` trips through the stock
    (None: unlimited); ``win`` first (the first seat to finish wins) or count (the seat that
    placed more cards on the foundations wins)."""

    variant: str = LOCKED
    draw: int = 3
    passes: int | None = None
    win: str = FIRST

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise InputError(f"unknown variant {self.variant!r} (expected {' or '.join(VARIANTS)})")
        if self.draw not in (1, 3) or isinstance(self.draw, bool):
            raise InputError(f"draw must be 1 or 3, got {self.draw!r}")
        if self.passes is not None and (isinstance(self.passes, bool) or not isinstance(self.passes, int)
                                        or self.passes < 1):
            raise InputError(f"passes must be a positive integer or unlimited, got {self.passes!r}")
        if self.win not in WINS:
            raise InputError(f"unknown win {self.win!r} (expected {' or '.join(WINS)})")

    def __str__(self) -> str:
        passes = 'unlimited' if self.passes is None else self.passes
        return f"{self.variant},draw={self.draw},passes={passes},win={self.win}"


def code_of(owner: int, card: int) -> int:
    return owner * 52 + card


def code_name(code: int) -> str:
    """``7Ha``: the card and, in lower case, the seat whose deck it is."""
    return card_name(code % 52) + SEATS[code // 52].lower()


def parse_code(text: str) -> int:
    if len(text) < 3 or text[-1].upper() not in SEATS:
        raise InputError(f"bad card {text!r} (expected e.g. 7Ha: the card and its deck's seat)")
    return code_of(SEATS.index(text[-1].upper()), parse_card(text[:-1]))


def _rank(code: int) -> int:
    return code % 52 // 4


def _suit(code: int) -> int:
    return code % 4


def _red(code: int) -> bool:
    return code % 2 == 1


# What building looks at, by code: the card's (rank, red), and the (rank, red) of a card that lies on it.
RANK_RED = [(_rank(code), _red(code)) for code in range(2 * 52)]
TAKES = [(_rank(code) - 1, not _red(code)) for code in range(2 * 52)]
Spots = dict[tuple[int, bool], list[tuple[int, int]]]  # (side, pile) pairs by the (rank, red) they take


def spots_of(piles: Sequence[Sequence[Sequence[int]]], sides: Sequence[int]) -> Spots:
    """Where a card or run may go on the tableaus of ``sides`` (``piles[side]``: that side's
    piles, bottom -> top), by its head card's (rank, red): (side, pile) pairs, each side's in pile
    order. An empty pile takes a king (or a king-headed run); a pile takes the rank below its top
    card's in the other colour."""
    spots: Spots = {}
    for side in sides:
        for j, pile in enumerate(piles[side]):
            if pile:
                spots.setdefault(TAKES[pile[-1]], []).append((side, j))
            else:
                spots.setdefault((KING, False), []).append((side, j))
                spots.setdefault((KING, True), []).append((side, j))
    return spots


def runs(pile: Sequence[int], down: int) -> Iterator[tuple[int, int]]:
    """The face-up runs in sequence at the top of ``pile`` (``down`` face-down cards at its
    bottom) that may move as a block, shortest first: (head card, cards in the run)."""
    for count in range(1, len(pile) - down + 1):
        head = pile[-count]
        if count > 1 and RANK_RED[pile[-count + 1]] != TAKES[head]:  # the card above is out of sequence
            return  # a longer run contains this broken one
        yield head, count


@dataclass(frozen=True)
class RaceMove:
    """One single move of ``seat``. ``kind`` turn, redeal, play or pass (a turn given up, in the
    turn-based mode). A play moves ``count`` cards headed by ``card`` (a code) from the waste of
    the mover (``src`` = WASTE) or pile ``src`` of seat ``src_side``, to foundation ``dst``
    (``dst_side`` = FOUNDATION) or pile ``dst`` of seat ``dst_side``."""

    seat: int
    kind: str
    src_side: int = -1
    src: int = WASTE
    dst_side: int = FOUNDATION
    dst: int = -1
    count: int = 1
    card: int = -1

    def __str__(self) -> str:
        who = SEATS[self.seat]
        if self.kind != PLAY:
            return f"{who} {self.kind}"
        src = SEATS[self.src_side].lower() + ("w" if self.src == WASTE else str(self.src + 1))
        dst = f"f{self.dst + 1}" if self.dst_side == FOUNDATION else SEATS[self.dst_side].lower() + str(self.dst + 1)
        run = f"x{self.count}" if self.count > 1 else ""
        return f"{who} {src}>{dst}{run} {code_name(self.card)}"


def parse_race_move(text: str) -> RaceMove:
    """Parse :meth:`RaceMove.__str__` (``A turn``, ``B pass``, ``A aw>f3 7Ha``, ``B b2>a5x3 9Sb``)."""
    parts = text.split()
    try:
        seat = SEATS.index(parts[0].upper())
        if len(parts) == 2 and parts[1] in (TURN, REDEAL, PASS):
            return RaceMove(seat, parts[1])
        where, card = parts[1], parse_code(parts[2])
        src, dst = where.split(">")
        count = 1
        if "x" in dst:
            dst, n = dst.split("x")
            count = int(n)
        src_side = SEATS.index(src[0].upper())
        src_pile = WASTE if src[1:] == "w" else int(src[1:]) - 1
        if dst[0] == "f":
            return RaceMove(seat, PLAY, src_side, src_pile, FOUNDATION, int(dst[1:]) - 1, count, card)
        return RaceMove(seat, PLAY, src_side, src_pile, SEATS.index(dst[0].upper()), int(dst[1:]) - 1, count, card)
    except (IndexError, ValueError):
        raise InputError(f"bad race move {text!r}") from None


@dataclass(frozen=True)
class RaceView:
    """What ``seat`` sees: every pile's face-up cards (``face_up[side][i]``, bottom -> top, codes)
    and face-down count, its own stock in turning order with ``None`` for a card it has not yet
    seen turned, its own waste, the other seat's waste top (or None) and stock size, the
    foundations (``foundations[f]``: codes bottom -> top), its legal moves, and two counters:
    ``disturbed`` (the other seat's moves that changed the foundations or this seat's piles) and
    ``bounced`` (its own moves that came too late and were put back)."""

    seat: int
    rules: RaceRules
    face_up: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    face_down: tuple[tuple[int, ...], tuple[int, ...]]
    stock: tuple[int | None, ...]
    waste: tuple[int, ...]
    other_waste_top: int | None
    other_stock: int
    foundations: tuple[tuple[int, ...], ...]
    passes_used: int
    legal: tuple[RaceMove, ...]
    disturbed: int
    bounced: int


class Table:
    """The two seats' true game. ``piles[seat][i]`` bottom -> top with ``face_down[seat][i]``
    face-down cards at its bottom; ``stock[seat]`` in turning order; ``waste[seat]`` bottom ->
    top; ``foundations[f]`` the codes on foundation f and ``placed_by[f]`` the seat that placed
    each; ``contributed[seat]`` cards the seat has placed on the foundations."""

    def __init__(self, deals: Sequence[Deal], rules: RaceRules) -> None:
        self.rules = rules
        self.piles = [[[code_of(s, c) for c in pile] for pile in deal.tableau] for s, deal in enumerate(deals)]
        self.face_down = [list(deal.face_down) for deal in deals]
        self.stock = [[code_of(s, c) for c in deal.stock] for s, deal in enumerate(deals)]
        self.waste: list[list[int]] = [[], []]
        self.passes_used = [1, 1]
        self.foundations: list[list[int]] = [[] for _ in range(FOUNDATIONS)]
        self.placed_by: list[list[int]] = [[] for _ in range(FOUNDATIONS)]
        self.contributed = [0, 0]
        self.disturbed = [0, 0]
        self.bounced = [0, 0]
        self._turned: list[set[int]] = [set(), set()]  # the stock cards each seat has turned (and seen)

    @classmethod
    def from_seeds(cls, seeds: Sequence[int], rules: RaceRules, convention: str = DEFAULT_CONVENTION) -> "Table":
        """Seat A dealt from ``seeds[0]``, seat B from ``seeds[1]`` (:func:`dsolve.klondike.deals.make_deal`)."""
        return cls([make_deal(convention, seed) for seed in seeds], rules)

    def copy(self) -> "Table":
        """An independent copy (for looking ahead: moves on it leave this table as it is)."""
        t = Table.__new__(Table)
        t.rules = self.rules
        t.piles = [[list(p) for p in side] for side in self.piles]
        t.face_down = [list(d) for d in self.face_down]
        t.stock, t.waste = [list(x) for x in self.stock], [list(x) for x in self.waste]
        t.passes_used = list(self.passes_used)
        t.foundations, t.placed_by = [list(f) for f in self.foundations], [list(f) for f in self.placed_by]
        t.contributed, t.disturbed, t.bounced = list(self.contributed), list(self.disturbed), list(self.bounced)
        t._turned = [set(x) for x in self._turned]
        return t

    # ------------------------------------------------------------------ rules

    def _spots(self, seat: int) -> Spots:
        """Where ``seat`` may put a card or run (:func:`spots_of`): its own piles then, in the open
        and milder races, the other's."""
        return spots_of(self.piles, self._sides(seat))

    def _sides(self, seat: int) -> tuple[int, ...]:
        """The tableaus ``seat`` plays on: its own, and in the open and milder races the other's."""
        return (seat,) if self.rules.variant == LOCKED else (seat, 1 - seat)

    def home_pile(self, code: int) -> int | None:
        """The first foundation that takes ``code`` now, or None."""
        suit, rank = _suit(code), _rank(code)
        for f in (suit, suit + 4):
            if len(self.foundations[f]) == rank:
                return f
        return None

    def legal_moves(self, seat: int) -> list[RaceMove]:
        """Every legal move of ``seat``: from its waste, its piles (the top card, then longer
        runs), in the open race the other's piles (their top cards), each source's foundation move first (one per
        suit when both of its piles would take the card) and then the piles it may go onto; then
        turn or redeal."""
        spots = self._spots(seat)
        moves: list[RaceMove] = []
        self._plays_from(seat, seat, WASTE, spots, moves)
        for side in self._sides(seat):
            for i in range(PILES):
                self._plays_from(seat, side, i, spots, moves)
        self._stock_moves(seat, moves)
        return moves

    def _plays_from(self, seat: int, src_side: int, src: int, spots: Spots, moves: list[RaceMove]) -> None:
        """Append ``seat``'s legal plays from one source (see :meth:`_heads`): each card's
        foundation move, then the piles it may go onto; ``spots`` is :meth:`_spots` of ``seat``."""
        for head, count in self._heads(seat, src_side, src):
            if count == 1:
                home = self.home_pile(head)
                if home is not None:
                    moves.append(RaceMove(seat, PLAY, src_side, src, FOUNDATION, home, 1, head))
            for side, j in spots.get(RANK_RED[head], ()):
                if (side, j) != (src_side, src):
                    moves.append(RaceMove(seat, PLAY, src_side, src, side, j, count, head))

    def _heads(self, seat: int, src_side: int, src: int) -> list[tuple[int, int]]:
        """What ``seat`` may move from one source, as (head card, cards in the run): from its waste
        (``src`` WASTE) the top card; from a pile of its own every face-up run in sequence,
        shortest first; in the open race, from a pile of the other seat the top card."""
        if src == WASTE:
            waste = self.waste[seat]
            return [(waste[-1], 1)] if src_side == seat and waste else []
        if not 0 <= src < PILES or src_side not in self._sides(seat):
            return []
        pile = self.piles[src_side][src]
        if src_side != seat:
            return [(pile[-1], 1)] if pile and self.rules.variant == OPEN else []
        return list(runs(pile, self.face_down[seat][src]))

    def _stock_moves(self, seat: int, moves: list[RaceMove]) -> None:
        if self.stock[seat]:
            moves.append(RaceMove(seat, TURN))
        elif self.waste[seat] and (self.rules.passes is None or self.passes_used[seat] < self.rules.passes):
            moves.append(RaceMove(seat, REDEAL))

    def problem(self, move: RaceMove) -> str | None:
        """Why ``move`` is illegal now, or None. A foundation move may name either pile of the
        suit that takes the card. (A move is legal when it is one of :meth:`legal_moves`: those of
        its source, the moves made the same way.)"""
        if move.seat not in (0, 1):
            return f"no seat {move.seat}"
        if move.kind == PLAY and move.dst_side == FOUNDATION and 0 <= move.dst < FOUNDATIONS:
            first = self.home_pile(move.card)
            if first is not None and len(self.foundations[move.dst]) == len(self.foundations[first]):
                move = RaceMove(move.seat, PLAY, move.src_side, move.src, FOUNDATION, first, move.count, move.card)
        same: list[RaceMove] = []
        if move.kind == PLAY:
            self._plays_from(move.seat, move.src_side, move.src, self._spots(move.seat), same)
        else:
            self._stock_moves(move.seat, same)
        if move in same:
            return None
        return f"{move} is not a legal move now"

    def apply(self, move: RaceMove, check: bool = True) -> None:
        """Play ``move``; raise :class:`IllegalMove` (changing nothing) if it is not legal now.
        ``check`` False: ``move`` is one of :meth:`legal_moves` now (looking ahead), not checked."""
        reason = self.problem(move) if check else None
        if reason is not None:
            raise IllegalMove(reason)
        seat, other = move.seat, 1 - move.seat
        if move.kind == TURN:
            n = min(self.rules.draw, len(self.stock[seat]))
            self.waste[seat] += self.stock[seat][:n]
            self._turned[seat].update(self.stock[seat][:n])
            del self.stock[seat][:n]
        elif move.kind == REDEAL:
            self.stock[seat], self.waste[seat] = self.waste[seat], []
            self.passes_used[seat] += 1
        else:
            if move.src == WASTE:
                cards = [self.waste[seat].pop()]
            else:
                pile = self.piles[move.src_side][move.src]
                cards = pile[-move.count:]
                del pile[-move.count:]
                if pile and self.face_down[move.src_side][move.src] >= len(pile):
                    self.face_down[move.src_side][move.src] = len(pile) - 1
            if move.dst_side == FOUNDATION:
                self.foundations[move.dst] += cards
                self.placed_by[move.dst].append(seat)
                self.contributed[seat] += 1
                self.disturbed[other] += 1
            else:
                self.piles[move.dst_side][move.dst] += cards
            if other in (move.src_side, move.dst_side):
                self.disturbed[other] += 1

    # ------------------------------------------------------------------ state

    def finished(self, seat: int) -> bool:
        """Has ``seat`` emptied its own piles, stock and waste?"""
        return not self.stock[seat] and not self.waste[seat] and not any(self.piles[seat])

    def key(self) -> tuple:
        """Everything that decides the future of the table (for spotting repetitions)."""
        return (tuple(tuple(tuple(p) for p in side) for side in self.piles),
                tuple(map(tuple, self.face_down)), tuple(map(tuple, self.stock)),
                tuple(map(tuple, self.waste)), tuple(len(f) for f in self.foundations),
                tuple(self.passes_used) if self.rules.passes is not None else ())

    def view(self, seat: int) -> RaceView:
        """What ``seat`` sees now (see :class:`RaceView`)."""
        other = 1 - seat
        return RaceView(
            seat, self.rules,
            tuple(tuple(tuple(p[d:]) for p, d in zip(self.piles[s], self.face_down[s])) for s in (0, 1)),  # type: ignore[arg-type]
            tuple(tuple(d) for d in self.face_down),  # type: ignore[arg-type]
            tuple(c if c in self._turned[seat] else None for c in self.stock[seat]),
            tuple(self.waste[seat]), self.waste[other][-1] if self.waste[other] else None,
            len(self.stock[other]), tuple(tuple(f) for f in self.foundations), self.passes_used[seat],
            tuple(self.legal_moves(seat)), self.disturbed[seat], self.bounced[seat])

    def first_to_move(self) -> int:
        """Who starts a turn-based game (the open-race page): the lower face-up card of the
        one-card piles (rank; aces low); equal: the two-card piles, and so on; all equal: A."""
        for i in range(PILES):
            a, b = (_rank(self.piles[s][i][-1]) for s in (0, 1))
            if a != b:
                return 0 if a < b else 1
        return 0
