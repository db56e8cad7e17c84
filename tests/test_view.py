"""dsolve view: the pages of a winning line, a position's hints, a race record and a Crapette
round record hold one frame per move (and the start), each the position the rules engines give;
the page has no outside references; bad input is one error line; a real browser steps it."""
from __future__ import annotations

import gzip
import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dsolve.cards import RANKS, card_name
from dsolve.crapette import rounds
from dsolve.crapette.game import Round
from dsolve.crapette.rules import Options
from dsolve.klondike.api import hints
from dsolve.klondike.deals import make_deal
from dsolve.klondike.moves import parse_move
from dsolve.klondike.referee import Game
from dsolve.races import referee
from dsolve.rules import choose_rules

from conftest import fails, ok, run

RACES = Path(__file__).parent / "data" / "race-records.jsonl.gz"


class _Frames(HTMLParser):
    """Per frame of a page: its caption, the symbols its cards use by class, its count labels, and
    its outlines of what the last move put down."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict] = []
        self.links: list[str] = []
        self._counting = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        for name in ("href", "src"):
            if a.get(name) and not a[name].startswith("#"):
                self.links.append(a[name])
        if tag == "div" and a.get("class") == "frame":
            self.frames.append({"caption": a["data-caption"], "hidden": "hidden" in a, "uses": {}, "counts": [],
                                "moved": 0})
        elif tag == "rect" and a.get("class") == "moved":
            self.frames[-1]["moved"] += 1
        elif tag == "use" and self.frames:
            self.frames[-1]["uses"].setdefault(a["class"], []).append(a["href"][1:])
        self._counting = tag == "text" and a.get("class") == "count"

    def handle_data(self, data: str) -> None:
        if self._counting:
            self.frames[-1]["counts"].append(int(data))
            self._counting = False


def frames_of(page: Path | str) -> _Frames:
    """The frames of a page file, or of a page's text (a browser's dump)."""
    parser = _Frames()
    parser.feed(page if isinstance(page, str) else page.read_text(encoding="utf-8"))
    return parser


def cards(frame: dict, cls: str) -> list[str]:
    """The cards of class ``cls`` a frame shows, by name (the symbol id less its deck letter)."""
    return [ref[1:] for ref in frame["uses"].get(cls, [])]


def home_total(frame: dict) -> int:
    """Cards on the foundations as the frame draws them: each foundation shows its top card."""
    return sum(RANKS.index(name[:-1]) + 1 for name in cards(frame, "home"))


def test_winning_line_frames_are_the_referees_positions(tmp_path):
    page = tmp_path / "line.html"
    assert ok("view", "2", "--out", str(page)).strip() == f"{page}: 163 frames"
    frames = frames_of(page).frames
    rules = choose_rules()
    game = Game(make_deal("solvitaire", 2), rules)
    assert len(frames) == 163 and frames[0]["caption"] == "the deal: 162 moves to win"
    assert [f["hidden"] for f in frames] == [False] + [True] * 162
    for number, frame in enumerate(frames):
        if number:
            notation = re.fullmatch(rf"{number}\. (.+?): .+", frame["caption"]).group(1)
            game.apply(parse_move(notation))  # the referee plays the move the frame names
        assert frame["moved"] == (1 if number else 0)
        assert len(frame["uses"].get("down", [])) == sum(game.face_down)
        up = [card_name(c) for pile, down in zip(game.piles, game.face_down) for c in pile[down:]]
        assert cards(frame, "up") == up
        assert home_total(frame) == sum(game.foundations.values())
        assert cards(frame, "waste") == [card_name(c) for c in game.waste[-3:]]
        assert len(frame["uses"].get("stock", [])) == (1 if game.stock else 0)
    assert game.won


def test_hints_page_marks_each_legal_move(tmp_path):
    page = tmp_path / "hints.html"
    ok("view", "2", "--hints", "--out", str(page))
    frames = frames_of(page).frames
    rules = choose_rules()
    deal = make_deal("solvitaire", 2)
    found = hints(deal, rules, timeout=10)
    assert len(frames) == len(found) + 1 > 2
    words = {"winnable": "keeps", "unwinnable": "loses", "unknown": "unknown"}
    for k, (frame, h) in enumerate(zip(frames[1:], found), 1):
        assert frame["caption"].startswith(f"hint {k} of {len(found)}: {h.move}: {words[h.verdict]}")
        child = Game(deal, rules)
        child.apply(h.move)
        assert len(frame["uses"].get("down", [])) == sum(child.face_down)
        assert home_total(frame) == sum(child.foundations.values())


def _race_records() -> list[dict]:
    with gzip.open(RACES, "rt") as f:
        return [json.loads(line)["record"] for line in f]


def test_race_frames_are_the_race_referees_positions(tmp_path):
    records = _race_records()
    # The shortest open race (cards go onto the other tableau) and the shortest turn-mode one (passes).
    picks = [min((i for i, r in enumerate(records) if r["rules"].startswith(kind) and r["mode"] == mode),
                 key=lambda i: len(records[i]["moves"])) for kind, mode in (("open", "race"), ("locked", "turns"))]
    for i in picks:
        record = records[i]
        page = tmp_path / f"race{i}.html"
        ok("view", "--race", str(RACES), "--index", str(i + 1), "--out", str(page))
        frames = frames_of(page).frames
        assert len(frames) == len(record["moves"]) + 1
        race = referee._Race(record)  # the independent referee's replay
        for number, frame in enumerate(frames):
            if number:
                text = record["moves"][number - 1]
                assert frame["caption"].startswith(f"{number}. {text}: seat {text[0]} ")
                race.play(text)
            assert frame["moved"] == (0 if number == 0 or text.endswith(" pass") else 1)
            assert len(frame["uses"].get("down", [])) == sum(sum(seat.down) for seat in race.seats)
            assert home_total(frame) == sum(map(len, race.found))
            up = [f"{'ab'[o]}{card_name(c)}" for seat in race.seats for pile, down in zip(seat.piles, seat.down)
                  for o, c in pile[down:]]
            assert frame["uses"].get("up", []) == up
            assert sum(frame["counts"]) == sum(len(s.stock) + len(s.waste) for s in race.seats)


def test_crapette_frames_are_the_engines_positions(tmp_path):
    rnd = rounds.play_round(5, ("greedy", "random"))
    record = rounds.round_record(rnd, ("greedy", "random"))
    (tmp_path / "round.json").write_text(json.dumps(record))
    page = tmp_path / "round.html"
    ok("view", "--crapette", str(tmp_path / "round.json"), "--out", str(page))
    frames = frames_of(page).frames
    assert len(frames) == len(record["moves"]) + 1
    again = Round.deal(5, Options())
    for number, frame in enumerate(frames):
        if number:
            again.play_text(record["moves"][number - 1])
        assert frame["moved"] == (0 if number == 0 or record["moves"][number - 1] == "pass" else 1)
        t = again.table
        assert home_total(frame) == sum(map(len, t.found))
        assert len(frame["uses"].get("down", [])) == sum(1 for seat in (0, 1) if t.down[seat])
        piles = [len(p) for seat in (1, 0) for p in (t.reserve[seat], t.draw[seat], t.waste[seat]) if p]
        assert frame["counts"] == piles
    # A match record: its rounds picked by --index.
    match = rounds.match_record(rounds.play_match(3, ("greedy", "greedy")))
    (tmp_path / "match.json").write_text(json.dumps(match))
    second = match["rounds"][1]
    ok("view", "--crapette", str(tmp_path / "match.json"), "--index", "2", "--out", str(page))
    assert len(frames_of(page).frames) == len(second["moves"]) + 1


def test_page_refers_to_nothing_outside(tmp_path):
    page = tmp_path / "line.html"
    ok("view", "4", "--out", str(page))
    text = page.read_text(encoding="utf-8")
    assert set(re.findall(r"https?://[^\s\"'<>)]*", text)) == {"http://www.w3.org/2000/svg"}
    parsed = frames_of(page)
    assert parsed.links == [] and "<link" not in text and "@import" not in text and "url(" not in text


def test_svg_is_a_standalone_picture_of_the_deal(tmp_path):
    out = tmp_path / "board.svg"
    ok("view", "1", "--svg", str(out))
    root = ET.parse(out).getroot()  # well-formed XML
    ns = {"s": "http://www.w3.org/2000/svg"}
    uses = root.findall(".//s:use", ns)
    deal = make_deal("solvitaire", 1)
    assert sum(u.get("class") == "down" for u in uses) == 21
    assert [u.get("href")[2:] for u in uses if u.get("class") == "up"] == [card_name(p[-1]) for p in deal.tableau]
    ids = {s.get("id") for s in root.findall(".//s:symbol", ns)}
    assert {u.get("href")[1:] for u in uses} <= ids


def test_a_deal_not_won_gets_the_deal_alone(tmp_path):
    page = tmp_path / "lost.html"
    result = run("view", "1", "--out", str(page))
    assert result.exit_code == 0 and "unwinnable; no winning line to show" in result.stdout
    assert [f["caption"] for f in frames_of(page).frames] == ["the deal: unwinnable"]
    result = run("view", "3", "--max-nodes", "50", "--out", str(page))
    assert result.exit_code == 3 and "unknown" in result.stdout
    assert len(frames_of(page).frames) == 1


def test_bad_input_is_one_error_line(tmp_path):
    page = str(tmp_path / "p.html")
    assert "cannot read record file" in fails("view", "--race", str(tmp_path / "missing.json"), "--out", page)
    (tmp_path / "junk.json").write_text("{\"seeds\": [1, 2]}\nnot json\n")
    assert "line 2 is not JSON" in fails("view", "--race", str(tmp_path / "junk.json"), "--out", page)
    (tmp_path / "partial.json").write_text(json.dumps({"seeds": [1, 2]}))
    assert "not a race record" in fails("view", "--race", str(tmp_path / "partial.json"), "--out", page)
    assert "not a Crapette round record" in fails("view", "--crapette", str(tmp_path / "partial.json"), "--out", page)
    record = _race_records()[0]
    record["moves"][3] = "A a1>f5 KSa"
    (tmp_path / "foul.json").write_text(json.dumps(record))
    refused = fails("view", "--race", str(tmp_path / "foul.json"), "--out", page)
    assert "not a race record the referee passes: step 4" in refused
    rnd = rounds.round_record(rounds.play_round(2), ("greedy", "greedy"))
    rnd["moves"][0] = "draw KS"
    (tmp_path / "foul-round.json").write_text(json.dumps(rnd))
    assert "move 1" in fails("view", "--crapette", str(tmp_path / "foul-round.json"), "--out", page)
    assert "no record 5" in fails("view", "--crapette", str(tmp_path / "partial.json"), "--index", "5", "--out", page)
    assert "give one" in fails("view", "2", "--race", str(RACES), "--out", page)
    assert "--out PAGE or --svg FILE" in fails("view", "2")
    assert "cannot write" in fails("view", "2", "--svg", str(tmp_path / "no" / "dir.svg"))
    assert not Path(page).exists()


def _browser() -> str | None:
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.mark.browser
@pytest.mark.skipif(_browser() is None, reason="no chromium, chromium-browser or google-chrome binary to open the page")
def test_a_browser_steps_the_page_with_the_arrow_keys(tmp_path):
    page = tmp_path / "line.html"
    ok("view", "2", "--out", str(page))
    third = frames_of(page).frames[3]["caption"]
    assert third.startswith("3. ")
    browser = [_browser(), "--headless=new", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=3000",
               f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*browser, "--dump-dom", f"{page.as_uri()}#presskeys=3"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    shown = frames_of(dom)
    assert [k for k, f in enumerate(shown.frames) if not f["hidden"]] == [3]
    assert re.search(r'<body[^>]*data-step="3"', dom)
    caption = re.search(r'<p id="caption">(.*?)</p>', dom).group(1)
    assert html.unescape(caption) == third
    shot = tmp_path / "line.png"
    subprocess.run([*browser, f"--screenshot={shot}", "--window-size=1200,800", f"{page.as_uri()}#presskeys=3"],
                   capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000



def test_the_docs_picture_is_what_the_renderer_draws(tmp_path):
    out = tmp_path / "board.svg"
    ok("view", "1", "--svg", str(out))
    docs = Path(__file__).resolve().parents[1] / "docs" / "img" / "board.svg"
    assert docs.read_text(encoding="utf-8") == out.read_text(encoding="utf-8"), \
        "remake it: dsolve view 1 --svg docs/img/board.svg"
