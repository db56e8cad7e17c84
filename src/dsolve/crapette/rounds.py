"""Playing Crapette: rounds and matches between two players, records that replay, and one row
per round for surveys and statistics."""
from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

from ..seats import parse_seats
from .game import DISCARD, PASS, SEATS, TURN, IllegalMove, Round, RoundResult, check_seed, deal, replay
from .players import PLAYERS, Player, make_player, player_seed
from .rules import Options, name
from .stats import counted

MAX_TURN_MOVES = 5000
ROW_COLUMNS = ("seed", "player_a", "player_b", "first_player", "winner", "end", "points_a",
               "points_b", "left_a", "left_b", "moves", "turns", "foundation")


def parse_players(text: str) -> tuple[str, str]:
    """``"greedy,random"`` (seat A, seat B), or one name for both seats."""
    return parse_seats(text, PLAYERS, "greedy,random")


def play_round(seed: int | str, players: tuple[str, str] = ("greedy", "greedy"),
               options: Options = Options()) -> Round:
    """The round dealt by ``seed``, played to its end by ``players`` (seat A, seat B); the same
    arguments give the same round."""
    rnd = Round.deal(seed, options)
    return play_out(rnd, [make_player(kind, player_seed(rnd.seed, seat)) for seat, kind in enumerate(players)])


def play_out(rnd: Round, seats: Sequence[Player]) -> Round:
    """Play ``rnd`` to its end, ``seats[s]`` choosing for seat ``s`` whenever the rules leave
    more than one move; returns ``rnd``."""
    turn, moves_this_turn = 0, 0
    while rnd.result is None:
        moves = rnd.legal_moves()
        rnd.play(moves[0] if len(moves) == 1 else seats[rnd.turn].choose(rnd, moves))
        moves_this_turn = moves_this_turn + 1 if rnd.turns == turn else 0
        turn = rnd.turns
        if moves_this_turn > MAX_TURN_MOVES:  # a player that never ends its turn: a bug, not a rule
            raise RuntimeError(f"seed {rnd.seed}: {seats[rnd.turn].name} made {MAX_TURN_MOVES} moves in one turn")
    return rnd


def round_record(rnd: Round, players: tuple[str, str]) -> dict:
    """A finished round as JSON-ready data: seed, players, rules options, first seat, every move
    as text, and the result; :func:`replay_record` plays it again."""
    assert rnd.result is not None and rnd.seed is not None
    return {"seed": rnd.seed, "players": list(players), "options": str(rnd.options),
            "first_player": SEATS[rnd.first], "moves": [str(m) for m in rnd.moves],
            "turns": rnd.turns, "result": asdict(rnd.result)}


def replay_record(record: dict) -> Round:
    """Replay a :func:`round_record` move by move, each checked by the engine; :class:`IllegalMove`
    if a move is not legal or the round does not end as recorded."""
    rnd = replay(record["seed"], record["moves"], Options.recorded(record["options"]))
    expected = RoundResult(**{**record["result"], "points": tuple(record["result"]["points"]),
                              "left": tuple(record["result"]["left"])})
    if rnd.result != expected:
        raise IllegalMove(f"the replayed round ends {rnd.result}, the record says {expected}")
    return rnd


def round_row(rnd: Round, players: tuple[str, str]) -> dict:
    """One row (:data:`ROW_COLUMNS`) of a finished round: seats 0 (A) and 1 (B); ``winner`` -1
    unless a seat went out; ``foundation`` the cards on the foundations at the end."""
    r = rnd.result
    assert r is not None
    return {"seed": rnd.seed, "player_a": players[0], "player_b": players[1],
            "first_player": rnd.first, "winner": r.winner, "end": r.end,
            "points_a": r.points[0], "points_b": r.points[1], "left_a": r.left[0], "left_b": r.left[1],
            "moves": len(rnd.moves), "turns": rnd.turns,
            "foundation": sum(map(len, rnd.table.found))}


def seatings(players: tuple[str, str]) -> list[tuple[str, str]]:
    """The seat orders a survey of ``players`` plays: both if the two differ (so that each
    deal is played once with each player in each seat, which cancels the first player's edge)."""
    return [players] if players[0] == players[1] else [players, players[::-1]]


def play_rounds(seeds: Iterable[int], pairings: Sequence[tuple[str, str]] = (("greedy", "greedy"),),
                options: Options = Options()) -> list[dict]:
    """A row (:func:`round_row`) per round of ``seeds`` under each of ``pairings`` (seat A, seat
    B), seed-major; the deal's seats stay whatever the pairing (the cards of seat A go to the
    pairing's first player)."""
    return [round_row(play_round(seed, pair, options), pair) for seed in map(check_seed, seeds)
            for pair in pairings]


def match_round_seeds(seed: int) -> Iterator[int]:
    """The deal seeds of a match's rounds: 64-bit numbers drawn from ``random.Random(seed)``."""
    rng = random.Random(check_seed(seed))
    while True:
        yield rng.getrandbits(64)


@dataclass
class Match:
    """Rounds between two players in fixed seats until one seat has ``options.target`` points."""

    seed: int
    players: tuple[str, str]
    rounds: list[Round] = field(default_factory=list)
    totals: list[int] = field(default_factory=lambda: [0, 0])

    @property
    def winner(self) -> int:
        """The seat with more points (the one that reached the target first)."""
        return 0 if self.totals[0] > self.totals[1] else 1


def play_match(seed: int | str, players: tuple[str, str] = ("greedy", "greedy"),
               options: Options = Options(), max_rounds: int = 1000) -> Match:
    """A match to ``options.target`` points; round ``k`` is dealt by the ``k``-th of
    :func:`match_round_seeds`. A seat that reaches the target wins (only one seat scores a round)."""
    match = Match(check_seed(seed), players)
    for round_seed in match_round_seeds(match.seed):
        if max(match.totals) >= options.target or len(match.rounds) >= max_rounds:
            break
        rnd = play_round(round_seed, players, options)
        match.rounds.append(rnd)
        for seat in (0, 1):
            match.totals[seat] += rnd.result.points[seat]  # type: ignore[union-attr]
    return match


def format_result(rnd: Round, players: tuple[str, str]) -> str:
    """One line: how the round ended, its length and the points."""
    r = rnd.result
    assert r is not None
    who = [f"{SEATS[s]} ({players[s]})" for s in (0, 1)]
    size = f"{counted(rnd.turns, 'turn')}, {counted(len(rnd.moves), 'move')}"
    if r.end == "out":
        w = r.winner
        return (f"{who[w]} goes out after {size}: {who[w]} scores {r.points[w]} "
                f"(30 + {r.left[1 - w]} for the cards left to {SEATS[1 - w]})")
    scorer = next((s for s in (0, 1) if r.points[s]), None)
    gain = "nobody scores" if scorer is None else f"{who[scorer]} scores {r.points[scorer]}"
    return f"{r.end} after {size}: cards left A {r.left[0]}, B {r.left[1]}; {gain}"


def format_round(rnd: Round, players: tuple[str, str]) -> str:
    """The round as text: who starts and why, the rules options, each turn's moves on a line, and
    the result."""
    t0 = deal(rnd.seed, rnd.options) if rnd.seed is not None else None
    lines = [f"seed {rnd.seed}: A {players[0]}, B {players[1]}; {SEATS[rnd.first]} starts"
             + (f" (reserve tops A {name(t0.reserve[0][-1])}, B {name(t0.reserve[1][-1])})" if t0 else ""),
             f"rules: {rnd.options}"]
    seat, turn, current = rnd.first, 1, []
    for move in rnd.moves:
        current.append(str(move))
        if move.kind in (DISCARD, PASS) or (move.kind == TURN and rnd.options.turn_ends_turn):
            lines.append(f"{turn:>4} {SEATS[seat]}: {', '.join(current)}")
            seat, turn, current = 1 - seat, turn + 1, []
    if current:
        lines.append(f"{turn:>4} {SEATS[seat]}: {', '.join(current)}")
    lines.append(format_result(rnd, players))
    return "\n".join(lines)


def match_record(match: Match) -> dict:
    """A match as JSON-ready data: its rounds as :func:`round_record` gives them, the totals, the winner."""
    return {"seed": match.seed, "players": list(match.players),
            "rounds": [round_record(r, match.players) for r in match.rounds],
            "totals": match.totals, "winner": SEATS[match.winner]}


def format_match(match: Match) -> str:
    """The rules options, a line per round (deal seed, result, running totals) and the winner."""
    totals = [0, 0]
    lines = [f"match {match.seed}: A {match.players[0]}, B {match.players[1]}"]
    if match.rounds:
        lines.append(f"rules: {match.rounds[0].options}")
    for k, rnd in enumerate(match.rounds, 1):
        totals = [totals[s] + rnd.result.points[s] for s in (0, 1)]  # type: ignore[union-attr]
        lines.append(f"round {k} (deal {rnd.seed}, {SEATS[rnd.first]} starts): "
                     f"{format_result(rnd, match.players)}; totals A {totals[0]}, B {totals[1]}")
    w = match.winner
    lines.append(f"{SEATS[w]} ({match.players[w]}) wins the match {match.totals[w]} to "
                 f"{match.totals[1 - w]} in {counted(len(match.rounds), 'round')}")
    return "\n".join(lines)
