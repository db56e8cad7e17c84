"""Deal files: Solvitaire JSON and dsolve text, round trips and one-line errors."""
import contextlib
import json
import os
import random
import re
import threading
import time

import pytest

from dsolve.cards import STANDARD, DeckShape, card_name, parse_card
from dsolve.klondike.deal import Deal, deal_from_order
from dsolve.klondike.dealfiles import FORMATS, MAX_FILE_BYTES, dump_deal, load_deal, parse_deal
from dsolve.errors import InputError
from dsolve.klondike.brute import random_position
from dsolve.rules import Rules


def shuffled(shape: DeckShape, seed: int) -> Deal:
    order = [c for c in shape.cards() for _ in range(shape.decks)]
    random.Random(seed).shuffle(order)
    return deal_from_order(order, shape)


def cards(text: str) -> list[int]:
    return [parse_card(w) for w in text.split()]


SHAPES = [STANDARD, DeckShape(3, 5, 4), DeckShape(decks=2, columns=9), DeckShape(1, 3, 2)]
# The formats that hold any layout; Klondike-Solver's (ks, pysol) hold standard starting deals
# only and have their own tests in test_ksformat.py.
ANY_LAYOUT = ("json", "text")


def test_formats():
    assert FORMATS == ANY_LAYOUT + ("ks", "pysol")


@pytest.mark.parametrize("fmt", ANY_LAYOUT)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_round_trip(fmt, shape):
    for seed in range(5):
        deal = shuffled(shape, seed)
        assert parse_deal(dump_deal(deal, fmt), fmt) == deal


@pytest.mark.parametrize("fmt", ANY_LAYOUT)
def test_round_trip_keeps_face_down_counts(fmt):
    base = shuffled(STANDARD, 1)
    deal = Deal(base.tableau, base.stock, face_down=(0, 0, 1, 0, 2, 5, 3))
    assert parse_deal(dump_deal(deal, fmt), fmt) == deal


SOLVITAIRE_CARD = re.compile(r"([0-9]|1[0-3]|a|A|j|J|q|Q|k|K)(c|C|d|D|h|H|s|S)")  # its deal schema


def test_json_is_solvitaire_format():
    deal = shuffled(STANDARD, 7)
    doc = json.loads(dump_deal(deal, "json"))
    assert set(doc) == {"tableau piles", "stock"}
    assert all(SOLVITAIRE_CARD.fullmatch(name) for pile in [*doc["tableau piles"], doc["stock"]] for name in pile)
    # Solvitaire turns the stock from the end of the list: reversed relative to Deal.stock.
    assert doc["stock"] == [card_name(c) for c in reversed(deal.stock)]
    for pile, down in zip(doc["tableau piles"], deal.face_down):
        assert [name[-1].islower() for name in pile] == [i < down for i in range(len(pile))]


SMALL_JSON = """{
  "tableau piles": [["3d", "2c", "Ac", "2H"], ["4h", "3h", "2S"], ["4d", "3C"], ["AS"]],
  "stock": ["3S", "4S", "4C", "2D", "AH", "AD"],
  "foundations": [], "waste": []
}"""


def test_reads_solvitaire_deal():
    deal = parse_deal(SMALL_JSON, "json")
    assert deal.shape == DeckShape(4, 4, 4)
    assert deal.tableau[0] == tuple(cards("3D 2C AC 2H"))
    assert deal.face_down == (3, 2, 1, 0)
    assert deal.stock == tuple(cards("AD AH 2D 4C 4S 3S"))


def test_json_upper_case_pile_is_face_up():
    doc = json.loads(SMALL_JSON)
    doc["tableau piles"] = [[name.upper() for name in pile] for pile in doc["tableau piles"]]
    assert parse_deal(json.dumps(doc), "json").face_down == (0, 0, 0, 0)


def test_json_numeric_ranks():
    source = json.dumps({"tableau piles": [["1C"], ["2c", "3C"], ["4c", "5c", "6C"], ["7c", "8c", "9c", "10C"]],
                         "stock": ["13C", "12C", "11C"]})
    deal = parse_deal(source, "json")
    assert deal.shape == DeckShape(1, 13, 4)
    assert deal.tableau[0] == (parse_card("AC"),)
    assert deal.stock == tuple(cards("JC QC KC"))


def test_reads_hand_written_text():
    text = """
    # a tiny deal
    shape: 1x3/2
    pile 1: 2C           # one card, face up
    PILE 2: ac | 3c
    stock:
    """
    deal = parse_deal(text, "text")
    assert deal == Deal(((parse_card("2C"),), tuple(cards("AC 3C"))), (), DeckShape(1, 3, 2), (0, 1))


def test_text_without_marker_is_dealt_face_down():
    deal = parse_deal("pile 1: 2c\npile 2: ac 3c\nstock:", "text")
    assert deal.face_down == (0, 1)
    assert parse_deal("pile 2: | AC 3C\npile 1: 2C\nstock:", "text").face_down == (0, 0)


def json_with(**changes) -> str:
    doc = json.loads(dump_deal(shuffled(STANDARD, 2), "json"))
    doc.update(changes)
    return json.dumps(doc)


def text_lines() -> list[str]:
    return dump_deal(shuffled(STANDARD, 2), "text").splitlines()


STOCK = json.loads(json_with())["stock"]
LINES = text_lines()


BAD_JSON = {
    "syntax": ('{"tableau piles": [["AS"],\n  "stock" []}', "bad JSON: Expecting ',' delimiter at line 2 column 11"),
    "not object": ("[1, 2]", "must be a JSON object"),
    "missing piles": ('{"stock": []}', "missing key 'tableau piles'"),
    "missing stock": ('{"tableau piles": [["AS"]]}', "missing key 'stock'"),
    "unknown key": (json_with(cells=[]), "unknown key 'cells'"),
    "foundations": (json_with(foundations=[["2C"], [], [], []]), "foundation 1 must hold A upward of one suit"),
    "mixed foundation": (json_with(foundations=[["AC", "2H"]]), "foundation 1 must hold A upward of one suit"),
    "foundation twice": (json_with(foundations=[["AC"], ["AC"]]), "two foundations of C"),
    "home and in play": (json_with(foundations=[["AC", "2C"]]), "deal has 54 cards, expected 52"),
    "passes used type": (json_with(**{"passes used": "2"}), "'passes used' must be a whole number"),
    "passes used zero": (json_with(**{"passes used": 0}), "passes used must be at least 1"),
    "waste duplicate": (json_with(waste=STOCK[:1]), "deal has 53 cards, expected 52"),
    "pile type": (json_with(**{"tableau piles": "AS"}), "must be a list of piles"),
    "card type": (json_with(stock=[1, 2]), "stock: expected a list of card strings"),
    "unknown card": (json_with(stock=["ZZ"] + STOCK[1:]), "stock: unknown card 'ZZ'"),
    "unknown suit": (json_with(stock=["1X"]), "unknown card '1X'"),
    "51 cards": (json_with(stock=STOCK[1:]), "deal has 51 cards, expected 52"),
    "53 cards": (json_with(stock=STOCK + ["AS"]), "deal has 53 cards, expected 52"),
    "duplicate": (json_with(stock=STOCK[1:] + STOCK[1:2]), "duplicate card"),
    "face-down on face-up": (json_with(**{"tableau piles": [["9D"], ["4C", "as"]]}),
                             "pile 2: face-down card 'as' lies on a face-up card"),
}


@pytest.mark.parametrize("source, message", BAD_JSON.values(), ids=BAD_JSON.keys())
def test_bad_json(source, message):
    with pytest.raises(InputError) as err:
        parse_deal(source, "json")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


BAD_TEXT = {
    "junk line": (["pile 1: 9D", "hello"], "line 2: expected 'pile N:' or one of stock:, shape:, waste:, "
                                           "foundations:, passes used: got 'hello'"),
    "waste twice": (LINES + ["waste:", "waste:"], f"line {len(LINES) + 2}: waste given twice"),
    "passes used word": (LINES + ["passes used: two"], "passes used must be a whole number"),
    "foundation in play": (LINES + ["foundations: KS"], "deal has 65 cards, expected 52"),
    "two foundations": (LINES + ["foundations: 2C 3C"], "two foundations of C"),
    "pile twice": (LINES + ["pile 3: 9D"], f"line {len(LINES) + 1}: pile 3 given twice"),
    "pile zero": (["pile 0: 9D"], "line 1: piles are numbered from 1"),
    "pile missing": ([ln for ln in LINES if not ln.startswith("pile 4")], "pile 4 missing"),
    "no piles": (["stock: AS"], "no 'pile N:' lines"),
    "no stock": (LINES[:-1], "no 'stock:' line"),
    "stock twice": (LINES + ["stock: AS"], f"line {len(LINES) + 1}: stock given twice"),
    "two markers": (["pile 1: 9D | 8C | 7H"], "line 1: more than one '|'"),
    "unknown card": (["pile 1: 9X"], "line 1: unknown card '9X'"),
    "bad shape": (["shape: big"], "line 1: bad deck shape 'big'"),
    "51 cards": (LINES[:-1] + [LINES[-1].rsplit(" ", 1)[0]], "deal has 51 cards, expected 52"),
    "53 cards": (LINES[:-1] + [LINES[-1] + " AS"], "deal has 53 cards, expected 52"),
    "duplicate": (LINES[:-1] + [LINES[-1].rsplit(" ", 1)[0] + " AS"], "duplicate card AS"),
    "shape disagrees": (["shape: 3x5/4"] + LINES, "deal has 7 piles, expected 4"),
    "all face down": (["pile 1: 9D |"] + LINES[3:], "cannot have 1 face-down cards"),
}


@pytest.mark.parametrize("lines, message", BAD_TEXT.values(), ids=BAD_TEXT.keys())
def test_bad_text(lines, message):
    with pytest.raises(InputError) as err:
        parse_deal("\n".join(lines), "text")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_load_picks_format_and_names_the_file(tmp_path):
    deal = shuffled(STANDARD, 4)
    (tmp_path / "a.json").write_text(dump_deal(deal, "json"))
    (tmp_path / "a.deal").write_text(dump_deal(deal, "json"))
    (tmp_path / "a.txt").write_text(dump_deal(deal, "text"))
    assert load_deal(tmp_path / "a.json") == load_deal(tmp_path / "a.deal") == load_deal(tmp_path / "a.txt") == deal
    (tmp_path / "bad.json").write_text("pile 1: AS")
    with pytest.raises(InputError, match=r"bad\.json: bad JSON"):
        load_deal(tmp_path / "bad.json")


@pytest.mark.parametrize("name, content, message", [
    ("missing.json", None, "No such file or directory"),
    ("binary.deal", b"\xff\xfe\x00", "not a text file"),
])
def test_unreadable_file(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_bytes(content)
    with pytest.raises(InputError, match=f"cannot read deal file .*{name}.*: {message}"):
        load_deal(tmp_path / name)


def test_unknown_format():
    with pytest.raises(InputError, match="unknown deal format 'xml'"):
        dump_deal(shuffled(STANDARD, 0), "xml")


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_positions_in_progress_round_trip(fmt):
    """Games in progress (waste, foundations, passes used, any face-up cards) written and read back
    are the same position."""
    rng = random.Random(f"positions {fmt}")
    kinds = set()
    for number in range(200):
        shape = STANDARD if number % 2 else DeckShape.parse("3x5/4")
        deal = random_position(rng, shape, Rules(rng.choice((1, 3)), 3), rng.randrange(60))
        assert parse_deal(dump_deal(deal, fmt), fmt) == deal
        kinds.update(k for k in ("waste", "foundations") if any(getattr(deal, k)))
        kinds.update(["later pass"] if deal.passes_used > 1 else [])
    assert kinds == {"waste", "foundations", "later pass"}


def test_position_in_the_text_format():
    deal = parse_deal("shape: 1x4/2\npile 1: 3C\npile 2: | 4C\nstock:\nwaste:\nfoundations: 2C\n"
                      "passes used: 2", "text")
    assert (deal.tableau, deal.face_down, deal.foundations, deal.passes_used) == (((8,), (12,)), (0, 0), (2,), 2)
    assert deal.in_progress and not deal.dealt


# --- hostile files: bounded reads, no recursion, one line --------------------------------------

def test_reads_up_to_the_size_cap(tmp_path):
    deal = shuffled(STANDARD, 5)
    text = dump_deal(deal, "text")
    path = tmp_path / "padded.txt"
    path.write_text(text + "#" * (MAX_FILE_BYTES - len(text)))
    assert load_deal(path) == deal
    path.write_text(text + "#" * (MAX_FILE_BYTES - len(text) + 1))
    with pytest.raises(InputError, match="larger than 1 MiB"):
        load_deal(path)


def test_endless_and_huge_files_are_refused(tmp_path):
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as file:
        file.truncate(1 << 34)  # 16 GiB, sparse
    for path in ("/dev/zero", huge):
        started = time.monotonic()
        with pytest.raises(InputError, match=f"cannot read deal file '{path}': larger than 1 MiB"):
            load_deal(path)
        assert time.monotonic() - started < 5


def test_endless_fifo_is_refused(tmp_path):
    fifo = tmp_path / "deal.fifo"
    os.mkfifo(fifo)

    def write_forever() -> None:
        with contextlib.suppress(BrokenPipeError), fifo.open("w") as pipe:
            while True:
                pipe.write("pile 1: AS\n" * 1000)

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    with pytest.raises(InputError, match="larger than 1 MiB"):
        load_deal(fifo)
    writer.join(timeout=10)
    assert not writer.is_alive()


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "bad JSON: nested 100000 deep (a deal file nests 3 deep)"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "bad JSON: nested 100000 deep"),
    ("[" * (1 << 20), "bad JSON: nested 1048576 deep"),
    ('"' + '\\"' * 300_000, "bad JSON: Unterminated string"),  # linear scan of strings
    ('{"stock": ["' + "[" * 1000 + '"], "tableau piles": []}', "stock: unknown card '[[[["),
    ('{"stock": [1' + "0" * 5000 + "]}", "bad JSON: a number too long to read"),
    ('{"stock": ["' + "1" * 5000 + 'C"], "tableau piles": []}', "unknown card '11111"),
])
def test_hostile_json(tmp_path, text, message):
    path = tmp_path / "deal.json"
    path.write_text(text)
    started = time.monotonic()
    with pytest.raises(InputError) as err:
        load_deal(path)
    assert time.monotonic() - started < 5
    assert message in str(err.value) and len(str(err.value)) < 300


@pytest.mark.parametrize("content", [
    bytes(range(256)) * 4,
    b"pile 1: AS\x00\n",
    random.Random(3).randbytes(4096),
])
def test_binary_file(tmp_path, content):
    path = tmp_path / "deal.txt"
    path.write_bytes(content)
    with pytest.raises(InputError, match="not a text file"):
        load_deal(path)


@pytest.mark.parametrize("text", [
    "pile " + "1" * 5000 + ": AS",
    "pile 1: " + "Q" * 100_000,
    "shape: " + "9" * 5000,
    "x" * 100_000,
])
def test_long_junk_text_gets_a_short_line(text):
    with pytest.raises(InputError) as err:
        parse_deal(text, "text")
    assert len(str(err.value)) < 300 and "\n" not in str(err.value)
