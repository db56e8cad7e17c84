"""Progress of a survey run on stderr: a tqdm bar on a terminal, a plain line every so often in a log.

On a terminal the bar shows the running counts and which seeds are being solved, for how long.
Elsewhere (nohup, cron, CI) a line every so many seconds, and one at the start and the
end, says how far the run is, its rate, the time left, the job's running counts (for solves: the
unknowns and the running winnable %) and what is being solved, so a log shows the run is alive.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from tqdm import tqdm

DEFAULT_LOG_EVERY = 30.0  # seconds between progress lines when stderr is not a terminal
SHOWN_RUNNING = 4  # solves in progress named on the bar or a line, the longest first


def running_text(heading: str, running: Sequence[tuple[str, float]]) -> str:
    """``solving seed 1978 (415 s), seed 1990 (2 s)``: the longest first, at most
    :data:`SHOWN_RUNNING` named; empty if nothing runs."""
    if not running:
        return ""
    longest = sorted(running, key=lambda item: -item[1])
    named = ", ".join(f"{label} ({seconds:.0f} s)" for label, seconds in longest[:SHOWN_RUNNING])
    more = len(longest) - SHOWN_RUNNING
    return f"{heading} {named}" + (f" and {more} more" if more > 0 else "")


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class _Bar(tqdm):
    monitor_interval = 0  # no monitor thread: local workers are forked


class Progress:
    """What a run shows of itself on ``stream`` (stderr): nothing unless ``enabled``; a bar if the
    stream is a terminal, else a line at the start, every ``every`` seconds and at the end.
    ``status`` gives the counts to show (a job's tally, :class:`dsolve.survey.jobs.Tally`)."""

    def __init__(self, what: str, total: int, done: int, unit: str, enabled: bool,
                 status: Callable[[], str], stream: TextIO | None = None, every: float = DEFAULT_LOG_EVERY):
        self.what, self.total, self.unit, self.status = what, total, unit, status
        self.stream = stream or sys.stderr
        self.terminal = enabled and self.stream.isatty()
        self.logging = enabled and not self.terminal
        self.every = every
        self.done_before = self.done = done
        self.started = self.last_line = time.monotonic()
        self.running = ""
        self.bar = _Bar(total=total, initial=done, unit=unit, dynamic_ncols=True, file=self.stream,
                        disable=not self.terminal)

    def __enter__(self) -> "Progress":
        self.bar.set_postfix_str(self.status(), refresh=False)
        if self.logging:
            self._line("started")
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.bar.close()
        if self.logging:
            self._line("finished" if kind is None else "stopped")

    def update(self, n: int) -> None:
        """``n`` more done (shown on the bar now, in a log by the next :meth:`tick`)."""
        self.done += n
        self._postfix(refresh=False)
        self.bar.update(n)

    def tick(self, heading: str = "", running: Sequence[tuple[str, float]] | None = None) -> None:
        """Say what is being solved (labels and seconds so far, under ``heading``), if given, and
        show it: on the bar now, in a log when a line is due."""
        if running is not None:
            self.running = running_text(heading, running)
            self._postfix(refresh=True)
        if self.logging and time.monotonic() - self.last_line >= self.every:
            self._line()

    def _postfix(self, refresh: bool) -> None:
        if self.terminal:
            self.bar.set_postfix_str("; ".join(filter(None, (self.status(), self.running))), refresh=refresh)

    def _line(self, event: str = "") -> None:
        now = time.monotonic()
        self.last_line = now
        elapsed, new = now - self.started, self.done - self.done_before
        rate = new / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = _duration(left / rate) if rate > 0 else "-" if left else _duration(0)
        share = 100 * self.done / self.total if self.total else 100.0
        parts = [f"dsolve {self.what}{' ' + event if event else ''}: {self.done}/{self.total} {self.unit}s "
                 f"({share:.1f}%), {rate:.3g} {self.unit}s/s, elapsed {_duration(elapsed)}, ETA {eta}",
                 self.status()]
        if not event:
            parts.append(self.running)
        print("; ".join(filter(None, parts)), file=self.stream, flush=True)
