"""The notebooks run end to end. Winnability: as on a fresh clone (the repository's 10^6-seed survey
and quick surveys it builds itself), and on the survey directories ``DSOLVE_SURVEY_DIR`` names.
Crapette: on the repository's Crapette surveys, and on those ``DSOLVE_CRAPETTE_SURVEYS`` names.
Double Klondike: on the repository's two-deck survey, and on the one ``DSOLVE_SURVEY_DIR`` names.
Double solitaire: on the race surveys ``DSOLVE_RACE_SURVEYS`` names.
Race tables: on the repository's grades (``data/picks``), and on those ``DSOLVE_GRADE_SURVEYS`` names."""
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import conftest

import dsolve
from dsolve.klondike import api
from dsolve.crapette.rows import options_of, summarize_survey, survey
from dsolve.crapette.rules import Options
from dsolve.players.grade import DIFFICULTIES, grading_options
from dsolve.players.hidden import HiddenOptions
from dsolve.races.race import RaceSetup
from dsolve.races.table import RaceRules
from dsolve.races.rows import open_races, survey as race_survey
from dsolve.races.stats import format_summary, summarize as summarize_races
from dsolve.players.grade_stats import class_moves, grade_lines, grades_of, summarize_grades
from dsolve.rules import Rules, preset
from dsolve.survey import load, open_survey, run_survey
from dsolve.survey.stats import summarize

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "winnability.ipynb"
CRAPETTE_NOTEBOOK = NOTEBOOK.with_name("crapette.ipynb")
RACE_NOTEBOOK = NOTEBOOK.with_name("race-tables.ipynb")
DOUBLE_NOTEBOOK = NOTEBOOK.with_name("double-klondike.ipynb")
RACES_NOTEBOOK = NOTEBOOK.with_name("double-solitaire.ipynb")
REPOSITORY_SURVEYS = Path(__file__).parent.parent / "data" / "surveys"
REPOSITORY_GRADES = REPOSITORY_SURVEYS.parent / "picks"


def execute(monkeypatch, notebook_path: Path = NOTEBOOK) -> tuple[str, list]:
    """Run the notebook from its folder with this dsolve; its printed text and its figures."""
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel shows figures inline
    package_root = str(Path(dsolve.__file__).parent.parent)  # the kernel imports this dsolve
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(notebook_path, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook_path.parent)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    return text, [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]


def test_notebook_runs_as_on_a_fresh_clone(tmp_path, monkeypatch):
    monkeypatch.delenv("DSOLVE_SURVEY_DIR", raising=False)
    monkeypatch.setenv("DSOLVE_QUICK_SURVEYS", str(tmp_path))
    begin = time.monotonic()
    text, figures = execute(monkeypatch)
    seconds = time.monotonic() - begin
    assert seconds < 180  # about a minute on two idle cores
    assert ("../data/surveys/standard-1e6: solvitaire deals: 1000000 of 1000000 seeds (1-1000000) solved; "
            in text and "; 1000000 solves\n" in text)
    assert f"{tmp_path}/survey-quick-draw: solvitaire deals: 100 of 100 seeds (1-100) solved; limits " \
           "max_nodes=100000, timeout=none, memory_mb=none; dsolve" in text and "; 700 solves\n" in text
    assert "; 1000 solves\n" in text and "17 rule sets" in text
    draw_rows = re.findall(r"^ +(\d) +(\d+) +\S+% \[.*\] +\d+ +[\d.]+ +[-+][\d.]+ +(yes|no)$", text, re.M)
    assert [(d, n) for d, n, _ in draw_rows] == [(str(d), "1000000" if d == 3 else "100") for d in range(1, 8)]
    assert draw_rows[2][2] == "yes"  # 81.93 % on 10^6 seeds, Blake & Gent's 81.945 % in range
    assert re.search(r"^ +3 +unlimited +1000000 +81\.93% \[81\.86, 82\.01\] +0$", text, re.M)
    for draw, passes in [(1, p) for p in range(1, 6)] + [(3, p) for p in range(1, 6)] + [(1, "unlimited")]:
        assert re.search(rf"^ +{draw} +{passes} +100 +\S+% \[", text, re.M)
    assert len(figures) == 2
    assert (tmp_path / "survey-quick-passes" / "_manifest.json").exists()


def test_notebook_runs_on_the_surveys_it_is_given(tmp_path, monkeypatch):
    monkeypatch.setattr(api, "solve", conftest.fake_solve)
    draw = [Rules(draw=d, passes=None) for d in range(1, 8)]
    passes = [Rules(draw=d, passes=p) for d in (1, 3) for p in (1, 2, 3)]
    run_survey(tmp_path / "draw", range(1, 31), draw, jobs=2)
    run_survey(tmp_path / "passes", range(1, 11), draw + passes, jobs=2)  # its draw rows lose: fewer seeds
    monkeypatch.setenv("DSOLVE_SURVEY_DIR", os.pathsep.join(str(tmp_path / name) for name in ("draw", "passes")))
    monkeypatch.setenv("DSOLVE_QUICK_SURVEYS", str(tmp_path / "quick"))
    text, figures = execute(monkeypatch)
    assert "; 210 solves\n" in text and "; 130 solves\n" in text and "13 rule sets" in text
    assert "B&G in range" in text and "   7      30" in text
    assert "   3  unlimited      30" in text and "   1          2      10" in text
    assert len(figures) == 2
    assert not (tmp_path / "quick").exists()  # nothing built when surveys are given


def crapette_stats(directory: Path) -> dict:
    """``dsolve crapette stats DIRECTORY --json``, run as a user runs it."""
    package_root = str(Path(dsolve.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "dsolve", "crapette", "stats", str(directory), "--json"],
                          capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def waste_rows(text: str, directories: list[Path]) -> set[tuple[str, str]]:
    """The (player, waste reading) rows of the notebook's waste-rule table: each equals the stats
    of its survey among ``directories`` (greedy or planner against itself, other options default)."""
    shown = set()
    for directory in directories:
        stats = crapette_stats(directory)
        settings, options = stats["survey"]["settings"], options_of(stats["survey"]["params"])
        player = settings[0].split(",")[0]
        if player not in ("greedy", "planner") or settings != [f"{player},{player}"] \
                or replace(options, waste_playable=True) != Options():
            continue
        reading = "yes" if options.waste_playable else "no"
        total = sum(b - a + 1 for a, b in stats["survey"]["seeds"])
        first, stalemates = (f"{100 * s['share']:.2f} % \\[{100 * s['low']:.2f}, {100 * s['high']:.2f}\\]"
                             for s in (stats["first_player_wins"], stats["stalemates"]))
        assert re.search(rf"^{player} +{reading} +{stats['rounds']} of {total} +{first} +{stalemates}$", text, re.M), \
            directory
        shown.add((player, reading))
    return shown


def test_crapette_notebook_runs_on_the_repository_surveys(monkeypatch):
    monkeypatch.delenv("DSOLVE_CRAPETTE_SURVEYS", raising=False)
    text, figures = execute(monkeypatch, CRAPETTE_NOTEBOOK)
    directories = sorted(REPOSITORY_SURVEYS.glob("crapette-*"))
    assert len(directories) >= 3
    for directory in directories:
        assert f"../data/surveys/{directory.name}: crapette deals: " in text
    assert re.search(r"^greedy,greedy \(waste no\) +10000 +57\.59 % \[56\.62, 58\.56\] +0\.00 % \[0\.00, 0\.04\]",
                     text, re.M)  # surveyed before the waste option: read as waste_playable=no
    assert "greedy vs random (waste no; seats swapped, 20000 rounds): greedy wins  81.22 % [80.67, 81.76]" in text
    assert waste_rows(text, directories) == {(p, r) for p in ("greedy", "planner") for r in ("no", "yes")}
    assert len(figures) == 4


def test_crapette_notebook_runs_on_the_surveys_it_is_given(tmp_path, monkeypatch):
    survey(tmp_path / "mixed", range(1, 31), "greedy,random", jobs=1)
    survey(tmp_path / "random", range(1, 21), "random", jobs=1)
    survey(tmp_path / "greedy-yes", range(1, 11), "greedy", jobs=1)  # the default: waste_playable=yes
    survey(tmp_path / "greedy-no", range(1, 13), "greedy", Options(waste_playable=False), jobs=1)
    survey(tmp_path / "greedy-suit", range(1, 6), "greedy", Options(load_match="suit"), jobs=1)
    names = ("mixed", "random", "greedy-yes", "greedy-no", "greedy-suit")
    monkeypatch.setenv("DSOLVE_CRAPETTE_SURVEYS", os.pathsep.join(str(tmp_path / n) for n in names))
    text, figures = execute(monkeypatch, CRAPETTE_NOTEBOOK)
    assert f"{tmp_path}/mixed: crapette deals: 30 of 30 seeds (1-30) played; dsolve " in text
    first = summarize_survey(tmp_path / "mixed")[1]["first_player_wins"]
    assert re.search(rf"^greedy,random / random,greedy \(waste yes\) +60 +{100 * first['share']:.2f} % ", text, re.M)
    assert re.search(r"^random,random \(waste yes\) +20 ", text, re.M)
    # three settings of greedy against itself, none merged with another
    for rules, rounds in (("waste yes", 10), ("waste no", 12), ("waste yes, load_match=suit", 5)):
        assert re.search(rf"^greedy,greedy \({rules}\) +{rounds} ", text, re.M)
    assert "greedy vs random (waste yes; seats swapped, 60 rounds): greedy wins " in text
    assert waste_rows(text, [tmp_path / n for n in names]) == {("greedy", "no"), ("greedy", "yes")}
    assert re.search(r"^planner +no +no survey$", text, re.M)
    assert len(figures) == 4


def race_lines(text: str, directory: Path, shown: str) -> None:
    """The notebook's summary lines of each rule set graded in ``directory`` (named ``shown``)
    are those of summarize_grades."""
    for rules, rows in grades_of(directory).items():
        s = summarize_grades(rows)
        h, w = s["hidden"]["all_deals"], s["winnable"]
        assert f"{shown}: {rules}: {len(rows)} deals graded" in text
        assert (f"{rules}: {s['deals']} deals, {s['verdicts']['winnable']} winnable, "
                f"{s['verdicts']['unwinnable']} unwinnable, {s['verdicts']['unknown']} unknown; winnable {100 * w['share']:5.1f} % "
                f"[{100 * w['low']:.1f}, {100 * w['high']:.1f}]") in text
        assert "\n".join(grade_lines(s)) in text
        assert f"  hidden    wins {100 * h['mean']:.1f} % [{100 * h['low']:.1f}, {100 * h['high']:.1f}] of all deals" in text


def test_race_notebook_runs_on_the_repository_grades(monkeypatch):
    monkeypatch.delenv("DSOLVE_GRADE_SURVEYS", raising=False)
    text, figures = execute(monkeypatch, RACE_NOTEBOOK)
    directories = sorted(REPOSITORY_GRADES.glob("*.grades"))
    assert directories
    for directory in directories:
        race_lines(text, directory, f"../data/picks/{directory.name}")
    fast, default = REPOSITORY_GRADES / "standard-1e4.parquet.grades", REPOSITORY_GRADES / "standard-1e4-default.parquet.grades"
    rules = str(preset("standard"))
    moved = class_moves(grades_of(fast)[rules], grades_of(default)[rules])
    assert (f"{rules}: {moved['deals']} deals graded by {fast.name} and by {default.name}\n" in text
            and f"\n  {'lottery':<11}" + "".join(f"{moved['moves']['lottery'][b]:>11}" for b in DIFFICULTIES) in text)
    strengths: dict[str, set[int]] = {}  # rule set -> positions a decision of the players that graded it
    for directory in directories:
        params = dict(open_survey(directory).manifest.params)
        for graded in grades_of(directory):
            strengths.setdefault(graded, set()).add(params["samples"] * params["sample_nodes"])
    twice = sum(len(s) - 1 for s in strengths.values())
    assert twice >= 2 and f"\n{twice} rule set(s) graded twice\n" in text
    assert len(figures) == 2


def test_race_notebook_runs_on_the_grades_it_is_given(tmp_path, monkeypatch):
    rules = [preset("race"), preset("standard")]
    run_survey(tmp_path / "g", range(1, 5), rules, jobs=1, job="grade",
               params=grading_options(plays=2, samples=2, max_nodes=300))
    monkeypatch.setenv("DSOLVE_GRADE_SURVEYS", str(tmp_path / "g"))
    text, figures = execute(monkeypatch, RACE_NOTEBOOK)
    race_lines(text, tmp_path / "g", str(tmp_path / "g"))
    assert "(the published band is for draw 3)" in text and re.search(r"published 35-45 % band\)", text)
    assert "0 rule set(s) graded twice" in text
    assert len(figures) == 2


def double_lines(text: str, directory: Path) -> None:
    """The notebook's table rows are the survey's summaries, one per rule set."""
    manifest, table = load(directory)
    for s in summarize(table, manifest.settings):
        r = Rules.parse(s.rules)
        assert re.search(rf"^ +{r.draw} +{r.empty_rule} +{r.foundations} +{s.n} +{re.escape(str(s.win))} +"
                         rf"{s.unwinnable} +{s.unknown} ", text, re.M), s.rules


def test_double_klondike_notebook_runs_on_the_survey_it_is_given(tmp_path, monkeypatch):
    monkeypatch.setattr(api, "solve", conftest.fake_solve)
    rules = [Rules(draw=d, passes=None, empty_rule=e, decks=2, foundations=f)
             for d in (1, 3) for e in ("king", "any") for f in (4, 8)]
    run_survey(tmp_path / "dk", range(1, 21), rules, jobs=1)
    monkeypatch.setenv("DSOLVE_SURVEY_DIR", str(tmp_path / "dk"))
    text, figures = execute(monkeypatch, DOUBLE_NOTEBOOK)
    assert f"{tmp_path / 'dk'}: solvitaire deals: 20 of 20 seeds (1-20) solved" in text
    double_lines(text, tmp_path / "dk")
    assert len(figures) == 1


def test_double_solitaire_notebook_runs_on_the_race_surveys_it_is_given(tmp_path, monkeypatch):
    careless = ("careless", "careless")
    for name, variant, draw in (("locked3", "locked", 3), ("open1", "open", 1), ("locked1", "locked", 1)):
        race_survey(tmp_path / name, range(1, 4), RaceSetup(RaceRules(variant, draw), players=careless), 2, jobs=1)
    race_survey(tmp_path / "picked", range(1, 3), RaceSetup(RaceRules("locked", 3), players=careless), 2,
                listed=[(5, 9), (8, 3)], jobs=1)
    race_survey(tmp_path / "picked60", range(1, 2), RaceSetup(RaceRules("locked", 3), players=careless), 2,
                listed=[(5, 9)], jobs=1)  # pairs picked with another race check: the same setting
    race_survey(tmp_path / "hidden", range(1, 4), RaceSetup(RaceRules("locked", 3), players=("hidden", "hidden"),
                                                             hidden=HiddenOptions(samples=2, max_nodes=200)), 2, jobs=1)
    # the setting of a repository survey made before the progress check, raced to the rules' ends
    race_survey(tmp_path / "locked3-20", range(1, 3), RaceSetup(RaceRules("locked", 3), players=careless), 20, jobs=1)
    names = ("locked3", "open1", "locked1", "picked", "picked60", "hidden", "locked3-20")
    before = REPOSITORY_SURVEYS / "race-locked3-careless"
    monkeypatch.setenv("DSOLVE_RACE_SURVEYS", os.pathsep.join([*(str(tmp_path / n) for n in names), str(before)]))
    text, figures = execute(monkeypatch, RACES_NOTEBOOK)
    for directory in [*(tmp_path / n for n in names), before]:
        assert format_summary(summarize_races(open_races(directory).rows.to_pylist())) in text
    setting = "locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=20"
    assert f"{setting} (random pairs; ended at a repeated table): uneven " in text
    assert f"{setting}: 2 pairs raced both ways\n  {'ended at a repeated table':<26}  2000 pairs: |imbalance| " in text
    after = "by the rules' ends"
    assert f"\n  {after:<26}     2 pairs: |imbalance| " in text
    assert "1 setting(s) raced both ways" in text
    assert "plays=2 (picked pairs: picked): uneven " in text and "plays=2 (random pairs): uneven " in text
    assert "draw=1,passes=unlimited,win=first mode=race players=careless,careless plays=2:\n  open   |imbalance| " in text
    assert "1 open survey(s) compared" in text
    assert ("locked,draw=3,passes=unlimited,win=first mode=race players=careless,careless plays=2:\n"
            f"  {'random pairs':<40}     3 pairs: |imbalance| ") in text
    assert f"\n  {'picked pairs: picked':<40}     2 pairs: |imbalance| " in text
    assert f"\n  {'picked pairs: picked60':<40}     1 pairs: |imbalance| " in text
    assert "2 survey(s) of picked pairs" in text
    assert ("locked,draw=3,passes=unlimited,win=first mode=race plays=2: 3 pairs raced by both\n  hidden       3 pairs: "
            "|imbalance| ") in text and "\n  careless     3 pairs: |imbalance| " in text
    assert "\n  a pair's imbalance under the two players: correlation " in text
    assert "1 survey(s) of hidden players compared" in text
    assert len(figures) == 2


def test_double_klondike_notebook_runs_on_the_repository_survey(monkeypatch):
    monkeypatch.delenv("DSOLVE_SURVEY_DIR", raising=False)
    text, figures = execute(monkeypatch, DOUBLE_NOTEBOOK)
    assert "../data/surveys/double-klondike-1e4: solvitaire deals: " in text
    double_lines(text, REPOSITORY_SURVEYS / "double-klondike-1e4")
    assert len(figures) == 1
