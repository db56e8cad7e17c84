"""Games in progress and the player's questions: a position from the middle of a line decided by
the API and the CLI, the readable solution and boards, hints, and the reason for a loss proved
without search."""
import dataclasses
import json

import pytest

from dsolve.klondike.api import hints, solve
from dsolve.cards import card_name
from dsolve.klondike.dealfiles import dump_deal, load_deal
from dsolve.klondike.deals import make_deal
from dsolve.errors import InputError
from dsolve.klondike.referee import Game, replay
from dsolve.klondike.result import UNWINNABLE, WINNABLE
from dsolve.rules import STANDARD_RULES, Rules
from dsolve.klondike.solution import narrate

from conftest import run

SEED = 2


@pytest.fixture(scope="module")
def line():
    result = solve(make_deal("solvitaire", SEED), STANDARD_RULES)
    assert result.verdict == WINNABLE
    return result.moves


@pytest.fixture(scope="module")
def won_and_lost(line):
    """The position after 60 moves of seed 2's winning line, and the first position along the
    line after which some legal move loses the game, with that move made."""
    steps = narrate(make_deal("solvitaire", SEED), STANDARD_RULES, line)
    middle = steps[59].board
    for step in steps[59:]:
        for h in hints(step.board, STANDARD_RULES, timeout=10):
            if h.verdict == UNWINNABLE:
                game = Game(step.board, STANDARD_RULES)
                game.apply(h.move)
                return middle, game.position()
    pytest.fail("no losing move along the line")


@pytest.mark.parametrize("fmt", ["json", "text"])   # the formats that hold games in progress
def test_a_position_from_the_middle_of_a_line_is_decided(won_and_lost, tmp_path, fmt):
    middle, lost = won_and_lost
    assert middle.in_progress and any(middle.foundations) and middle.waste
    for position, verdict, name in ((middle, WINNABLE, "middle"), (lost, UNWINNABLE, "lost")):
        path = tmp_path / f"{name}.{fmt}"
        path.write_text(dump_deal(position, fmt))
        loaded = load_deal(path)
        assert loaded == position
        result = solve(loaded, STANDARD_RULES, timeout=30)
        assert result.verdict == verdict
        if verdict == WINNABLE:
            assert replay(loaded, STANDARD_RULES, result.moves).won
        out = run("check", "--file", str(path), "--json")
        assert out.exit_code == 0, out.stderr
        assert json.loads(out.stdout)["verdict"] == verdict


def test_solution_names_what_turns_and_moves_bring_into_play(line):
    out = run("check", str(SEED), "--solution")
    assert out.exit_code == 0
    rows = out.stdout.splitlines()[1:]
    assert len(rows) == len(line)
    turns = [r for r in rows if r.split()[1] == "turn"]
    assert turns and all("the waste shows " in r for r in turns)
    game = Game(make_deal("solvitaire", SEED), STANDARD_RULES)
    flips = 0
    for move, row in zip(line, rows):
        down = list(game.face_down)
        game.apply(move)
        if move.src >= 0 and game.face_down[move.src] < down[move.src]:
            assert row.endswith(f"turning up {card_name(game.piles[move.src][-1])}"), row
            flips += 1
        elif move.kind == "turn":
            assert row.endswith(f"the waste shows {card_name(game.waste[-1])}"), row
    assert flips == sum(make_deal("solvitaire", SEED).face_down)  # every face-down card turned


def test_boards_draw_the_position_after_each_move(line):
    out = run("check", str(SEED), "--boards")
    assert out.exit_code == 0
    assert out.stdout.count("[..] = face down") == len(line)
    assert out.stdout.count("foundations C: K  H: K  S: K  D: K") == 1   # won at the last move


def test_hint_lists_the_opening_moves_with_verdicts():
    deal = make_deal("solvitaire", SEED)
    legal = {str(m) for m in Game(deal, STANDARD_RULES).legal_moves()}
    out = run("hint", str(SEED), "--json")
    assert out.exit_code == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["move"] for r in rows} == legal
    assert {r["verdict"] for r in rows} == {WINNABLE}
    lengths = [r["moves_to_win"] for r in rows]
    assert lengths == sorted(lengths)
    text = run("hint", str(SEED)).stdout
    assert text.count("keeps the game winnable") == len(legal)


def test_hint_marks_losing_moves(won_and_lost):
    _, lost = won_and_lost
    # Every move from a lost position loses.
    assert {h.verdict for h in hints(lost, STANDARD_RULES, timeout=10)} <= {UNWINNABLE}


def test_a_loss_without_search_names_the_cards_that_never_move():
    result = solve(make_deal("solvitaire", 22), STANDARD_RULES)
    assert (result.verdict, result.nodes) == (UNWINNABLE, 0)
    assert sorted(map(card_name, result.dead_cards)) == ["QC", "QS"]
    out = run("check", "22")
    assert "without search: QC QS can never move" in out.stdout
    assert json.loads(run("check", "22", "--json").stdout)["dead_cards"] == ["QC", "QS"]
    # A loss that needed search names none.
    searched = solve(make_deal("solvitaire", 90), Rules(1), timeout=30)
    assert (searched.verdict, searched.dead_cards) == (UNWINNABLE, ()) and searched.nodes > 0


def test_a_position_in_a_pass_beyond_the_rules_is_refused(won_and_lost):
    middle, _ = won_and_lost
    with pytest.raises(InputError, match="in pass 3, but the rules allow 2"):
        solve(dataclasses.replace(middle, passes_used=3), Rules(3, 2))


def test_an_illegal_line_from_the_core_is_a_bug_report_with_the_deal(monkeypatch):
    """Should the core ever report a line the referee rejects: one error naming the deal and the
    rules (exit code 70 from the CLI), never a traceback or a verdict."""
    from dsolve import _core
    from dsolve.errors import SolverBug

    bogus = (1, [(_core.TABLEAU_FOUNDATION, 0, 0, 0, 0, 51)], 1, 0.0, 1, "", [])
    monkeypatch.setattr(_core, "solve_position", lambda *args, **kwargs: bogus)
    with pytest.raises(SolverBug, match=r"please report it with this deal: \{ \"tableau piles\""):
        solve(make_deal("solvitaire", SEED), STANDARD_RULES)
    out = run("check", str(SEED))
    assert out.exit_code == 70 and out.stdout == ""
    assert out.stderr.startswith("dsolve: internal error: the solver's winning line is wrong")
    assert len(out.stderr.splitlines()) == 1


def test_a_layout_the_core_cannot_hold_is_refused():
    """A pile with more hidden cards than the core's fixed pile size leaves room for is refused
    with one line, not decided."""
    deal = make_deal("solvitaire", 1)
    order = [c for p in deal.tableau for c in p] + list(deal.stock)
    # 21 face-up cards in pile 1, no two of them a run: 20 hidden below a top card.
    pile = sorted(order, key=lambda c: (c % 4, c // 4))[:21]
    rest = [c for c in order if c not in pile]
    tableau = (tuple(pile),) + tuple(tuple(rest[i:i + 1]) for i in range(6))
    wide = dataclasses.replace(deal, tableau=tableau, face_down=(0,) * 7, stock=tuple(rest[6:]))
    with pytest.raises(InputError, match="pile 1 has 20 hidden cards; the native core holds at most 19"):
        solve(wide, STANDARD_RULES)
