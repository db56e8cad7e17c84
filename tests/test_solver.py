"""The proof that the native core is right.

* Differential: on thousands of random small deals, under every one of the 54 rule combinations
  (draw 1/2/3 x passes 1/2/unlimited x empty king/any/none x worry on/off), ``solve`` and the
  pure-Python brute force ``brute.exhaustive`` give the same verdict, also with a tiny
  transposition table and with the core's search in the generator's order alone (no restarts in
  random orders, no relaxation); the relaxation alone (every talon card always reachable) never
  calls a winnable deal lost.
  Every winning line is replayed by the referee and must win.
* Metamorphic, on random full deals: more passes, freer spaces and worrying back each allow
  every move the stricter rules allow, so they never lose a win.
* Limits: ``max_nodes`` and ``timeout`` stop the search with verdict ``unknown`` and the right
  ``limit``; a table too small to hold the search stops growing and the search goes on.

Everything is drawn from fixed-seed random streams, so a failure reproduces; its message holds the
deal as a dsolve text deal file and the rules. With ``DSOLVE_DISAGREEMENTS=PATH`` every
disagreement is also appended to PATH as it is found. The ``slow`` variants (``pytest -m slow``)
run many more deals.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import random
from pathlib import Path
from unittest import mock

import pytest

from dsolve import _core
from dsolve.klondike.api import solve
from dsolve.cards import RANKS, STANDARD, DeckShape, parse_card
from dsolve.klondike.dealfiles import dump_deal, load_deal, parse_deal
from dsolve.klondike.deal import Deal
from dsolve.klondike.deals import make_deal
from dsolve.klondike.brute import random_position, random_small_deal, search
from dsolve.klondike.referee import replay
from dsolve.klondike.result import UNKNOWN, UNWINNABLE, WINNABLE, Result
from dsolve.rules import EMPTY_RULES, Rules

ALL_RULES = [Rules(draw, passes, empty, worry)
             for draw in (1, 2, 3) for passes in (1, 2, None)
             for empty in EMPTY_RULES for worry in (True, False)]
assert len(set(ALL_RULES)) == 54

# Deals per rule combination, by deck shape (suits x ranks / columns); the brute force is the cost.
DEFAULT_DEALS = {"3x5/4": 40, "2x6/3": 40, "3x4/4": 40, "2x8/3": 40, "2x7/2": 40,
                 "4x4/4": 15, "3x6/4": 10, "4x4/3": 10, "4x5/5": 3}
SLOW_DEALS = {"3x5/4": 400, "2x6/3": 400, "3x4/4": 400, "2x8/3": 300, "2x7/2": 300,
              "4x4/4": 150, "3x6/4": 100, "4x4/3": 100, "4x5/5": 40, "4x6/4": 5}
EXHAUSTIVE_LIMIT = 300_000   # positions; a deal needing more is skipped
SOLVE_TIMEOUT = 60.0         # a small deal left undecided this long is a failure
TINY_MB = 0.001              # the smallest table the core allows (4096 slots)


def describe(deal: Deal, rules: Rules, what: str) -> str:
    return f"{what}\nrules: {rules}\ndeal (dsolve text):\n{dump_deal(deal, 'text')}"


def record(message: str) -> None:
    path = os.environ.get("DSOLVE_DISAGREEMENTS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(message.rstrip("\n") + "\n\n")


def solved(deal: Deal, rules: Rules, **limits) -> Result:
    """``solve``, with any winning line replayed independently by the referee."""
    result = solve(deal, rules, **limits)
    assert result.verdict in (WINNABLE, UNWINNABLE, UNKNOWN)
    if result.verdict == WINNABLE:
        outcome = replay(deal, rules, result.moves)
        if not outcome.won:
            message = describe(deal, rules, f"winning line does not win: {outcome.error}")
            record(message)
            raise AssertionError(message)
    else:
        assert result.moves == ()
    assert (result.limit != "") == (result.verdict == UNKNOWN), result
    return result


def with_core_options(deal: Deal, rules: Rules, timeout: float, max_nodes: int | None = None,
                      **options) -> Result:
    """``solved`` with these options of the core's ``solve_position`` patched in."""
    patched = functools.partial(_core.solve_position, **options)
    with mock.patch.object(_core, "solve_position", patched):
        return solved(deal, rules, timeout=timeout, max_nodes=max_nodes)


def complete_search_only(deal: Deal, rules: Rules, timeout: float,
                         max_nodes: int | None = None) -> Result:
    """``solved`` with the core's search in its generator's order alone, without the searches in
    random orders or the relaxation (``solve`` runs those too, and as they decide many deals
    first they could hide a search that gets some wrong)."""
    return with_core_options(deal, rules, timeout, max_nodes, restarts=0, relax=False)


def relaxation_only(deal: Deal, rules: Rules, timeout: float,
                    max_nodes: int | None = None) -> Result:
    """The core's relaxation alone (every talon card always reachable): unwinnable or unknown."""
    return with_core_options(deal, rules, timeout, max_nodes, relax_only=True)


# --- differential: solve vs brute force on small deals -------------------------------------------

def differential(stream: str, shape_text: str, rules: Rules, count: int) -> None:
    """Solve ``count`` random ``shape_text`` deals under ``rules`` both ways; fail listing every
    disagreement (the relaxation alone only when it calls a deal lost)."""
    shape = DeckShape.parse(shape_text)
    rng = random.Random(f"{stream}/{shape_text}/{rules}")
    problems: list[str] = []
    decided = 0
    for number in range(count):
        deal = random_small_deal(rng, shape)
        brute = search(deal, rules, EXHAUSTIVE_LIMIT)
        if brute.winnable is None:
            continue
        decided += 1
        expected = WINNABLE if brute.winnable else UNWINNABLE
        label = f"stream {stream!r} shape {shape_text} deal #{number}"
        for name, run in (
                ("solve", lambda: solved(deal, rules, timeout=SOLVE_TIMEOUT)),
                (f"solve(memory_mb={TINY_MB})", lambda: solved(deal, rules, timeout=10.0, memory_mb=TINY_MB)),
                ("complete search alone", lambda: complete_search_only(deal, rules, SOLVE_TIMEOUT)),
                ("relaxation alone", lambda: relaxation_only(deal, rules, SOLVE_TIMEOUT))):
            try:
                got = run()
            except AssertionError as err:
                problems.append(f"{label}: {name}: {err}")
                continue
            except Exception as err:  # noqa: BLE001 - a crash is a finding too
                message = describe(deal, rules, f"{label}: {name} raised {err!r}")
                record(message)
                problems.append(message)
                continue
            if name == "relaxation alone" and got.verdict == UNKNOWN:
                continue
            if got.verdict == UNKNOWN and name != f"solve(memory_mb={TINY_MB})":
                problems.append(describe(deal, rules, f"{label}: solve undecided after "
                                                      f"{SOLVE_TIMEOUT} s ({got.limit})"))
            elif got.verdict not in (UNKNOWN, expected):
                message = describe(deal, rules, f"{label}: {name} says {got.verdict}, "
                                                f"exhaustive search says {expected}")
                record(message)
                problems.append(message)
    assert not problems, f"{len(problems)} disagreement(s):\n\n" + "\n\n".join(problems)
    assert decided >= count // 2, f"only {decided} of {count} deals within the brute-force limit"


def _cases(counts: dict[str, int]) -> list:
    return [pytest.param(shape, rules, n, id=f"{shape}-{rules}")
            for shape, n in counts.items() for rules in ALL_RULES]


@pytest.mark.parametrize("shape, rules, count", _cases(DEFAULT_DEALS))
def test_solve_matches_brute_force(shape, rules, count):
    differential("default", shape, rules, count)


@pytest.mark.slow
@pytest.mark.parametrize("shape, rules, count", _cases(SLOW_DEALS))
def test_solve_matches_brute_force_many(shape, rules, count):
    differential("slow", shape, rules, count)


def locked_runs(deal: Deal) -> int:
    """How many piles have face-up cards below their top run (see the core's hidden_region)."""
    return sum(start > down for start, down in zip(_top_runs(deal), deal.face_down))


@pytest.mark.parametrize("rules", ALL_RULES, ids=str)
def test_positions_in_progress_match_brute_force(rules):
    """Games in progress (cards home, a waste, later passes) with random face-up patterns (face-up
    cards that are not one run): the core's verdict equals the brute force's, whose referee plays
    the rules as written, and every winning line replays from the position."""
    rng = random.Random(f"positions {rules}")
    problems, decided, locked = [], 0, 0
    for number in range(24):
        shape = DeckShape.parse(("3x5/4", "2x6/3", "4x4/4")[number % 3])
        deal = random_position(rng, shape, rules, rng.randrange(16))
        brute = search(deal, rules, EXHAUSTIVE_LIMIT)
        if brute.winnable is None:
            continue
        decided += 1
        locked += locked_runs(deal) > 0
        got = solved(deal, rules, timeout=SOLVE_TIMEOUT)
        expected = WINNABLE if brute.winnable else UNWINNABLE
        if got.verdict != expected:
            problems.append(describe(deal, rules, f"position #{number}: solve says {got.verdict}, "
                                                  f"exhaustive search says {expected}"))
    assert not problems, "\n\n".join(problems)
    assert decided >= 12 and locked >= 4, (decided, locked)


def test_small_deals_are_won_and_lost():
    """The differential test is not one-sided: random small deals are both won and lost."""
    rng = random.Random("both")
    shape = DeckShape.parse("3x5/4")
    verdicts = {search(random_small_deal(rng, shape), Rules(3, 2)).winnable for _ in range(60)}
    assert verdicts == {True, False}


def test_relaxation_proves_small_losses():
    """The relaxation's part in the differential test is not vacuous: alone it proves losses of
    small draw-3 deals (each one checked against the brute force)."""
    rng = random.Random("relaxed")
    shape = DeckShape.parse("3x5/4")
    proved = 0
    for _ in range(40):
        deal = random_small_deal(rng, shape)
        if relaxation_only(deal, Rules(3), SOLVE_TIMEOUT).verdict == UNWINNABLE:
            assert search(deal, Rules(3), EXHAUSTIVE_LIMIT).winnable is False
            proved += 1
    assert proved >= 3


@pytest.mark.parametrize("seed", [558, 364])
def test_relaxation_decides_losses_the_game_search_cannot(seed):
    """Solvitaire seeds 558 and 364, draw 3: the relaxation proves the loss in a few thousand
    positions; the search of the game itself is still undecided after 200,000 (it needs
    millions); solve runs both and is decided within that budget."""
    deal, rules = make_deal("solvitaire", seed), Rules(3)
    assert relaxation_only(deal, rules, 30, max_nodes=20_000).verdict == UNWINNABLE
    assert complete_search_only(deal, rules, 30, max_nodes=200_000).verdict == UNKNOWN
    assert solved(deal, rules, max_nodes=200_000).verdict == UNWINNABLE


def test_reserve_cards_are_built_on_at_once():
    """Solvitaire seed 18615, draw 3: the relaxation proves the loss in under 250,000 positions,
    as a card it plays from its reserve onto the tableau is built on at once (builds_next); with
    every move allowed after such a card it took 578,039. (The brute force checks the rule's
    soundness in the differential tests, draw 1 and the relaxation of the others.)"""
    result = relaxation_only(make_deal("solvitaire", 18615), Rules(3), 60, max_nodes=250_000)
    assert result.verdict == UNWINNABLE


def position(tableau: list[list[str]], foundations: dict[str, int], waste: list[str],
             stock: list[str]) -> Deal:
    """A full-deck position: piles bottom -> top (lower case face down), foundation heights, the
    waste bottom -> top and the stock top first."""
    piles = tableau + [[] for _ in range(7 - len(tableau))]
    doc = {"tableau piles": piles, "waste": waste, "stock": stock[::-1],
           "foundations": [[r + suit for r in RANKS[:n]] for suit, n in foundations.items()]}
    return parse_deal(json.dumps(doc), "json")


def test_the_talons_last_card_goes_home_safely_only_with_the_cursor_normalised():
    """The talon's last card goes home as a safe move at draw 3 with unlimited passes, but only
    with the cursor normalised (apply_safe_moves). Here the waste shows QC, the stock turns KC
    then KH, and KH is safe: sent home at once, the stock's turn to its end would leave QC out
    of reach behind KC (the win is QC, KH, KC), so the rule must wait; with the cursor
    normalised (KH alone in the talon after QC went home) it fires, as the same key shows."""
    rules = Rules(3, None, "none", True)
    deal = position([], {"C": 11, "H": 12, "S": 13, "D": 13}, ["QC"], ["KC", "KH"])
    assert solved(deal, rules).verdict == WINNABLE
    empty, none = [[] for _ in range(7)], _core.EMPTY_RULE_CODES["none"]
    kc, kh = parse_card("KC"), parse_card("KH")
    kh_in_talon = _core.position_keys(empty, [0] * 7, [kc, kh], 4, 13, 3, 0, none, True,
                                      home=[11, 12, 13, 13], waste=0)
    kh_home = _core.position_keys(empty, [0] * 7, [kc], 4, 13, 3, 0, none, True,
                                  home=[11, 13, 13, 13], waste=0)
    assert kh_in_talon == kh_home


def test_the_talons_last_card_goes_home_only_when_safe():
    """5H, alone in the talon, fits its foundation but is not safe (no worrying back: the
    clubs are at 2): 4C, which covers 3C, needs it on 6C."""
    rules = Rules(3, None, "none", False)
    deal = position([["5c", "3c", "4C"], ["6C"], ["kh", "qh", "jh", "10h", "9h", "8h", "7h", "6H"],
                     ["kc", "qc", "jc", "10c", "9c", "8c", "7C"]],
                    {"C": 2, "H": 4, "S": 13, "D": 13}, [], ["5H"])
    assert solved(deal, rules).verdict == WINNABLE


def test_a_card_taken_back_is_used_by_taking_back_the_card_under_it():
    """Draw 1, unlimited passes: 4S, over 5D and 3S, can leave only onto 5H, which lies under 6H
    on the hearts. The one win takes 6H back onto 7S, then 5H onto 6S, with nothing built on 6H
    in between (the black fives are out of reach)."""
    rules = Rules(1, None, "king", True)
    deal = position([["5s", "3s", "5d", "4S"], ["ks", "qs", "js", "10s", "9s", "8s", "7S"], ["6S"],
                     ["kh", "qh", "jh", "10h", "9h", "8h", "7H"],
                     ["kd", "qd", "jd", "10d", "9d", "8d", "7d", "6D"]],
                    {"C": 13, "H": 6, "S": 2, "D": 4}, [], [])
    assert solved(deal, rules).verdict == WINNABLE


@pytest.mark.parametrize("seed", [3681, 5097])
def test_wins_that_leave_a_card_taken_back_unused_for_a_while(seed):
    """Solvitaire seeds 3681 and 5097 at draw 1 are won (the line replays). A rule that made the
    position after a card taken back from its foundation use that card at once (a card onto it,
    or the card under it taken back too) called both lost: it is not sound."""
    assert solved(make_deal("solvitaire", seed), Rules(1)).verdict == WINNABLE


def test_random_order_searches_find_wins_the_ordered_search_buries():
    """Solvitaire seed 3563, draw 3: the search in the generator's order is still undecided after
    4,000,000 positions; with the random-order searches taking turns solve finds a win within
    that budget, and its line (a random-order search's) replays."""
    deal, rules = make_deal("solvitaire", 3563), Rules(3)
    assert complete_search_only(deal, rules, 60, max_nodes=4_000_000).verdict == UNKNOWN
    assert solved(deal, rules, max_nodes=4_000_000).verdict == WINNABLE


# --- metamorphic properties on full deals ------------------------------------------------------

DEFAULT_SEEDS, DEFAULT_TIMEOUT = 10, 1.0
SLOW_SEEDS, SLOW_TIMEOUT = 150, 10.0


# --- twin classes -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [952, 479])
def test_twin_classes_decide_losses_the_exact_key_could_not(seed):
    """Solvitaire seeds 952 and 479, draw 1: unwinnable (lonelybot). With positions keyed exactly
    the core's search was still undecided after 18 million positions; with twin classes (one key
    for positions that differ only in which twin parent a card lies on, see state_key) it ends
    within 2 million."""
    deal = make_deal("solvitaire", seed)
    assert complete_search_only(deal, Rules(1), 60, max_nodes=2_000_000).verdict == UNWINNABLE


SUIT_SWAPS = {"clubs-spades": lambda c: c ^ 2 if c % 2 == 0 else c, "both-colours": lambda c: c ^ 2}


@pytest.mark.parametrize("rules", ALL_RULES, ids=str)
def test_quick_keys_match_the_keys_of_the_positions_made(rules):
    """The search keys most children without making them (quick_key): on full deals and small
    ones, games in progress and layouts with locked runs, every such key equals the key of the
    position the move makes."""
    rng = random.Random(f"quick {rules}")
    deals = [make_deal("solvitaire", seed) for seed in (1, 7, 22, 469)]
    deals += [random_small_deal(rng, DeckShape.parse("4x6/5")) for _ in range(20)]
    deals += [random_position(rng, DeckShape.parse("4x6/5"), rules, rng.randrange(30)) for _ in range(20)]
    deals += [variant for seed in (2, 3) for variant in face_up_variants(make_deal("solvitaire", seed), rng)]
    _core.quick_key_check(True)
    try:
        for deal in deals:
            solve(deal, rules, max_nodes=20_000)
    finally:
        checked, wrong = _core.quick_key_check(False)
    assert checked > 100
    assert wrong == 0


def _builds(c: int, onto: int) -> bool:
    return onto // 4 == c // 4 + 1 and bool((onto ^ c) & 1)


def _top_runs(deal: Deal) -> list[int]:
    """Where each pile's top run starts (below it: face down, or face up but locked)."""
    starts = []
    for pile, down in zip(deal.tableau, deal.face_down):
        k = len(pile) - 1
        while k > down and _builds(pile[k], pile[k - 1]):
            k -= 1
        starts.append(max(k, 0))
    return starts


def twin_classmates(deal: Deal) -> list[Deal]:
    """Positions that differ from ``deal`` only in which of two twin parents (same rank and
    colour) a card lies on: a lone child x (its twin lies on no card) moved, with the cards on it,
    from its parent P onto P's twin when that is a pile's top; and two twins lying on the two
    twin parents exchanged, each with the cards on it."""
    starts = _top_runs(deal)
    where = {}                   # face-up card of a top run lying on another -> (pile, index)
    tops = {p[-1]: i for i, p in enumerate(deal.tableau) if p}
    for i, (pile, start) in enumerate(zip(deal.tableau, starts)):
        for k in range(start + 1, len(pile)):
            where[pile[k]] = (i, k)
    out = []
    for x, (a, k) in where.items():
        pile_a = deal.tableau[a]
        twin_parent = pile_a[k - 1] ^ 2
        piles = [list(p) for p in deal.tableau]
        if x ^ 2 not in where and twin_parent in tops:
            b = tops[twin_parent]
            piles[b] += piles[a][k:]
            del piles[a][k:]
        elif x ^ 2 in where and x < x ^ 2:
            b, j = where[x ^ 2]
            if deal.tableau[b][j - 1] != twin_parent:
                continue
            piles[a][k:], piles[b][j:] = piles[b][j:], piles[a][k:]
        else:
            continue
        out.append(dataclasses.replace(deal, tableau=tuple(map(tuple, piles))))
    return out


@pytest.mark.parametrize("rules", ALL_RULES, ids=str)
def test_twin_classmates_make_the_same_moves(rules):
    """Twin classes (see the core's key_of) are sound only if the position the search meets first
    makes, up to its class, every move its classmates could: positions that share a key must lead
    to the same set of keys. Checked on games in progress reached by random play from small deals
    and full ones. Under any-card spaces the core keys classmates apart (there a part of a run may
    go into a space when the card it leaves goes home, which holds for one classmate only), and
    this test is what fails when twin classes are switched on there."""
    rng = random.Random(f"classmates {rules}")
    compared = 0
    for number in range(60):
        shape = (DeckShape.parse("4x5/5"), DeckShape.parse("4x6/5"), DeckShape.parse("4x7/6"),
                 STANDARD)[number % 4]
        deal = random_position(rng, shape, rules, rng.randrange(40, 120))

        def keys(d: Deal):
            return _core.position_keys(
                [list(p) for p in d.tableau], list(d.face_down), d.talon, d.shape.suits,
                d.shape.ranks, rules.draw, rules.passes or 0, _core.EMPTY_RULE_CODES[rules.empty_rule],
                rules.worry_back, list(d.foundations), len(d.waste), d.passes_used)

        key, children = keys(deal)
        for mate in twin_classmates(deal):
            mate_key, mate_children = keys(mate)
            if mate_key != key:
                assert rules.empty_rule == "any", describe(mate, rules, "a twin classmate keyed apart")
                continue
            compared += 1
            assert set(mate_children) == set(children), describe(
                deal, rules, f"position #{number}: its twin classmate (below) leads elsewhere\n"
                             f"{dump_deal(mate, 'text')}")
    assert compared >= (0 if rules.empty_rule == "any" else 5), compared


@pytest.mark.parametrize("rules", [Rules(3), Rules(1), Rules(3, 2), Rules(3, None, "none", False)],
                         ids=str)
@pytest.mark.parametrize("swap", SUIT_SWAPS.values(), ids=SUIT_SWAPS.keys())
def test_exchanging_suits_of_a_colour_keeps_the_verdict(swap, rules):
    """Exchanging two suits of one colour throughout a deal gives the same game, but changes which
    twin a twin class keys as the lower one: both must get the same verdict."""
    compared = 0
    for seed in range(1, 41):
        deal = make_deal("solvitaire", seed)
        mirror = Deal(tuple(tuple(map(swap, p)) for p in deal.tableau), tuple(map(swap, deal.stock)),
                      deal.shape, deal.face_down)
        first, second = solved(deal, rules, timeout=2), solved(mirror, rules, timeout=2)
        if first.decided and second.decided:
            assert first.verdict == second.verdict, describe(deal, rules, f"seed {seed}: "
                                                             f"{first.verdict} but {second.verdict} "
                                                             "with two suits exchanged")
            compared += 1
    assert compared >= 35


# --- dead ends proved before any search ---------------------------------------------------------

@pytest.mark.parametrize("seed, why", [
    (15, "JS lies on both red queens and on the 10S its suit needs"),
    (22, "QC lies above its twin QS, and KH, 9C and 6S lie under QS"),
    (1000, "7D lies above its twin 7H, and 8S, AD and 3H lie under 7H"),
], ids=str)
def test_dead_ends_need_no_search(seed, why):
    """Deals lost with king-only spaces for a reason the dead-end test sees at the root (no
    position searched), and won once any card may fill a space (the test is not too eager)."""
    deal = make_deal("solvitaire", seed)
    lost = solved(deal, Rules(3))
    assert (lost.verdict, lost.nodes) == (UNWINNABLE, 0), why
    assert solved(deal, Rules(3, None, "any"), timeout=SOLVE_TIMEOUT).verdict == WINNABLE


@pytest.mark.parametrize("seed, decided_by", [
    (22, "root"), (2, "game"), (558, "relaxation"), (83, "restarts")], ids=str)
def test_the_last_solve_is_counted_by_search(seed, decided_by):
    """The benchmarks' counts of a solve (_core.last_counts): the positions of the three
    searches add up to the solve's, and the search that decided is named (seed 22 at draw 3 is
    a dead end at the root, 2 is won by the ordered search, 558 lost by the relaxation, 83 won
    by a random-order search)."""
    result = solved(make_deal("solvitaire", seed), Rules(3))
    counts = _core.last_counts()
    assert counts["decided_by"] == decided_by
    assert counts["game_nodes"] + counts["relaxation_nodes"] + counts["restart_nodes"] == result.nodes
    assert counts["known"] >= 0 and counts["dead"] >= 0


def test_a_card_carried_in_a_locked_run_is_no_dead_end():
    """Pile 4 holds the locked run 4H 3S under 5C. 3S cannot go home before 2S (under 5S in pile
    3) nor onto 4H or 4D alone, yet it leaves with 4H onto 5S: the dead-end test must not count
    a card that lies on its parent in a locked run as one that moves only by itself (found by
    random search with that count: it called this won deal lost)."""
    deal = parse_deal("shape: 3x5/4\npile 1: 5H\npile 2: | 2C AC\npile 3: | 4S 5S 2S\n"
                      "pile 4: | AS 4H 3S 5C\nstock: 2H 4C 3C 3H AH", "text")
    rules = Rules(2, 1, "king", False)
    assert search(deal, rules).winnable
    assert solved(deal, rules).verdict == WINNABLE


def test_twins_are_not_blocked_by_a_locked_run_that_carries_one():
    """3S lies above its lower clubs and spades and on its parent 4H, with its twin 3C on top: the
    twin-blocking pattern, but 3S sits in the locked run 4H 3S, which goes into a space as one
    once 3C has moved onto 4D. Won; the twin test must not count 3S as moving only alone (with
    that count it called this deal lost at the root)."""
    deal = parse_deal("shape: 4x4/4\npile 1: | AC AS 4H 3S 3C\npile 2: 4D\npile 3:\npile 4:\n"
                      "stock: AH 2H 3H AD 2D 3D 4C 4S 2C 2S", "text")
    rules = Rules(1)
    assert search(deal, rules).winnable
    assert solved(deal, rules).verdict == WINNABLE


def twin_blocked_deal(rng: random.Random, spoil: bool) -> Deal:
    """A random 4x5/5 deal whose last pile is, bottom to top, a shuffle of (a lower card of
    t1's suit, a lower card of t2's suit, a parent of both) then t2, then its twin t1: the
    pattern the core's twin test declares lost. ``spoil``: one of the three bottom cards is
    replaced by a random other card, so the pattern no longer holds."""
    shape = DeckShape.parse("4x5/5")
    rank, colour = rng.randint(1, 3), rng.randint(0, 1)
    suit1, suit2 = rng.sample([colour, colour + 2], 2)
    parent = (rank + 1) * 4 + (colour ^ 1) + 2 * rng.randint(0, 1)
    under = [rng.randrange(rank) * 4 + suit1, rng.randrange(rank) * 4 + suit2, parent]
    if spoil:
        under[rng.randrange(3)] = rng.choice(
            [c for c in shape.cards() if c not in under + [rank * 4 + suit1, rank * 4 + suit2]])
    rng.shuffle(under)
    last = under + [rank * 4 + suit2, rank * 4 + suit1]
    rest = [c for c in shape.cards() if c not in last]
    rng.shuffle(rest)
    piles = [tuple(rest[n * (n - 1) // 2:n * (n + 1) // 2]) for n in range(1, 5)] + [tuple(last)]
    return Deal(tableau=tuple(piles), face_down=tuple(len(p) - 1 for p in piles),
                stock=tuple(rest[10:]), shape=shape)


def test_twin_blocked_deals_are_lost():
    """The twin test fires at the root on every deal with the pattern, and each such deal is
    lost for the brute force too; with the pattern spoiled, verdicts still agree."""
    rng = random.Random("twins")
    fired = 0
    for number in range(30):
        spoil = number % 3 == 2
        deal = twin_blocked_deal(rng, spoil)
        rules = Rules(rng.choice((1, 2, 3)), rng.choice((1, 2, None)), rng.choice(("king", "none")),
                      rng.random() < 0.5)
        brute = search(deal, rules, EXHAUSTIVE_LIMIT * 10)
        result = solved(deal, rules, timeout=SOLVE_TIMEOUT)
        label = describe(deal, rules, f"deal #{number}")
        if not spoil:
            assert (result.verdict, result.nodes) == (UNWINNABLE, 0), label
            assert brute.winnable is False, label
            fired += 1
        elif brute.winnable is not None:
            assert result.verdict == (WINNABLE if brute.winnable else UNWINNABLE), label
    assert fired == 20


def seeds(count: int) -> list[int]:
    rng = random.Random("metamorphic")
    return [rng.randrange(2 ** 32) for _ in range(count)]


@functools.lru_cache(maxsize=None)
def full_deal_result(seed: int, rules: Rules, timeout: float) -> Result:
    return solved(make_deal("solvitaire", seed), rules, timeout=timeout)


def assert_never_loses_a_win(chain: list[Rules], count: int, timeout: float) -> None:
    """Each rule set of ``chain`` allows every move of the ones before it: a deal winnable under an
    earlier one is winnable under every later one (and its winning line still wins there)."""
    problems, compared = [], 0
    for seed in seeds(count):
        deal = make_deal("solvitaire", seed)
        results = [full_deal_result(seed, rules, timeout) for rules in chain]
        for i, (weak, weak_result) in enumerate(zip(chain, results)):
            if weak_result.verdict != WINNABLE:
                continue
            for strong, strong_result in zip(chain[i + 1:], results[i + 1:]):
                outcome = replay(deal, strong, weak_result.moves)
                assert outcome.won, f"seed {seed}: the {weak} line fails under {strong}: {outcome.error}"
                if strong_result.verdict == UNKNOWN:
                    continue
                compared += 1
                if strong_result.verdict != WINNABLE:
                    message = describe(deal, strong, f"solvitaire seed {seed}: winnable under {weak} "
                                                     f"but {strong_result.verdict} under {strong}")
                    record(message)
                    problems.append(message)
        # The contrapositive: unwinnable under a later rule set means unwinnable under earlier ones.
        for j, strong_result in enumerate(results):
            if strong_result.verdict == UNWINNABLE:
                compared += sum(r.verdict == UNWINNABLE for r in results[:j])
    assert not problems, "\n\n".join(problems)
    assert compared > 0, "every comparison was undecided: raise the timeout"


def face_up_variants(deal: Deal, rng: random.Random) -> list[Deal]:
    """The deal with every card face up, and with random numbers of each pile's cards face up."""
    variants = [dataclasses.replace(deal, face_down=(0,) * len(deal.tableau))]
    variants += [dataclasses.replace(deal, face_down=tuple(rng.randint(0, d) for d in deal.face_down))
                 for _ in range(2)]
    return variants


@pytest.mark.parametrize("rules", [Rules(3), Rules(1), Rules(3, 3, "king", False)], ids=str)
def test_more_face_up_cards_never_lose_a_win(rules):
    """A layout with more cards face up has every move the dealt one has (a face-up card below
    the top run is as stuck as a face-down one until uncovered, and then freer): a deal won as
    dealt is won with any of its cards face up, and a face-up variant that is lost means the
    deal is lost."""
    rng = random.Random(f"face up {rules}")
    compared = 0
    for seed in seeds(DEFAULT_SEEDS):
        deal = make_deal("solvitaire", seed)
        dealt = full_deal_result(seed, rules, DEFAULT_TIMEOUT * 5)
        for variant in face_up_variants(deal, rng):
            result = solved(variant, rules, timeout=DEFAULT_TIMEOUT * 5)
            if UNKNOWN in (dealt.verdict, result.verdict):
                continue
            compared += 1
            if dealt.verdict == WINNABLE:
                assert result.verdict == WINNABLE, describe(variant, rules, f"seed {seed}: won as "
                                                                            "dealt, lost face up")
    assert compared >= 2 * DEFAULT_SEEDS


@pytest.mark.parametrize("name", ["klondikeSM1.json", "klondikeSM2.json"])
def test_solvitaires_all_face_up_deal_files_are_won(name):
    """Solvitaire's own deal presets list every tableau card face up; Solvitaire solves both at
    draw 3 (and the same deals dealt the usual way are won too). Each line replays."""
    deal = load_deal(Path(__file__).parent / "data" / name)
    assert deal.face_down == (0,) * 7
    assert solved(deal, Rules(3), timeout=SOLVE_TIMEOUT).verdict == WINNABLE
    dealt = dataclasses.replace(deal, face_down=None)
    assert solved(dealt, Rules(3), timeout=SOLVE_TIMEOUT).verdict == WINNABLE


PASSES_CHAINS = {f"draw{d}": [Rules(d, p) for p in (1, 2, 3, None)] for d in (1, 3)}
EMPTY_CHAINS = {f"draw{d}": [Rules(d, None, e) for e in ("none", "king", "any")] for d in (1, 3)}
WORRY_CHAINS = {f"draw{d}-passes{p or 'unlimited'}": [Rules(d, p, "king", w) for w in (False, True)]
                for d, p in ((1, None), (3, None), (3, 3))}
CHAINS = ([pytest.param(c, id=f"passes-{k}") for k, c in PASSES_CHAINS.items()]
          + [pytest.param(c, id=f"empty-{k}") for k, c in EMPTY_CHAINS.items()]
          + [pytest.param(c, id=f"worry-{k}") for k, c in WORRY_CHAINS.items()])


@pytest.mark.parametrize("chain", CHAINS)
def test_looser_rules_never_lose_a_win(chain):
    assert_never_loses_a_win(chain, DEFAULT_SEEDS, DEFAULT_TIMEOUT)


@pytest.mark.slow
@pytest.mark.parametrize("chain", CHAINS)
def test_looser_rules_never_lose_a_win_many(chain):
    assert_never_loses_a_win(chain, SLOW_SEEDS, SLOW_TIMEOUT)


# --- limits ------------------------------------------------------------------------------------

# Solvitaire seed 598 under draw 1: unwinnable (lonelybot), 0.8 million positions for the core.
HARD_DEAL, HARD_RULES = make_deal("solvitaire", 598), Rules(1)


@pytest.mark.parametrize("max_nodes", [1, 1000, 5000, 30_000])
def test_max_nodes_gives_unknown(max_nodes):
    result = solved(HARD_DEAL, HARD_RULES, max_nodes=max_nodes)
    assert (result.verdict, result.limit) == (UNKNOWN, "nodes")
    assert result.nodes == max_nodes  # stops at the budget, not at the next 1024 positions


@pytest.mark.parametrize("max_nodes", [1, 20_000, 21_000, 150_001])
def test_max_nodes_is_exact_with_the_relaxation_and_restarts_taking_turns(max_nodes):
    # Seed 1978 at draw 3: the game's search, the relaxation and random-order searches all run.
    result = solve(make_deal("solvitaire", 1978), Rules(3), max_nodes=max_nodes)
    assert (result.verdict, result.limit, result.nodes) == (UNKNOWN, "nodes", max_nodes)


@pytest.mark.parametrize("seed, rules", [(2, Rules(3)), (1, Rules(3)), (5, Rules(3, 3))], ids=str)
def test_max_nodes_far_above_need_decides_the_same(seed, rules):
    deal = make_deal("solvitaire", seed)
    free = solved(deal, rules)
    assert free.decided
    bounded = solved(deal, rules, max_nodes=20 * free.nodes + 10 ** 7)
    assert (bounded.verdict, bounded.limit) == (free.verdict, "")


@pytest.mark.parametrize("timeout", [0.01, 0.2])
def test_timeout_gives_unknown(timeout):
    result = solved(HARD_DEAL, HARD_RULES, timeout=timeout)
    assert (result.verdict, result.limit) == (UNKNOWN, "time")
    assert timeout <= result.seconds < timeout + 1.0  # stops soon after the deadline


def test_tight_limit_kinds_are_independent():
    """With both limits, the one that runs out first is named."""
    by_nodes = solved(HARD_DEAL, HARD_RULES, max_nodes=2000, timeout=60)
    assert by_nodes.limit == "nodes"
    by_time = solved(HARD_DEAL, HARD_RULES, max_nodes=10 ** 12, timeout=0.05)
    assert by_time.limit == "time"


def test_a_full_table_is_named_as_the_limit():
    """A search whose table filled goes on without storing; when its budget then runs out, the
    limit named is the table (more memory is what helps), with the memory used."""
    tight = solved(HARD_DEAL, HARD_RULES, max_nodes=100_000, memory_mb=0.001)
    assert (tight.verdict, tight.limit, tight.memory_mb) == (UNKNOWN, "table", 0.001)
    by_time = solved(HARD_DEAL, HARD_RULES, timeout=0.05, memory_mb=0.001)
    assert by_time.limit == "table"
    roomy = solved(HARD_DEAL, HARD_RULES, max_nodes=100_000, memory_mb=64)
    assert (roomy.limit, roomy.nodes) == ("nodes", tight.nodes)


def test_a_full_table_holds_what_its_memory_holds():
    """The memory limit counts the tables themselves (growth does not need the old and the new
    table within it): the relaxation's table, a quarter of the memory, fills to 85 % of its
    16-byte slots. Seed 1978 at draw 3 fills it within 3 million positions."""
    result = solve(make_deal("solvitaire", 1978), Rules(3), max_nodes=3_000_000, memory_mb=16)
    assert result.limit == "table"
    assert result.table_peak >= 0.2 * 16 * 2**20 / 16


_RSS_SCRIPT = """
import resource
from dsolve.klondike.api import check
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = check(1978, max_nodes=3_000_000, memory_mb=32)
assert result.limit == "table", result
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def test_memory_held_stays_within_the_limit():
    """The search's peak resident memory grows by no more than its tables' limit (and a few MB
    for the search's stack and the huge pages of a table growing), with the tables full."""
    import subprocess
    import sys

    import dsolve

    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dsolve.__file__))}
    done = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) <= 32 + 8, done.stdout


_INTERRUPT_SCRIPT = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's: a background run inherits it ignored
from dsolve.klondike.api import check
from dsolve.rules import Rules
threading.Timer(float(sys.argv[1]), lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    # A loss with a table this small goes on far longer than the test waits.
    result = check(90, Rules(3), timeout=30, memory_mb=0.001)
except KeyboardInterrupt:
    print(f"KeyboardInterrupt after {time.monotonic() - start:.2f} s")
else:
    print(f"returned {result.verdict!r} (limit {result.limit!r}) after {time.monotonic() - start:.2f} s")
"""


@pytest.mark.parametrize("delay", [0.5, 4.5], ids=["early", "late"])
def test_interrupt_raises_keyboardinterrupt(delay):
    """Ctrl-C (SIGINT) during a solve raises KeyboardInterrupt soon; never a verdict. Run in a
    child process so that the signal cannot reach pytest itself."""
    import subprocess
    import sys

    import dsolve

    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dsolve.__file__))}
    done = subprocess.run([sys.executable, "-c", _INTERRUPT_SCRIPT, str(delay)], env=env,
                          capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert lines and lines[-1].startswith("KeyboardInterrupt after "), (done.stdout, done.stderr)
    assert float(lines[-1].split()[2]) < delay + 5, lines[-1]
    assert "Exception ignored" not in done.stderr, done.stderr


def overflowing_small_deals(stream: str, wanted: int, tries: int):
    """Random 4x6/4 deals whose search needs more positions than a tiny table holds (but not many
    more, so the table-less search still ends): (deal, rules, roomy result)."""
    rng = random.Random(stream)
    shape = DeckShape.parse("4x6/4")
    found = 0
    for attempt in range(tries):
        rules = ALL_RULES[attempt % len(ALL_RULES)]
        deal = random_small_deal(rng, shape)
        roomy = solved(deal, rules)
        if 3600 < roomy.table_peak < 5000:
            yield deal, rules, roomy
            found += 1
            if found == wanted:
                return


@pytest.mark.parametrize("stream, wanted", [
    pytest.param("overflow", 2, id="default"),
    pytest.param("overflow-slow", 12, id="many", marks=pytest.mark.slow),
])
def test_full_table_search_goes_on_small_deals(stream, wanted):
    """A tiny table fills, stops growing, and the search still reaches the brute-force verdict."""
    checked = 0
    for deal, rules, roomy in overflowing_small_deals(stream, wanted * 3, 5000):
        tight = solved(deal, rules, memory_mb=TINY_MB, timeout=30)
        if tight.verdict == UNKNOWN:
            continue  # without a table the search may be exponential; not a wrong answer
        assert tight.table_peak < roomy.table_peak, "the table did not fill"
        brute = search(deal, rules, 2_000_000).winnable
        if brute is None:
            continue
        expected = WINNABLE if brute else UNWINNABLE
        for name, got in (("tight", tight), ("roomy", roomy)):
            if got.verdict != expected:
                message = describe(deal, rules, f"{name} table says {got.verdict}, exhaustive {expected}")
                record(message)
                raise AssertionError(message)
        checked += 1
        if checked == wanted:
            break
    assert checked == wanted, f"only {checked} overflowing deals decided"


@pytest.mark.parametrize("rules", [Rules(3), Rules(3, 3), Rules(3, None, "king", False)], ids=str)
def test_full_table_search_goes_on_full_deals(rules):
    """Full deals whose search overflows a tiny table: same verdict as with a roomy table."""
    checked = 0
    for seed in range(1, 300):
        deal = make_deal("solvitaire", seed)
        roomy = solved(deal, rules, timeout=2)
        if not (roomy.decided and 3600 < roomy.table_peak < 8000):
            continue
        tight = solved(deal, rules, memory_mb=TINY_MB, timeout=5)
        if tight.verdict == UNKNOWN:
            continue
        assert tight.table_peak < roomy.table_peak
        assert tight.verdict == roomy.verdict, describe(deal, rules, f"solvitaire seed {seed}: tight "
                                                                    f"{tight.verdict}, roomy {roomy.verdict}")
        checked += 1
        if checked == 3:
            return
    pytest.fail(f"only {checked} overflowing seeds decided")


_ORDER_SCRIPT = """
import json
from dsolve.klondike.api import solve
from dsolve.klondike.deals import make_deal
from dsolve.rules import Rules
deals = [(make_deal("solvitaire", seed), rules, 20_000) for seed in range(1, 13)
         for rules in (Rules(3), Rules(1), Rules(3, 1))]
deals += [(make_deal("solvitaire", seed), Rules(3), 300_000) for seed in (701, 679, 598)]
first = [solve(deal, rules, max_nodes=limit) for deal, rules, limit in deals]
again = [solve(deal, rules, max_nodes=limit) for deal, rules, limit in reversed(deals)][::-1]
print(json.dumps([[(r.verdict, r.nodes) for r in first], [(r.verdict, r.nodes) for r in again]]))
"""


def test_a_search_finds_nothing_left_by_the_searches_before_it():
    """Tables are kept between searches (spare tables, and larger ones in the pool: see
    _core_table.pxi): a search must find its table empty whatever the ones before it left there,
    so each deal searches the same positions, whichever deals were solved before it in the
    process. The three longer searches grow tables of several of the pool's sizes. (In a process
    of its own: a table that is not empty may also make a search loop for ever.)"""
    import json
    import subprocess
    import sys

    import dsolve

    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dsolve.__file__))}
    done = subprocess.run([sys.executable, "-c", _ORDER_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, again = json.loads(done.stdout)
    assert again == first
    assert sum(nodes for _, nodes in first) > 20_000
    assert min(nodes for _, nodes in first[-3:]) > 200_000


def test_table_grows_into_most_of_its_memory():
    """A search needing more positions than its memory holds fills a table of most of that memory:
    more than half of it (growing only by doubling, within a third, it would stop at a quarter)."""
    slots = 4 * 2**20 // 16                      # 4 MB of 16-byte slots
    result = solved(make_deal("solvitaire", 598), Rules(1), memory_mb=4, max_nodes=500_000)
    assert slots // 2 < result.table_peak < slots
