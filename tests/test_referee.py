"""The referee: hand-built positions for every move kind, replays, and exhaustive search."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from dsolve.cards import STANDARD, DeckShape, card_name, parse_card
from dsolve.klondike.deal import Deal, deal_from_order
from dsolve.errors import InputError
from dsolve.klondike.moves import (FOUNDATION_TO_TABLEAU, REDEAL, TABLEAU_TO_FOUNDATION,
                          TABLEAU_TO_TABLEAU, TURN, WASTE_TO_FOUNDATION, WASTE_TO_TABLEAU, Move)
from dsolve.klondike.brute import exhaustive, random_small_deal, search
from dsolve.klondike.referee import Game, IllegalMove, replay
from dsolve.rules import Rules

DRAW1 = Rules(1, None, "king", True)
DRAW3 = Rules(3, None, "king", True)


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def names(cs) -> str:
    return " ".join(card_name(c) for c in cs)


def make_deal(piles: list[str], stock: str | None = None, shape: DeckShape | None = None) -> Deal:
    """Piles as ``"KD QS | 8D 7C"`` (cards left of ``|`` face down, none if no ``|``); ``stock``
    in turning order; with ``stock=None`` the cards not in the piles form the stock. The shape
    defaults to a full deck with as many columns as piles."""
    shape = shape or DeckShape(4, 13, len(piles))
    tableau, down = [], []
    for text in piles:
        hidden, bar, shown = text.rpartition("|")
        tableau.append(cards(hidden) + cards(shown) if bar else cards(text))
        down.append(len(cards(hidden)) if bar else 0)
    used = {c for p in tableau for c in p}
    stock_cards = cards(stock) if stock is not None else [c for c in shape.cards() if c not in used]
    return Deal(tableau, stock_cards, shape, tuple(down))


def make_game(piles: list[str], rules: Rules = DRAW1, stock: str | None = None,
              shape: DeckShape | None = None, waste: str = "", foundations: dict[str, int] | None = None) -> Game:
    """A position: piles as in :func:`make_deal`; ``waste`` cards and ``foundations`` (suit
    letter -> how many cards) are taken out of the stock."""
    game = Game(make_deal(piles, stock, shape), rules)
    taken = set(cards(waste))
    for suit, n in (foundations or {}).items():
        s = "CHSD".index(suit)
        game.foundations[s] = n
        taken |= {r * 4 + s for r in range(n)}
    game.stock = [c for c in game.stock if c not in taken]
    game.waste = cards(waste)
    return game


def pile(game: Game, i: int) -> tuple[str, str]:
    """(face-down cards, face-up cards) of pile i, as text."""
    p, d = game.piles[i], game.face_down[i]
    return names(p[:d]), names(p[d:])


def illegal(game: Game, move: Move, reason: str) -> None:
    before = game.key()
    with pytest.raises(IllegalMove, match=reason):
        game.apply(move)
    assert game.key() == before, "an illegal move must not change the position"
    assert move not in game.legal_moves()


def t2t(src: int, dst: int, count: int = 1, card: str | None = None) -> Move:
    return Move(TABLEAU_TO_TABLEAU, src, dst, count, parse_card(card) if card else -1)


# --------------------------------------------------------------------- stock and waste


def small_stock_game(draw: int, passes: int | None = None) -> Game:
    # 1 suit x 6 ranks, 1 column: the pile is 6C, the stock A..5 in that turning order.
    shape = DeckShape(1, 6, 1)
    return Game(make_deal(["6C"], "AC 2C 3C 4C 5C", shape), Rules(draw, passes, "king", True))


def test_turn_draw_one_moves_one_card():
    g = small_stock_game(1)
    g.apply(Move(TURN))
    assert names(g.waste) == "AC" and names(g.stock) == "2C 3C 4C 5C"


def test_turn_draw_three_puts_the_last_turned_on_top():
    g = small_stock_game(3)
    g.apply(Move(TURN))
    assert names(g.waste) == "AC 2C 3C" and names(g.stock) == "4C 5C"
    assert Move(WASTE_TO_FOUNDATION, card=parse_card("3C")) not in g.legal_moves()
    illegal(g, Move(WASTE_TO_FOUNDATION), "3C cannot go to its foundation: the C foundation needs AC")


def test_turn_draw_three_with_fewer_cards_left_turns_them_all():
    g = small_stock_game(3)
    g.apply(Move(TURN))
    g.apply(Move(TURN))
    assert names(g.waste) == "AC 2C 3C 4C 5C" and g.stock == []
    illegal(g, Move(TURN), "stock is empty")


def test_draw_larger_than_stock():
    g = small_stock_game(13)
    g.apply(Move(TURN))
    assert names(g.waste) == "AC 2C 3C 4C 5C" and g.stock == []


def test_redeal_restores_the_original_order():
    g = small_stock_game(3)
    g.apply(Move(TURN))
    g.apply(Move(TURN))
    assert g.passes_used == 1
    g.apply(Move(REDEAL))
    assert names(g.stock) == "AC 2C 3C 4C 5C" and g.waste == [] and g.passes_used == 2
    g.apply(Move(TURN))
    assert names(g.waste) == "AC 2C 3C"


def test_redeal_after_playing_from_the_waste_keeps_relative_order():
    # Draw 2: the first turn shows 3H AC; AC goes up. After the redeal the stock is the
    # original order without AC, so the pairs shift: the first turn now shows 3H 2H.
    shape = DeckShape(2, 6, 1)
    deal = make_deal(["6H"], "3H AC 2H AH 4H 5H 2C 3C 4C 5C 6C", shape)
    g = Game(deal, Rules(2, None, "king", True))
    g.apply(Move(TURN))
    assert names(g.waste) == "3H AC"
    g.apply(Move(WASTE_TO_FOUNDATION, card=parse_card("AC")))
    for _ in range(5):
        g.apply(Move(TURN))
    assert names(g.waste) == "3H 2H AH 4H 5H 2C 3C 4C 5C 6C" and g.stock == []
    g.apply(Move(REDEAL))
    assert names(g.stock) == "3H 2H AH 4H 5H 2C 3C 4C 5C 6C" and g.waste == []
    g.apply(Move(TURN))
    assert names(g.waste) == "3H 2H"


def test_redeal_needs_an_empty_stock_and_a_non_empty_waste():
    g = small_stock_game(1)
    illegal(g, Move(REDEAL), "stock is not empty")
    g = small_stock_game(1)
    for _ in range(5):
        g.apply(Move(TURN))
        g.apply(Move(WASTE_TO_FOUNDATION))
    assert g.stock == [] and g.waste == []
    illegal(g, Move(REDEAL), "waste is empty")
    assert Move(TURN) not in g.legal_moves()


@pytest.mark.parametrize("passes", [1, 2, 3])
def test_passes_limit_redeals(passes):
    g = small_stock_game(3, passes)
    for _ in range(passes - 1):
        g.apply(Move(TURN))
        g.apply(Move(TURN))
        assert Move(REDEAL) in g.legal_moves()
        g.apply(Move(REDEAL))
    g.apply(Move(TURN))
    g.apply(Move(TURN))
    assert g.passes_used == passes
    illegal(g, Move(REDEAL), "no passes left")


def test_unlimited_passes():
    g = small_stock_game(3, None)
    for _ in range(20):
        g.apply(Move(TURN))
        g.apply(Move(TURN))
        g.apply(Move(REDEAL))
    assert names(g.stock) == "AC 2C 3C 4C 5C"


def test_key_ignores_pass_count_only_when_unlimited():
    unlimited, limited = small_stock_game(3, None), small_stock_game(3, 5)
    for g in (unlimited, limited):
        k0, s0 = g.key(), g.symmetric_key()
        g.apply(Move(TURN))
        g.apply(Move(TURN))
        g.apply(Move(REDEAL))
        assert (g.key() == k0) is (g is unlimited)
        assert (g.symmetric_key() == s0) is (g is unlimited)


def test_symmetric_key_ignores_pile_order_only():
    a = make_game(["5D | 9C", "KH", ""])
    b = make_game(["", "KH", "5D | 9C"])
    c = make_game(["9C | 5D", "KH", ""])
    assert a.key() != b.key() and a.symmetric_key() == b.symmetric_key()
    assert a.symmetric_key() != c.symmetric_key()


def test_key_is_the_same_after_independent_moves_in_either_order():
    g1 = make_game(["8D", "7C", "8S", "7H"])
    g2 = g1.copy()
    g1.apply(t2t(1, 0))
    g1.apply(t2t(3, 2))
    g2.apply(t2t(3, 2))
    g2.apply(t2t(1, 0))
    assert g1.key() == g2.key()


# --------------------------------------------------------------------- waste moves


def test_waste_to_foundation():
    g = make_game(["KS"], waste="2H AH")
    g.apply(Move(WASTE_TO_FOUNDATION, card=parse_card("AH")))
    assert g.foundations[1] == 1 and names(g.waste) == "2H"
    g.apply(Move(WASTE_TO_FOUNDATION))
    assert g.foundations[1] == 2 and g.waste == []
    illegal(g, Move(WASTE_TO_FOUNDATION), "waste is empty")


def test_waste_to_foundation_wrong_rank():
    g = make_game(["KS"], waste="3H", foundations={"H": 1})
    illegal(g, Move(WASTE_TO_FOUNDATION), "3H cannot go to its foundation: the H foundation needs 2H")


def test_waste_to_tableau():
    g = make_game(["8D", "8C", "9S"], waste="7S")
    legal = g.legal_moves()
    assert Move(WASTE_TO_TABLEAU, dst=0, card=parse_card("7S")) in legal
    illegal(g, Move(WASTE_TO_TABLEAU, dst=1), "7S cannot go on 8C: same colour")
    illegal(g, Move(WASTE_TO_TABLEAU, dst=2), "7S cannot go on 9S: same colour and not one rank lower")
    illegal(g, Move(WASTE_TO_TABLEAU, dst=3), "does not exist")
    illegal(g, Move(WASTE_TO_TABLEAU, dst=0, card=parse_card("7C")), "names 7C but the card moved is 7S")
    illegal(g, Move(WASTE_TO_TABLEAU, dst=0, count=2), "carries one card")
    g.apply(Move(WASTE_TO_TABLEAU, dst=0, card=parse_card("7S")))
    assert pile(g, 0) == ("", "8D 7S") and g.waste == []


def test_colour_and_rank_messages():
    g = make_game(["8D", "7H", "9C", "6S"])
    illegal(g, t2t(1, 0), "7H cannot go on 8D: same colour")
    illegal(g, t2t(3, 2), "6S cannot go on 9C: same colour and not one rank lower")
    illegal(g, t2t(1, 2), "7H cannot go on 9C: not one rank lower")
    g.apply(t2t(3, 1, card="6S"))
    assert pile(g, 1) == ("", "7H 6S") and g.piles[3] == []


# --------------------------------------------------------------------- tableau moves


def test_tableau_to_foundation_and_automatic_flip():
    g = make_game(["5D 9C | AS", "KH"])
    g.apply(Move(TABLEAU_TO_FOUNDATION, src=0, card=parse_card("AS")))
    assert g.foundations[2] == 1
    assert pile(g, 0) == ("5D", "9C"), "the new top is turned face up"
    illegal(g, Move(TABLEAU_TO_FOUNDATION, src=0), "9C cannot go to its foundation: the C foundation needs AC")
    illegal(g, Move(TABLEAU_TO_FOUNDATION, src=1, count=2), "carries one card")
    illegal(g, Move(TABLEAU_TO_FOUNDATION, src=0, card=parse_card("5D")), "names 5D but the card moved is 9C")


def test_only_the_top_card_goes_to_a_foundation():
    g = make_game(["AH KC"])    # AH is face up but covered
    assert all(m.kind != TABLEAU_TO_FOUNDATION for m in g.legal_moves())
    illegal(g, Move(TABLEAU_TO_FOUNDATION, src=0, card=parse_card("AH")), "names AH but the card moved is KC")


def test_no_flip_while_face_up_cards_remain():
    g = make_game(["4D | 9C 8H", "10D"])
    g.apply(t2t(0, 1, 2, "9C"))
    assert pile(g, 0) == ("", "4D") and pile(g, 1) == ("", "10D 9C 8H")
    g = make_game(["4D | 9C 8H", "9S"])
    g.apply(t2t(0, 1, 1, "8H"))
    assert pile(g, 0) == ("4D", "9C")


def test_run_moves_as_a_block():
    g = make_game(["2S | 10H 9C 8D 7S", "JS", "JC 10D"])
    legal = g.legal_moves()
    assert t2t(0, 1, 4, "10H") in legal
    assert t2t(0, 2, 3, "9C") in legal
    g.apply(t2t(0, 1, 4, "10H"))
    assert pile(g, 1) == ("", "JS 10H 9C 8D 7S")
    assert pile(g, 0) == ("", "2S")


def test_run_count_and_card_must_agree():
    g = make_game(["2S | 10H 9C 8D 7S", "JS", "JC 10D"])
    illegal(g, t2t(0, 1, 3, "10H"), "names 10H but the card moved is 9C")
    illegal(g, t2t(0, 1, 3), "9C cannot go on JS")
    illegal(g, t2t(0, 2, 4, "10H"), "10H cannot go on 10D")
    illegal(g, t2t(0, 0, 1), "cannot move onto itself")
    illegal(g, t2t(0, 1, 0), "at least one card")
    illegal(g, t2t(5, 1, 1), "does not exist")


def test_run_must_be_in_sequence():
    g = make_game(["10H 9C 8C", "JS", "9H"])      # 8C on 9C breaks the run
    illegal(g, t2t(0, 1, 3, "10H"), "not in sequence: 8C on 9C")
    assert all(m.count == 1 for m in g.legal_moves() if m.kind == TABLEAU_TO_TABLEAU)
    g.apply(t2t(0, 2, 1, "8C"))
    assert t2t(0, 1, 2, "10H") in g.legal_moves()


def test_face_down_cards_cannot_move():
    g = make_game(["KS QH | JC", "KD", "QC"])
    illegal(g, t2t(0, 1, 2), "only 1 face-up card")
    illegal(g, t2t(0, 2, 2, "QH"), "only 1 face-up card")
    assert [m for m in g.legal_moves() if m.kind == TABLEAU_TO_TABLEAU and m.src == 0] == []
    assert all(m.kind != TABLEAU_TO_FOUNDATION for m in g.legal_moves())


def test_empty_pile_king_rule():
    g = make_game(["", "9C | KH QS JD", "QD", "5S | KC"], Rules(1, None, "king", True))
    legal = g.legal_moves()
    assert t2t(1, 0, 3, "KH") in legal            # king-headed run
    assert t2t(3, 0, 1, "KC") in legal            # lone king (turns up the 5S)
    illegal(g, t2t(1, 0, 2, "QS"), "QS cannot go to empty pile 1: only a K may fill a space")
    illegal(g, t2t(2, 0, 1, "QD"), "only a K may fill a space")
    g.apply(t2t(3, 0, 1, "KC"))
    assert pile(g, 0) == ("", "KC") and pile(g, 3) == ("", "5S")


def test_empty_pile_any_rule():
    g = make_game(["", "9C | KH QS JD", "4D"], Rules(1, None, "any", True), waste="7S")
    legal = g.legal_moves()
    assert t2t(1, 0, 2, "QS") in legal and t2t(1, 0, 1, "JD") in legal and t2t(2, 0, 1, "4D") in legal
    assert Move(WASTE_TO_TABLEAU, dst=0, card=parse_card("7S")) in legal
    g.apply(t2t(1, 0, 2, "QS"))
    assert pile(g, 0) == ("", "QS JD")


def test_empty_pile_none_rule():
    g = make_game(["", "9C | KH QS JD", "KD"], Rules(1, None, "none", True), waste="KS")
    illegal(g, t2t(1, 0, 3, "KH"), "spaces may not be filled")
    illegal(g, t2t(2, 0, 1, "KD"), "spaces may not be filled")
    illegal(g, Move(WASTE_TO_TABLEAU, dst=0), "spaces may not be filled")
    assert all(m.dst != 0 for m in g.legal_moves())


def test_king_means_the_highest_rank_of_a_small_deck():
    shape = DeckShape(3, 5, 4)                    # A..5 of clubs, hearts, spades
    g = Game(make_deal(["", "AC 5H", "4S", "5C 4H"], None, shape), DRAW1)
    legal = g.legal_moves()
    assert t2t(1, 0, 1, "5H") in legal
    assert t2t(3, 0, 2, "5C") in legal            # 5C 4H is a king-headed run here
    illegal(g, t2t(2, 0, 1, "4S"), "only a 5 may fill a space")


def test_worry_back():
    g = make_game(["8S", "", "5C"], DRAW1, foundations={"H": 7, "C": 2})
    legal = g.legal_moves()
    assert Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("7H")) in legal
    assert Move(FOUNDATION_TO_TABLEAU, dst=1, card=parse_card("7H")) not in legal   # not a king
    illegal(g, Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("6H")), "6H is not the top card of its foundation")
    illegal(g, Move(FOUNDATION_TO_TABLEAU, dst=2, card=parse_card("2C")), "2C cannot go on 5C")
    illegal(g, Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("7S")), "7S is not the top card")
    g.apply(Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("7H")))
    assert g.foundations[1] == 6 and pile(g, 0) == ("", "8S 7H")
    assert Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("6H")) not in g.legal_moves()


def test_worry_back_without_naming_the_card():
    g = make_game(["8S", "8D"], DRAW1, foundations={"H": 7, "C": 7, "S": 2})
    g.apply(Move(FOUNDATION_TO_TABLEAU, dst=0))                 # only 7H fits on 8S
    assert pile(g, 0) == ("", "8S 7H")
    g = make_game(["8D"], DRAW1, foundations={"C": 7, "S": 7})
    illegal(g, Move(FOUNDATION_TO_TABLEAU, dst=0), "ambiguous")


def test_worry_back_forbidden_when_off():
    g = make_game(["8S"], Rules(1, None, "king", False), foundations={"H": 7})
    assert all(m.kind != FOUNDATION_TO_TABLEAU for m in g.legal_moves())
    illegal(g, Move(FOUNDATION_TO_TABLEAU, dst=0, card=parse_card("7H")), "worry_back is off")


def test_unknown_kind():
    g = make_game(["8S"])
    illegal(g, Move("teleport"), "unknown move kind")


def test_decks_of_deal_and_rules_must_agree():
    shape = DeckShape(1, 3, 2, decks=2)
    deal = Deal([cards("AC"), cards("AC 2C")], cards("2C 3C 3C"), shape)
    with pytest.raises(InputError, match="2 deck"):
        Game(deal, DRAW1)


# --------------------------------------------------------------------- legal_moves vs apply


def all_candidates(g: Game) -> list[Move]:
    """Every move that names a real source: the brute-force list legal_moves must filter."""
    n = len(g.piles)
    out = [Move(TURN), Move(REDEAL)]
    if g.waste:
        out.append(Move(WASTE_TO_FOUNDATION, card=g.waste[-1]))
        out += [Move(WASTE_TO_TABLEAU, dst=j, card=g.waste[-1]) for j in range(n)]
    for i, p in enumerate(g.piles):
        if p:
            out.append(Move(TABLEAU_TO_FOUNDATION, src=i, card=p[-1]))
        for count in range(1, len(p) + 1):
            out += [Move(TABLEAU_TO_TABLEAU, i, j, count, p[-count]) for j in range(n)]
    for s, h in g.foundations.items():
        if h:
            out += [Move(FOUNDATION_TO_TABLEAU, dst=j, card=(h - 1) * 4 + s) for j in range(n)]
    return out


def all_cards(g: Game) -> Counter:
    found = [r * 4 + s for s, h in g.foundations.items() for r in range(h)]
    return Counter([c for p in g.piles for c in p] + g.stock + g.waste + found)


@pytest.mark.parametrize("seed", range(12))
def test_legal_moves_agree_with_apply_in_random_play(seed):
    rng = random.Random(seed)
    shape = rng.choice([DeckShape(3, 5, 4), DeckShape(4, 4, 4), DeckShape(2, 6, 3), STANDARD])
    rules = Rules(rng.choice([1, 2, 3]), rng.choice([None, 1, 2, 3]),
                  rng.choice(["king", "any", "none"]), rng.choice([True, False]))
    deal = random_small_deal(rng, shape)
    g = Game(deal, rules)
    deck = Counter(shape.cards())
    for _ in range(150):
        legal = g.legal_moves()
        candidates = all_candidates(g)
        assert set(legal) == {m for m in candidates if g.problem(m) is None}
        assert len(set(legal)) == len(legal)
        # invariants: every card exactly once, every non-empty pile shows its top card
        assert all_cards(g) == deck
        assert all(0 <= d < len(p) or (d == 0 and not p) for p, d in zip(g.piles, g.face_down))
        for m in rng.sample(candidates, min(5, len(candidates))):
            if m not in legal:
                illegal(g, m, ".")
        if not legal:
            break
        g.apply(rng.choice(legal))


# --------------------------------------------------------------------- replay


def test_replay_trivial_small_deal():
    shape = DeckShape(2, 2, 2)
    deal = make_deal(["2C", "AH | AC"], "2H", shape)
    r = replay(deal, DRAW1, ["2>F AC", "2>F AH", "1>F 2C", "turn", "W>F 2H"])
    assert r.won and r.steps == 5 and r.error is None


def test_replay_standard_deck_trivial_deal():
    # Stock A..6 in card order (draw 1: turn and play each); the tableau 7..K stacked so that
    # every pile's top is the lowest card in it, the lowest piles last.
    high = list(range(51, 23, -1))
    piles, k = [], 0
    for size in range(1, 8):
        piles.append(tuple(high[k:k + size]))
        k += size
    deal = Deal(piles, tuple(range(24)), STANDARD)
    moves: list[Move] = []
    for c in range(24):
        moves += [Move(TURN), Move(WASTE_TO_FOUNDATION, card=c)]
    tops = [list(p) for p in piles]
    for c in range(24, 52):
        i = next(i for i, p in enumerate(tops) if p and p[-1] == c)
        tops[i].pop()
        moves.append(Move(TABLEAU_TO_FOUNDATION, src=i, card=c))
    r = replay(deal, DRAW1, moves)
    assert r.won and r.steps == 76 and r.error is None
    r = replay(deal, DRAW1, moves[:-1])
    assert not r.won and r.error is None and r.steps == 75


def test_replay_reports_the_failing_step():
    shape = DeckShape(2, 2, 2)
    deal = make_deal(["2C", "AH | AC"], "2H", shape)
    r = replay(deal, DRAW1, ["1>F 2C", "2>F AC"])
    assert not r.won and r.steps == 0
    assert r.error == "step 1 (1>F 2C): 2C cannot go to its foundation: the C foundation needs AC"
    r = replay(deal, DRAW1, ["2>F AC", "W>F 2H"])
    assert r.steps == 1 and r.error == "step 2 (W>F 2H): waste is empty"
    r = replay(deal, DRAW1, ["2>F AC", "bogus"])
    assert r.steps == 1 and r.error.startswith("step 2") and "bad move" in r.error
    r = replay(deal, DRAW1, [Move(TURN), Move(TURN)])
    assert r.steps == 1 and r.error == "step 2 (turn): stock is empty"


# --------------------------------------------------------------------- exhaustive: known answers


def test_one_suit_winnable_and_stuck():
    shape = DeckShape(1, 3, 2)
    winnable = make_deal(["3C", "2C | AC"], "", shape)
    assert exhaustive(winnable, DRAW1) is True
    stuck = make_deal(["2C", "AC | 3C"], "", shape)   # 3C is the king but there is no space
    assert Game(stuck, DRAW1).legal_moves() == []
    assert exhaustive(stuck, DRAW1) is False


def test_one_card_deal():
    shape = DeckShape(1, 1, 1)
    r = search(Deal([cards("AC")], (), shape), DRAW1)
    assert r.winnable is True and r.moves == [Move(TABLEAU_TO_FOUNDATION, src=0, card=0)]


def test_any_space_wins_where_king_space_does_not():
    # AC goes up leaving a space; 3C covers 2C. Only under 'any' may 3C (not the king, 4C is)
    # move into the space.
    deal = make_deal(["AC", "2C | 3C"], "4C", DeckShape(1, 4, 2))
    assert exhaustive(deal, Rules(1, None, "king", True)) is False
    assert exhaustive(deal, Rules(1, None, "any", True)) is True


def test_king_space_wins_where_none_does_not():
    deal = make_deal(["AC", "2C | 4C"], "3C", DeckShape(1, 4, 2))
    assert exhaustive(deal, Rules(1, None, "none", True)) is False
    assert exhaustive(deal, Rules(1, None, "king", True)) is True


def test_second_pass_needed():
    # Pass 1 (draw 1): 2C, 4C, AC are turned; AC goes up but 4C now covers 2C. Pass 2: 2C, 3C, 4C.
    deal = make_deal(["3C"], "2C 4C AC", DeckShape(1, 4, 1))
    assert exhaustive(deal, Rules(1, 1, "king", True)) is False
    assert exhaustive(deal, Rules(1, 2, "king", True)) is True
    assert exhaustive(deal, Rules(1, None, "king", True)) is True


def test_draw_three_stuck_where_draw_one_wins():
    # Draw 3 always shows 3C on top of AC 2C; 4C fills the only pile.
    deal = make_deal(["4C"], "AC 2C 3C", DeckShape(1, 4, 1))
    assert exhaustive(deal, Rules(3, None, "king", True)) is False
    assert exhaustive(deal, Rules(1, 1, "king", True)) is True


def test_worry_back_needed():
    # 3H must go up to free the 4C under it, then come back down so 2C (on 3H) can free pile 1.
    deal = make_deal(["2C", "AC | 3C", "4H 4C | 3H"], "AH 2H", DeckShape(2, 4, 3))
    assert exhaustive(deal, Rules(1, None, "king", False)) is False
    r = search(deal, Rules(1, None, "king", True))
    assert r.winnable is True
    assert any(m.kind == FOUNDATION_TO_TABLEAU for m in r.moves)
    assert replay(deal, Rules(1, None, "king", True), r.moves).won
    assert replay(deal, Rules(1, None, "king", False), r.moves).error is not None


def test_node_limit_gives_none():
    rng = random.Random(5)
    deal = random_small_deal(rng, DeckShape(4, 4, 4))
    assert exhaustive(deal, DRAW1, limit=3) is None
    assert exhaustive(deal, DRAW1) in (True, False)


def test_random_small_deal_is_a_shuffle():
    shape = DeckShape(3, 5, 4)
    deal = random_small_deal(random.Random(1), shape)
    assert sorted(deal.cards) == sorted(shape.cards())
    assert deal.face_down == (0, 1, 2, 3) and len(deal.stock) == 5
    assert deal == deal_from_order(_order_of(deal), shape)


def _order_of(deal: Deal) -> list[int]:
    """Undo deal_from_order: row by row, left to right from pile ``row``."""
    n = len(deal.tableau)
    return [deal.tableau[col][row] for row in range(n) for col in range(row, n)] + list(deal.stock)


# --------------------------------------------------------------------- exhaustive: monotonicity


SHAPES = [DeckShape(3, 5, 4), DeckShape(4, 4, 4), DeckShape(2, 5, 3), DeckShape(3, 4, 4)]


def richer_also_wins(deal: Deal, poor: Rules, rich: Rules) -> bool | None:
    """If ``poor`` wins, its winning line must replay under ``rich`` and search must agree."""
    r = search(deal, poor)
    assert r.winnable is not None
    if r.winnable:
        assert replay(deal, poor, r.moves).won, "search's own line must replay"
        assert replay(deal, rich, r.moves).won, f"line for {poor} not legal under {rich}"
        assert exhaustive(deal, rich) is True
    return r.winnable


def test_more_passes_never_lose_a_win():
    rng = random.Random(101)
    wins = Counter()
    for n in range(120):
        deal = random_small_deal(rng, SHAPES[n % len(SHAPES)])
        draw, empty, worry = rng.choice([1, 2, 3]), rng.choice(["king", "any"]), rng.random() < .5
        chain = [Rules(draw, p, empty, worry) for p in (1, 2, 3, None)]
        for poor, rich in zip(chain, chain[1:]):
            wins[poor.passes] += bool(richer_also_wins(deal, poor, rich))
    assert 0 < wins[1] < 120 and wins[1] <= wins[2] <= wins[3]


def test_any_space_never_loses_a_win_of_king_space():
    rng = random.Random(202)
    outcomes = Counter()
    for n in range(160):
        deal = random_small_deal(rng, SHAPES[n % len(SHAPES)])
        draw, passes, worry = rng.choice([1, 3]), rng.choice([1, 3, None]), rng.random() < .5
        none, king, any_ = (Rules(draw, passes, e, worry) for e in ("none", "king", "any"))
        outcomes["none"] += bool(richer_also_wins(deal, none, king))
        outcomes["king"] += bool(richer_also_wins(deal, king, any_))
    assert 0 < outcomes["none"] <= outcomes["king"] < 160


def test_worry_back_never_loses_a_win():
    rng = random.Random(303)
    wins = 0
    for n in range(160):
        deal = random_small_deal(rng, SHAPES[n % len(SHAPES)])
        draw, passes, empty = rng.choice([1, 3]), rng.choice([1, 3, None]), rng.choice(["king", "any"])
        wins += bool(richer_also_wins(deal, Rules(draw, passes, empty, False), Rules(draw, passes, empty, True)))
    assert 0 < wins < 160


def test_search_is_independent_of_pile_order():
    # The search identifies positions that differ only by pile order; check its verdict
    # against the same deal with the piles reversed.
    rng = random.Random(404)
    for n in range(60):
        deal = random_small_deal(rng, SHAPES[n % len(SHAPES)])
        flipped = Deal(deal.tableau[::-1], deal.stock, deal.shape, deal.face_down[::-1])
        rules = Rules(rng.choice([1, 3]), rng.choice([1, None]), rng.choice(["king", "any", "none"]),
                      rng.random() < .5)
        assert exhaustive(deal, rules) == exhaustive(flipped, rules)
