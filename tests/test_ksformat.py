"""Klondike-Solver's deck strings and PySol boards: read as Klondike-Solver deals them (checked
against boards the program itself printed), written back, refused with one line when malformed,
and the verdicts its TestDeals.txt and issues state, decided by dsolve."""
import json
from pathlib import Path

import pytest

from dsolve.klondike.api import solve
from dsolve.cards import STANDARD, DeckShape, parse_card
from dsolve.klondike.deal import Deal
from dsolve.klondike.dealfiles import detect_format, dump_deal, load_deal, parse_deal
from dsolve.klondike.deals import CONVENTIONS, klondike_solver, make_deal
from dsolve.errors import InputError
from dsolve.klondike.result import UNWINNABLE, WINNABLE
from dsolve.rules import preset

from conftest import fails, ok, run

DATA = Path(__file__).parent / "data"
KS_FORMATS = ("ks", "pysol")


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(word) for word in text.split())


# --- reading as Klondike-Solver deals -------------------------------------------------------------

def test_deck_string_codes_and_dealing_order():
    # Suits 1 clubs, 2 diamonds, 3 hearts, 4 spades; ranks 01..13: the pack suit by suit.
    codes = [f"{rank:02d}{suit}" for suit in range(1, 5) for rank in range(1, 14)]
    deal = parse_deal("".join(codes), "ks")
    # Row by row: row r gives pile r its face-up card, piles r+1..7 a face-down card each.
    assert deal.tableau[0] == cards("AC")
    assert deal.tableau[1] == cards("2C 8C")
    assert deal.tableau[2] == cards("3C 9C AD")
    assert deal.tableau[6] == cards("7C KC 5D 9D QD AH 2H")
    assert deal.face_down == (0, 1, 2, 3, 4, 5, 6)
    # The other 24 cards are the stock, the 29th card of the string turned first.
    assert deal.stock == cards("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")


def printed_boards() -> list[tuple[str, str]]:
    """(what Klondike-Solver was given, the board it printed) from ks-printed-boards.txt."""
    pairs = []
    for block in DATA.joinpath("ks-printed-boards.txt").read_text().split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if lines:
            pairs.append((lines[0], "\n".join(lines[1:])))
    return pairs


BOARDS = printed_boards()


def test_printed_boards_cover_games_decks_and_files():
    kinds = [label.split()[0] for label, _ in BOARDS]
    assert kinds.count("game") >= 5 and kinds.count("deck") >= 8 and kinds.count("file") == 2


@pytest.mark.parametrize("label, board", BOARDS, ids=[label[:24] for label, _ in BOARDS])
def test_reads_what_klondike_solver_deals(label, board):
    """The board Klondike-Solver printed for a game number, a deck string or a board file is the
    deal dsolve reads from the same input."""
    printed = parse_deal(board, "pysol")
    kind, given = label.split(" ", 1)
    if kind == "game":
        assert printed == klondike_solver(int(given))
    elif kind == "deck":
        assert printed == parse_deal(given, "ks")
    else:
        assert printed == load_deal(DATA / given)


# --- writing ---------------------------------------------------------------------------------

SEEDS = {"solvitaire": [1, 2, 90, 2**32 - 1], "klondike-solver": [0, 1, 37547, 2**31 - 1],
         "greenfelt": [1, 5, 2**31 - 2], "pysol": [1, 31999, 32000, 10**12], "exact": [0, 10**60],
         "microsoft": [0, 10**60]}


@pytest.mark.parametrize("fmt", KS_FORMATS)
@pytest.mark.parametrize("convention", CONVENTIONS)
def test_round_trip(fmt, convention):
    for seed in [*SEEDS[convention], *range(3, 23)]:
        deal = make_deal(convention, seed)
        assert parse_deal(dump_deal(deal, fmt), fmt) == deal


def test_deck_string_of_a_game_reads_back_as_the_game():
    for game in (0, 7, 6330, 37547, 2**31 - 1):
        deck = dump_deal(klondike_solver(game), "ks")
        assert len(deck) == 157 and deck.endswith("\n") and deck[:-1].isdigit()
        assert parse_deal(deck, "ks") == klondike_solver(game) == parse_deal(f"Game: {game}", "ks")


def board_lines(name: str) -> list[str]:
    return [line for line in DATA.joinpath(name).read_text().splitlines() if not line.startswith("#")]


def test_board_is_written_as_klondike_solver_reads_it():
    """TestDeals.txt's talon line, then its rows after ': ' (so that Klondike-Solver, which wants
    211 characters, reads the board with LF line endings too: ks-printed-boards.txt shows it)."""
    testdeals = board_lines("ks-testdeals-pysol.txt")
    written = dump_deal(load_deal(DATA / "ks-testdeals-pysol.txt"), "pysol").splitlines()
    assert written == testdeals[:1] + [": " + row for row in testdeals[1:]]
    assert dump_deal(make_deal("solvitaire", 1), "pysol").splitlines() == board_lines("ks-written-board.txt")
    assert len(dump_deal(make_deal("solvitaire", 1), "pysol")) >= 211


@pytest.mark.parametrize("fmt", KS_FORMATS)
@pytest.mark.parametrize("deal, message", [
    (make_deal("solvitaire", 3, DeckShape(3, 5, 4)), "Klondike-Solver plays the standard 4x13/7 game only"),
    (Deal(klondike_solver(1).tableau, klondike_solver(1).stock, STANDARD, (0,) * 7),
     "starting layouts only: pile 2 has 2 cards with 0 face down"),
])
def test_write_refuses_what_klondike_solver_cannot_read(fmt, deal, message):
    with pytest.raises(InputError, match=message):
        dump_deal(deal, fmt)


# --- telling the formats apart ------------------------------------------------------------------

DECK = dump_deal(klondike_solver(5), "ks")
BOARD = dump_deal(klondike_solver(5), "pysol")


@pytest.mark.parametrize("text, fmt", [
    (DECK, "ks"),
    ("# a comment\n\n  " + DECK, "ks"),
    (" ".join(DECK[i:i + 3] for i in range(0, 156, 3)), "ks"),
    ("Game: 5\n", "ks"),
    (BOARD, "pysol"),
    ("Foundations: H-0 C-0 D-0 S-0\n" + BOARD, "pysol"),
    (dump_deal(klondike_solver(5), "text"), "text"),
    (dump_deal(klondike_solver(5), "json"), "json"),
    ("# shape: 1x3/2\n" + dump_deal(klondike_solver(5), "text"), "text"),
])
def test_detect_format(tmp_path, text, fmt):
    """By content: the same deal is read from a file of any name in any format."""
    assert detect_format(text) == fmt
    path = tmp_path / "deal.txt"
    path.write_text(text)
    assert load_deal(path) == klondike_solver(5)


def test_board_forms():
    """Rows with or without ':', the talon plain or as Klondike-Solver prints it, T or 10."""
    talon, rows = BOARD.splitlines()[0], [row.removeprefix(": ") for row in BOARD.splitlines()[1:]]
    testdeals = "\n".join([talon, *rows])
    printed = "\n".join(["Foundations: H-0 C-0 D-0 S-0", f"Talon: ==> {talon[7:]} <==", *(": " + r for r in rows)])
    tens = testdeals.replace("T", "10").replace("10alon", "Talon")
    for text in (testdeals, printed, tens, "\r\n".join(BOARD.splitlines())):
        assert parse_deal(text, "pysol") == klondike_solver(5)


# --- one line for every malformed input -------------------------------------------------------

def deck_with(index: int, code: str) -> str:
    return DECK[:3 * index] + code + DECK[3 * index + 3:]


BOARD_LINES = BOARD.splitlines()


def board_with(line: int, text: str) -> str:
    return "\n".join(BOARD_LINES[:line] + [text] + BOARD_LINES[line + 1:])


BAD = {
    "155 digits": ("ks", DECK[:155], "line 1: the deck string has 155 digits, expected 156"),
    "159 digits": ("ks", DECK.strip() + "014", "the deck string has 159 digits, expected 156"),
    "suit digit 5": ("ks", deck_with(3, "015"), "line 1: card 4 (015): suit digit 5 is not 1..4 (1 clubs"),
    "suit digit 0": ("ks", deck_with(0, "010"), "card 1 (010): suit digit 0 is not 1..4"),
    "rank 14": ("ks", deck_with(51, "141"), "card 52 (141): rank 14 is not 01..13"),
    "rank 00": ("ks", deck_with(9, "002"), "card 10 (002): rank 00 is not 01..13"),
    "duplicate": ("ks", deck_with(40, DECK[0:3]), f"card 41 ({DECK[0:3]}): "),
    "two deals": ("ks", DECK + "# and\n" + DECK,
                  f"line 3: more after the deal ({DECK[:40]!r}... (156 characters)); dsolve reads one deal a file"),
    "no deal": ("ks", "# nothing\n\n", "no deal: the file has only blank lines and comments"),
    "not a deck": ("ks", BOARD, "line 1: expected a Klondike-Solver deck string (156 digits) or 'Game: N'"),
    "bad game": ("ks", "Game: 12x", "line 1: bad seed '12x'"),
    "negative game": ("ks", "Game: -1", "line 1: bad seed -1 for klondike-solver"),
    "bad card": ("pysol", board_with(3, "<2D> <9S> 1Z"), "line 4: bad card '1Z' in a PySol board"),
    "bad face-down card": ("pysol", board_with(3, "<2D> <9X> AC"), "line 4: bad card '9X'"),
    "open bracket": ("pysol", board_with(3, "<2D <9S> AC"), "line 4: bad card '<2D'"),
    "face-down on face-up": ("pysol", board_with(3, "<2D> AC <9S>"),
                             "line 4: face-down card <9S> lies on a face-up card"),
    "bad talon card": ("pysol", board_with(0, "Talon: XX" + BOARD_LINES[0][9:]), "line 1: bad card 'XX'"),
    "six rows": ("pysol", "\n".join(BOARD_LINES[:7]), "line 1: the PySol board has 6 tableau rows, expected 7"),
    "51 cards": ("pysol", board_with(0, BOARD_LINES[0][:-3]), "deal has 51 cards, expected 52"),
    "duplicate card": ("pysol", board_with(0, BOARD_LINES[0][:-2] + BOARD_LINES[1][2:]), "duplicate card"),
    "no talon": ("pysol", "Foundations: H-0 C-0 D-0 S-0\n" + "\n".join(BOARD_LINES[1:] + BOARD_LINES[1:2]),
                 "line 2: expected 'Talon: ...' after the foundations"),
    "bad foundation": ("pysol", "Foundations: H-0 C-0 D-X S-0\n" + BOARD, "line 1: bad foundation 'D-X'"),
    "foundation twice": ("pysol", "Foundations: H-0 H-0\n" + BOARD, "line 1: foundation H given twice"),
    "on foundations": ("pysol", "Foundations: H-0 C-2 D-0 S-T\n" + BOARD,
                       "deal has 64 cards, expected 52"),   # C A-2 and S A-10 home, and in play
    "in the waste": ("pysol", board_with(0, "Talon: 9D 8S ==> " + BOARD_LINES[0][7:] + " <=="),
                     "deal has 54 cards, expected 52"),
    "not a board": ("pysol", DECK, "line 1: expected a PySol board ('Talon: ...')"),
    "board then deck": ("pysol", BOARD + DECK, "line 9: more after the deal"),
}


@pytest.mark.parametrize("fmt, text, message", BAD.values(), ids=BAD.keys())
def test_malformed_input_is_one_line(fmt, text, message):
    with pytest.raises(InputError) as err:
        parse_deal(text, fmt)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_game_in_progress_printed_by_klondike_solver_is_a_position():
    """A board Klondike-Solver printed with the ace of hearts home is read as a game in progress
    and decided."""
    deal = load_deal(DATA / "ks-in-progress.txt")
    assert deal.in_progress and deal.foundations == (0, 1, 0, 0)
    assert solve(deal, preset("standard"), timeout=30).decided


@pytest.mark.parametrize("name", ["155 digits", "suit digit 5", "duplicate", "bad card",
                                  "face-down on face-up", "six rows", "on foundations"])
def test_cli_malformed_file(tmp_path, name):
    _, text, message = BAD[name]
    path = tmp_path / "deal.txt"
    path.write_text(text)
    for command in (["check"], ["show"], ["convert", "--to", "json"]):
        line = fails(*command, "--file", str(path))
        assert f"{path}: " in line and message in line


# --- Klondike-Solver's examples and their verdicts --------------------------------------------

DRAW_1, DRAW_3 = preset("standard-1"), preset("standard")  # Klondike-Solver: unlimited passes,
# kings to spaces, cards back from the foundations; /DC 1 and /DC 3.

# File, then what Klondike-Solver (or the issue's author) states per draw count.
STATED = [
    ("ks-testdeals-deck.txt", {DRAW_1: WINNABLE, DRAW_3: WINNABLE}),  # 125 and 109 moves
    ("ks-testdeals-game-37547.txt", {DRAW_1: WINNABLE, DRAW_3: WINNABLE}),  # 130 and 123 moves
    ("ks-testdeals-game-6330.txt", {DRAW_1: WINNABLE}),  # 191 moves
    ("ks-testdeals-impossible.txt", {DRAW_1: UNWINNABLE, DRAW_3: UNWINNABLE}),
    ("ks-testdeals-pysol.txt", {DRAW_1: WINNABLE, DRAW_3: WINNABLE}),  # 136 and 121 moves
    ("ks-issue11-draw3.txt", {DRAW_3: WINNABLE}),  # Klondike-Solver: 119 moves
    # Klondike-Solver answers "Impossible" (it worries a card back only to another pile); the
    # issue shows the win, which dsolve finds.
    ("ks-issue10-worry-back.txt", {DRAW_1: WINNABLE}),
]


@pytest.mark.parametrize("name, verdicts", STATED, ids=[name for name, _ in STATED])
def test_stated_verdicts(name, verdicts):
    deal = load_deal(DATA / name)
    for rules, verdict in verdicts.items():
        assert solve(deal, rules, timeout=60).verdict == verdict, rules


def test_testdeals_games_are_klondike_solver_games():
    assert load_deal(DATA / "ks-testdeals-game-37547.txt") == klondike_solver(37547)
    assert load_deal(DATA / "ks-testdeals-game-6330.txt") == klondike_solver(6330)


def test_grandmaster_deal_of_issue_14():
    """Klondike-Solver did not solve it in two hours; dsolve decides it at draw 1 in well under
    a second (38,887 positions)."""
    path = str(DATA / "ks-issue14-grandmaster.txt")
    result = run("check", "--file", path, "--draw", "1")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"{path}: winnable in ")


# --- Solvitaire's deal presets ----------------------------------------------------------------

@pytest.mark.parametrize("name, game", [("klondikeSM1.json", 1), ("klondikeSM2.json", 2)])
def test_solvitaire_presets_load(name, game):
    """Solvitaire's klondikeSM1/2.json are Klondike-Solver's games 1 and 2 with every tableau card
    face up (their verdicts are another test's business)."""
    deal = load_deal(DATA / name)
    assert deal == Deal(klondike_solver(game).tableau, klondike_solver(game).stock, STANDARD, (0,) * 7)
    assert json.loads(ok("show", "--file", str(DATA / name), "--json"))["face_down"] == [0] * 7
