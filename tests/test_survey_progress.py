"""What a survey shows of itself: plain lines in a log, a bar with the seeds being solved on a
terminal, chunks in flight on Dask."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

from conftest import fails

from dsolve import survey
from dsolve.survey import Task, executors, options, progress

DRIVER = """
import sys
sys.path.insert(0, {tests!r})
import conftest
conftest.install_fake_solver(delay=0.002, slow_seed=13, slow_delay={slow!r})
from dsolve.cli import main
main(prog_name="dsolve")
"""
LINE = re.compile(r"dsolve survey: (\d+)/40 seeds \((\d+\.\d)%\), [0-9.e+]+ seeds/s, elapsed \d+:\d\d:\d\d, "
                  r"ETA (\d+:\d\d:\d\d|-); unknown \d+, winnable ([0-9.]+(-[0-9.]+)?% \[.*\]|- \(no deals yet\)) \| .*")


def survey_command(tmp_path: Path, slow: float) -> list[str]:
    driver = tmp_path / "dsolve_driver.py"
    driver.write_text(DRIVER.format(tests=str(Path(__file__).parent), slow=slow))
    return [sys.executable, str(driver), "survey", "--seeds", "0-39", "--preset", "standard", "--rules",
            "draw=1,passes=3", "--out", str(tmp_path / "s"), "--jobs", "2", "--chunk-size", "5"]


def test_a_log_gets_a_line_every_few_seconds_naming_the_slow_seed(tmp_path):
    env = {**os.environ, options.LOG_EVERY_ENV: "0.3"}
    run = subprocess.run(survey_command(tmp_path, slow=2.5), capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert lines[0].startswith("dsolve survey started: 0/40 seeds (0.0%), 0 seeds/s, elapsed 0:00:00, ETA -; "
                               "unknown 0, winnable - (no deals yet) | - (no deals yet)")
    assert lines[-1].startswith("dsolve survey finished: 40/40 seeds (100.0%), ")
    between = lines[1:-1]
    assert len(between) >= 4 and all(LINE.fullmatch(line.split("; solving")[0]) for line in between), lines
    slow = [line for line in between if re.search(r"; solving seed 13 \((\d) s\)", line)]
    assert len(slow) >= 3 and any("seed 13 (2 s)" in line for line in slow), lines
    done = [int(LINE.fullmatch(line.split("; solving")[0])[1]) for line in between]
    assert done == sorted(done)


def test_the_log_interval_must_be_a_positive_number(fake, tmp_path, monkeypatch):
    monkeypatch.setenv(options.LOG_EVERY_ENV, "soon")
    assert fails("survey", "--seeds", "1-3", "--out", str(tmp_path / "s"), "--jobs", "1") == (
        "dsolve: error: DSOLVE_PROGRESS_EVERY must be a positive finite number, got 'soon'")


def test_a_terminal_gets_a_bar_with_the_seeds_being_solved(tmp_path):
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 250, 0, 0))
    proc = subprocess.Popen(survey_command(tmp_path, slow=2.5), stdout=subprocess.PIPE, stderr=follower,
                            text=True)
    os.close(follower)
    shown = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the process is gone and the terminal closed
            break
        if not data:
            break
        shown += data
    proc.wait(timeout=30)
    os.close(leader)
    assert proc.returncode == 0
    text = shown.decode()
    assert "dsolve survey" not in text  # no log lines on a terminal
    states = text.replace("\r", "\n").splitlines()
    assert any(re.search(r"\d+/40 \[.*seed/s, unknown \d+, winnable .*; solving seed 13 \(2 s\)", s) for s in states)
    assert re.search(r"40/40 \[", states[-1] if states[-1].strip() else states[-2])


def test_running_text_names_the_longest_first():
    assert progress.running_text("solving", []) == ""
    running = [("seed 1", 0.2), ("seed 7", 31.4), ("seed 3", 2.6), ("seed 4", 1.0), ("seed 9", 5.0)]
    assert progress.running_text("solving", running) == (
        "solving seed 7 (31 s), seed 9 (5 s), seed 3 (3 s), seed 4 (1 s) and 1 more")


def test_dask_shows_its_chunks_in_flight():
    pool = executors.Pool(executor=None, workers=2)  # Dask: no word from the workers until a chunk ends
    task = Task("solve", "solvitaire", 200, 400, ("draw=3",), survey.DEFAULT_LIMITS)
    assert executors.running_now(pool, [(task, 12.0)]) == ("in flight", [("chunk 200-399", 12.0)])


def test_a_log_line_when_due_and_not_before(monkeypatch):
    class Log:
        def __init__(self):
            self.lines = []

        def isatty(self):
            return False

        def write(self, text):
            self.lines.append(text)

        def flush(self):
            pass

    log = Log()
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    with progress.Progress("retry", 10, 0, "solve", True, lambda: "still unknown 0", stream=log, every=30) as shown:
        clock[0] += 20
        shown.update(2)
        shown.tick("solving", [("seed 5", 20.0)])
        clock[0] += 20
        shown.update(0)  # no line from an update
        assert "".join(log.lines).count("\n") == 1  # only the start line so far
        shown.tick("solving", [("seed 5", 40.0)])
    lines = "".join(log.lines).splitlines()
    assert lines == [
        "dsolve retry started: 0/10 solves (0.0%), 0 solves/s, elapsed 0:00:00, ETA -; still unknown 0",
        "dsolve retry: 2/10 solves (20.0%), 0.05 solves/s, elapsed 0:00:40, ETA 0:02:40; still unknown 0; "
        "solving seed 5 (40 s)",
        "dsolve retry finished: 2/10 solves (20.0%), 0.05 solves/s, elapsed 0:00:40, ETA 0:02:40; "
        "still unknown 0",
    ]
