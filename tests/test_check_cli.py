"""``dsolve check``: verdicts against the oracle, the one-line report, --json, --solution (replayed
by the referee), exit codes 0 / 3 / 2 / 130."""
import csv
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dsolve
from dsolve.klondike import api
from dsolve.cards import STANDARD, DeckShape
from dsolve.klondike.dealfiles import dump_deal
from dsolve.klondike.deals import make_deal
from dsolve.klondike.moves import parse_move
from dsolve.klondike.referee import replay
from dsolve.rules import STANDARD_RULES, Rules, preset

from conftest import oracle_files, oracle_rules
from conftest import run

# Solvitaire seed 90 (unwinnable for lonelybot), with a table so small that the core's search of
# the loss runs for minutes.
HARD = ("90", "--memory", "0.001")




def check_json(*args: str, code: int = 0) -> dict:
    result = run("check", *args, "--json")
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def rules_args(rules: Rules) -> list[str]:
    return ["--draw", str(rules.draw), "--passes", str(rules.passes or "unlimited"),
            "--empty", rules.empty_rule, "--worry" if rules.worry_back else "--no-worry"]


def fails(*args: str) -> str:
    """Exit code 2 and exactly one line on stderr, ``dsolve: error: ...``."""
    result = run("check", *args)
    assert result.exit_code == 2, (args, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dsolve: error: "), (args, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    return lines[0]


# --- verdicts ----------------------------------------------------------------------------------

def _oracle_rows(per_file: int = 3) -> list:
    """The first ``per_file`` winnable and unwinnable rows of each single-deck verdict file among
    those the reference solver decided in under 0.05 s (the CLI is under test here, not speed)."""
    rows = []
    for path in oracle_files("verdicts-*.csv"):
        taken = {"winnable": 0, "unwinnable": 0}
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                if taken.get(row["verdict"], per_file) < per_file and float(row["seconds"]) < 0.05:
                    taken[row["verdict"]] += 1
                    rows.append(pytest.param(row, id=f"{path.stem}-{row['seed']}"))
    return rows


@pytest.mark.parametrize("row", _oracle_rows())
def test_verdict_agrees_with_oracle(row):
    rules = oracle_rules(row)
    result = run("check", row["seed"], *rules_args(rules), "--timeout", "5")
    if result.exit_code == 3:
        pytest.skip(f"unknown within 5 s: {result.stdout.strip()}")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    line = result.stdout.strip()
    assert line.startswith(f"seed {row['seed']}: {row['verdict']}"), (line, row)
    assert f"  {rules}  " in line


def test_line_format_and_json_agree():
    """The one line: label, verdict with the number of moves, rules, nodes, seconds; the same
    numbers as the JSON object of the same solve (the nodes of a deterministic search)."""
    result = run("check", "2")
    assert result.exit_code == 0, result.stderr
    line = result.stdout.rstrip("\n")
    m = re.fullmatch(r"seed 2: winnable in (\d+) moves  (\S+)  nodes (\d+)  (\d+\.\d{3}) s  table (\d+) MB", line)
    assert m, line
    data = check_json("2")
    assert int(m[1]) == data["move_count"] and int(m[3]) == data["nodes"]
    assert m[2] == str(STANDARD_RULES) == data["rules"]


def test_json_fields():
    data = check_json("2", "--preset", "standard-1", "--deal", "solvitaire")
    assert set(data) == {"verdict", "moves", "move_count", "nodes", "seconds", "table_peak", "limit",
                         "memory_mb", "dead_cards", "rules", "seed", "convention", "file", "shape"}
    assert isinstance(data["memory_mb"], int) and data["memory_mb"] >= 256  # sized from the machine
    assert data["verdict"] == "winnable" and data["limit"] is None
    assert data["seed"] == 2 and data["convention"] == "solvitaire" and data["file"] is None
    assert data["shape"] == "4x13/7"
    assert Rules.parse(data["rules"]) == preset("standard-1")
    assert data["move_count"] == len(data["moves"]) > 0
    assert all(isinstance(m, str) for m in data["moves"])
    assert isinstance(data["nodes"], int) and data["nodes"] > 0
    assert isinstance(data["seconds"], float) and data["seconds"] >= 0
    assert isinstance(data["table_peak"], int) and data["table_peak"] > 0
    # The notation strings alone are a winning line.
    outcome = replay(make_deal("solvitaire", 2), preset("standard-1"), data["moves"])
    assert outcome.won, outcome.error


def test_json_of_an_unwinnable_deal():
    data = check_json("1", "--preset", "single-pass-3")  # unwinnable for Solvitaire (the oracle)
    assert data["verdict"] == "unwinnable" and data["moves"] == [] and data["move_count"] == 0
    assert data["rules"] == str(preset("single-pass-3"))


@pytest.mark.parametrize("args, rules", [
    (["5"], STANDARD_RULES),
    (["7", "--deal", "klondike-solver", "--draw", "1"], Rules(1)),
    (["3", "--deal", "greenfelt", "--passes", "3", "--empty", "any"], Rules(3, 3, "any")),
    (["11", "--rules", "draw=2,worry=no"], Rules(2, None, "king", False)),
    (["2", "--shape", "3x5/4", "--draw", "1", "--passes", "2", "--empty", "none"], Rules(1, 2, "none")),
])
def test_solution_replays(args, rules):
    """--solution prints the verdict line, then numbered steps with notation and a description;
    the notation, parsed back, wins with the referee. (Deals winnable under those rules.)"""
    result = run("check", *args, "--solution")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    head, *steps = result.stdout.splitlines()
    found = re.search(r": winnable in (\d+) moves  ", head)
    assert found, head
    count = int(found[1])
    assert len(steps) == count > 0
    moves = []
    for number, text in enumerate(steps, 1):
        m = re.fullmatch(r"\s*(\d+)\. (turn|redeal|\S+>\S+ \S+)\s+(\S.*)", text)
        assert m, text
        assert int(m[1]) == number
        move = parse_move(m[2])
        assert str(move) == m[2] and m[3].startswith(move.describe())
        moves.append(move)
    seed, *options = args
    convention = options[options.index("--deal") + 1] if "--deal" in options else "solvitaire"
    shape = DeckShape.parse(options[options.index("--shape") + 1]) if "--shape" in options else STANDARD
    deal = make_deal(convention, seed, shape)
    outcome = replay(deal, rules, moves)
    assert outcome.won, outcome.error


def test_file_deal_same_as_seed(tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text(dump_deal(make_deal("solvitaire", 6), "text"))
    from_file = check_json("--file", str(path))
    from_seed = check_json("6")
    assert from_file["verdict"] == from_seed["verdict"] != "unknown"
    assert from_file["file"] == str(path) and from_file["seed"] is None and from_file["convention"] is None
    result = run("check", "--file", str(path))
    assert result.stdout.startswith(f"{path}: {from_seed['verdict']}")


# --- limits, unknown, exit code 3 ----------------------------------------------------------------

def test_max_nodes_gives_unknown_exit_3():
    data = check_json(*HARD, "--max-nodes", "1", code=3)
    assert data["verdict"] == "unknown" and data["limit"] == "nodes" and data["moves"] == []
    result = run("check", *HARD, "--max-nodes", "1")
    assert result.exit_code == 3
    assert re.fullmatch(r"seed 90: unknown \(nodes limit reached\)  \S+  nodes \d+  \d+\.\d{3} s  table [0-9.]+ MB\n",
                        result.stdout), result.stdout


def test_timeout_gives_unknown_exit_3():
    data = check_json("90", "--timeout", "0.02", code=3)
    assert data["verdict"] == "unknown" and data["limit"] == "time"
    assert data["seconds"] < 2
    result = run("check", "90", "--timeout", "0.02")
    assert re.fullmatch(r"seed 90: unknown \(time limit reached\)  \S+  nodes \d+  \d+\.\d{3} s  table [0-9.]+ MB\n",
                        result.stdout), result.stdout


def test_a_full_table_is_reported_with_its_memory():
    data = check_json(*HARD, "--timeout", "0.05", code=3)
    assert (data["verdict"], data["limit"], data["memory_mb"]) == ("unknown", "table", 0.001)
    result = run("check", *HARD, "--max-nodes", "50000")
    assert result.exit_code == 3
    assert re.fullmatch(r"seed 90: unknown \(table full: 0\.001 MB\)  \S+  nodes 50000  \d+\.\d{3} s  table 0\.001 MB\n",
                        result.stdout), result.stdout


def test_max_nodes_is_exact():
    assert check_json(*HARD, "--max-nodes", "1", code=3)["nodes"] == 1
    assert check_json("90", "--max-nodes", "1500", code=3)["nodes"] == 1500


def test_seed_is_echoed_as_a_number():
    result = run("check", "007")
    assert result.stdout.startswith("seed 7: "), result.stdout
    assert check_json("007")["seed"] == 7 == check_json("+7")["seed"]


def test_tiny_memory_still_decides():
    """A full table stops storing positions; the search goes on and decides."""
    small = ["4", "--shape", "3x5/4"]
    roomy = check_json(*small)
    tight = check_json(*small, "--memory", "0.001")
    assert tight["verdict"] == roomy["verdict"] != "unknown"


def test_interrupt_exits_130_with_one_line(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "solve", interrupted)
    result = run("check", "1")
    assert result.exit_code == 130, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == ["dsolve: interrupted"] and result.stdout == ""


def test_real_ctrl_c_exits_130_with_one_line():
    """SIGINT during a long solve: the core stops, the command prints one line, exit 130."""
    env = {**os.environ, "PYTHONPATH": str(Path(dsolve.__file__).parents[1])}
    # SIGINT as a terminal's Ctrl-C: a test run started in the background inherits it ignored.
    command = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
               "from dsolve.cli import main; main()")
    proc = subprocess.Popen([sys.executable, "-c", command, "check",
                             *HARD, "--timeout", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(2.0)  # past the imports, into the search
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 30 s after SIGINT; stdout {out!r}, stderr {err!r}")
    assert proc.returncode == 130, (out, err)
    assert err == "dsolve: interrupted\n" and out == ""


# --- usage errors, exit code 2 -------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["--draw", "0"], ["--draw", "x"], ["--passes", "none-ish"], ["--passes", "-1"],
    ["--empty", "queen"], ["--preset", "nope"], ["--rules", "draw=3,colour=red"],
    ["--preset", "standard", "--rules", "draw=1"], ["--deal", "nope"], ["abc"], ["-5"],
    ["--timeout", "0"], ["--timeout", "soon"], ["--max-nodes", "0"], ["--memory", "0"],
    ["--timeout", "nan"], ["--timeout", "inf"], ["--memory", "nan"], ["--memory", "inf"],
    ["--max-nodes", "1e3"], ["--max-nodes", "nan"], ["--passes", "0"], ["--rules", "passes=0"],
    ["--passes", "inf"], ["--rules", "passes=none"],
    ["--memory", "-3"], ["--file", "/nonexistent/deal.txt"], ["1", "--file", "x.txt"],
    ["--shape", "9x9"], ["1", "2"], ["--bogus"],
])
def test_bad_options_one_line_exit_2(args):
    fails(*args)


def test_help_documents_exit_codes():
    result = run("check", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for item in ("0 decided", "3 unknown", "2 usage error", "130 interrupted"):
        assert item in text, item


# --- hostile deal files, in a real process with its address space capped ----------------------

_ADDRESS_SPACE = 1 << 30  # 1 GiB: the process with its native core needs a fraction of it


def _capped_check(*args: str, stdin: object = subprocess.DEVNULL) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(dsolve.__file__).parents[1])}
    return subprocess.run(
        [sys.executable, "-m", "dsolve", "check", *args], stdin=stdin, capture_output=True,
        text=True, env=env, timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE)))


def _assert_one_line(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr[-2000:])
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert result.stderr.startswith("dsolve: error: ") and message in result.stderr


def test_dev_zero_is_refused_in_bounded_memory():
    _assert_one_line(_capped_check("--file", "/dev/zero"),
                     "cannot read deal file '/dev/zero': larger than 1 MiB")


def test_endless_pipe_is_refused_in_bounded_memory():
    endless = subprocess.Popen(["yes", "pile 1: AS"], stdout=subprocess.PIPE)
    try:
        result = _capped_check("--file", "/dev/stdin", stdin=endless.stdout)
    finally:
        endless.kill()
        endless.wait()
    _assert_one_line(result, "cannot read deal file '/dev/stdin': larger than 1 MiB")


def test_deeply_nested_json_is_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    _assert_one_line(_capped_check("--file", str(path)), "bad JSON: nested 100000 deep")
