"""The dsolve command line: show, convert, rules, and one-line errors with exit code 2."""
import json
from pathlib import Path

import pytest

from dsolve.klondike.dealfiles import dump_deal, load_deal
from dsolve.klondike.deals import make_deal
from dsolve.rules import PRESETS

from conftest import ORACLE as ORACLE_DIR, fails, ok

ORACLE = ORACLE_DIR / "deals-solvitaire.jsonl"


def test_show_draws_the_layout():
    out = ok("show")
    lines = out.splitlines()
    assert lines[0].split() == [str(n) for n in range(1, 8)]
    assert lines[1].split() == ["9D", "[4C]", "[QD]", "[9S]", "[6S]", "[3D]", "[2H]"]
    assert lines[7].split() == ["JD"]
    assert "stock, 24 cards, first turned first: 10S 6C 3H" in out
    assert ok("show", "1", "--deal", "solvitaire") == out


def test_show_json_matches_oracle():
    with ORACLE.open() as lines:
        vector = json.loads(next(lines))
    assert vector["seed"] == 1
    shown = json.loads(ok("show", "--json"))
    assert shown == {"tableau": vector["tableau"], "stock": vector["stock"],
                     "face_down": [0, 1, 2, 3, 4, 5, 6], "exact": vector["exact"]}


def test_show_small_shape_and_file(tmp_path):
    shown = json.loads(ok("show", "3", "--shape", "3x5/4", "--json"))
    assert len(shown["tableau"]) == 4 and len(shown["stock"]) == 5 and "exact" not in shown
    path = tmp_path / "small.txt"
    ok("convert", "3", "--shape", "3x5/4", "--to", "text", "--out", str(path))
    assert json.loads(ok("show", "--file", str(path), "--json")) == shown
    assert ok("show", "--file", str(path)) == ok("show", "3", "--shape", "3x5/4")


@pytest.mark.parametrize("fmt, suffix", [("json", ".json"), ("text", ".txt"), ("ks", ".txt"), ("pysol", ".txt")])
@pytest.mark.parametrize("convention, seed", [("solvitaire", "1"), ("klondike-solver", "7"), ("greenfelt", "3")])
def test_convert_round_trip(tmp_path, fmt, suffix, convention, seed):
    deal = make_deal(convention, seed)
    out = ok("convert", seed, "--deal", convention, "--to", fmt)
    assert out == dump_deal(deal, fmt)
    path = tmp_path / f"deal{suffix}"
    path.write_text(out)
    assert load_deal(path) == deal
    written = tmp_path / f"again{suffix}"
    assert ok("convert", "--file", str(path), "--to", fmt, "--out", str(written)) == ""
    assert written.read_text() == out


def test_convert_json_is_solvitaires_orientation():
    doc = json.loads(ok("convert", "--to", "json"))
    assert doc["tableau piles"][1] == ["4c", "AS"]
    assert doc["stock"][-1] == "10S"  # Solvitaire turns the last card of its stock list first


def test_exact_round_trip():
    index = ok("convert", "5", "--deal", "greenfelt", "--to", "exact").strip()
    assert index.isdigit()
    assert ok("show", index, "--deal", "exact", "--json") == ok("show", "5", "--deal", "greenfelt", "--json")
    assert json.loads(ok("show", "5", "--deal", "greenfelt", "--json"))["exact"] == index


def test_rules_lists_presets_and_options():
    out = ok("rules")
    for p in PRESETS.values():
        assert f"{p.name}" in out and str(p.rules) in out and p.source in out
    for option in ("--preset", "--rules", "--draw", "--passes", "--empty", "--worry/--no-worry"):
        assert option in out


@pytest.mark.parametrize("args, rules", [
    (["--draw", "1", "--passes", "3"], "draw=1,passes=3,empty=king,worry=yes"),
    (["--preset", "casino", "--no-worry"], "draw=3,passes=3,empty=king,worry=no"),
    (["--rules", "draw=1,empty=any", "--passes", "unlimited"], "draw=1,passes=unlimited,empty=any,worry=yes"),
    (["--rules", "double-open-3", "--worry"], "draw=3,passes=unlimited,empty=king,worry=yes"),
])
def test_rules_options_resolve(args, rules):
    assert ok("rules", *args) == rules + "\n"


def bad_files(tmp_path: Path) -> dict[str, Path]:
    doc = json.loads(dump_deal(make_deal("solvitaire", 1), "json"))
    stock = doc["stock"]
    variants = {
        "51": {**doc, "stock": stock[1:]},
        "53": {**doc, "stock": stock + ["AS"]},
        "duplicate": {**doc, "stock": stock[1:] + ["9D"]},
        "unknown": {**doc, "stock": ["XS", *stock[1:]]},
    }
    files = {name: tmp_path / f"{name}.json" for name in variants}
    for name, content in variants.items():
        files[name].write_text(json.dumps(content))
    files["malformed"] = tmp_path / "malformed.json"
    files["malformed"].write_text('{"tableau piles": [["9D"]')
    return files


@pytest.mark.parametrize("name, message", [
    ("malformed", "bad JSON: Expecting ',' delimiter at line 1 column 26"),
    ("51", "deal has 51 cards, expected 52"),
    ("53", "deal has 53 cards, expected 52"),
    ("duplicate", "duplicate card 9D (2 copies)"),
    ("unknown", "stock: unknown card 'XS'"),
])
def test_bad_deal_files(tmp_path, name, message):
    path = bad_files(tmp_path)[name]
    for command in (["show"], ["convert", "--to", "text"]):
        line = fails(*command, "--file", str(path))
        assert message in line and str(path) in line


@pytest.mark.parametrize("args, message", [
    (["show", "--deal", "nosuch"], "unknown seed convention 'nosuch'"),
    (["show", "abc"], "bad seed 'abc'"),
    (["show", "--", "-1"], "bad seed -1"),
    (["show", "-1"], "bad seed -1 for solvitaire: expected 0..4294967295"),
    (["check", "-5", "--draw", "1"], "bad seed -5 for solvitaire"),
    (["convert", "--to", "json", "-5"], "bad seed -5 for solvitaire"),
    (["check", "--max-nodes", "-5"], "--max-nodes must be a positive whole number, got -5"),
    (["check", "-5", "--file", "x.json"], "--file gives the whole deal; drop SEED"),
    (["show", "--shape", "9x9"], "suits must be 1..4"),
    (["show", "--file", "/no/such/deal.json"], "cannot read deal file '/no/such/deal.json': No such file"),
    (["show", "2", "--file", "x.json"], "--file gives the whole deal; drop SEED"),
    (["rules", "--preset", "nosuch"], "unknown preset 'nosuch'"),
    (["rules", "--draw", "0"], "draw must be 1..13, got 0"),
    (["rules", "--empty", "foo"], "empty must be one of king, any, none, got 'foo'"),
    (["rules", "--passes", "-2"], "passes must be a positive integer or 'unlimited', got '-2'"),
    (["rules", "--preset", "casino", "--rules", "draw=1"], "give --preset or --rules, not both"),
    (["rules", "--rules", "draw=1,colour=red"], "bad rules item 'colour=red'"),
    (["convert", "--to", "exact", "--shape", "3x5/4"], "exact indices number standard 4x13/7 deals"),
    (["convert", "--to", "xml"], "Invalid value for '--to'"),
    (["convert", "--to", "ks", "--shape", "3x5/4"], "Klondike-Solver plays the standard 4x13/7 game only"),
    (["convert", "--to", "pysol", "--shape", "3x5/4"], "Klondike-Solver plays the standard 4x13/7 game only"),
    (["convert"], "Missing option '--to'"),
    (["convert", "--to", "json", "--out", "/no/such/dir/deal.json"], "cannot write '/no/such/dir/deal.json'"),
    (["nosuch"], "No such command 'nosuch'"),
    (["--bogus"], "No such option '--bogus'"),
])
def test_bad_input_is_one_line(args, message):
    assert message in fails(*args)


def test_help_and_version():
    assert "show" in ok("--help") and "convert" in ok("--help")
    assert "--deal CONVENTION" in ok("show", "--help")
    assert "--worry / --no-worry" in ok("rules", "--help")
    assert "dsolve" in ok("--version")
