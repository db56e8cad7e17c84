"""Where a survey's chunks are worked: local worker processes or a Dask cluster, and the loop that
keeps chunks in flight and says what is running."""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..errors import InputError
from .jobs import Task, work

SCHEDULER_TIMEOUT = 10.0  # seconds to reach a Dask scheduler
TICK = 1.0  # seconds between looks at the workers while waiting for chunks


class RunningSeeds:
    """The seed each local worker is solving and since when (Unix time): shared memory that each
    worker writes in its own slot and the parent reads."""

    IDLE = -1

    def __init__(self, workers: int, context: Any):
        self.seeds = context.RawArray("q", [self.IDLE] * workers)
        self.since = context.RawArray("d", workers)
        self.claimed = context.Value("i", 0)

    def claim(self) -> int:
        """A slot of its own for the calling worker."""
        with self.claimed.get_lock():
            slot = self.claimed.value
            self.claimed.value += 1
        return slot % len(self.seeds)

    def mark(self, slot: int, seed: int) -> None:
        self.since[slot] = time.time()
        self.seeds[slot] = seed

    def snapshot(self) -> list[tuple[int, float]]:
        """(seed, seconds so far) of each solve running now."""
        now = time.time()
        return [(seed, now - since) for seed, since in zip(self.seeds[:], self.since[:]) if seed != self.IDLE]


_WORKER_SLOT: tuple[RunningSeeds, int] | None = None  # in a local worker: where it says what it solves


def mark_running(seed: int) -> None:
    """In a local worker, say that it is on ``seed`` now (:data:`RunningSeeds.IDLE`: on none)."""
    if _WORKER_SLOT is not None:
        _WORKER_SLOT[0].mark(_WORKER_SLOT[1], seed)


def worker_count() -> int:
    """In a local worker, how many local workers there are; else 1 (a Dask worker, or no worker)."""
    return len(_WORKER_SLOT[0].seeds) if _WORKER_SLOT is not None else 1


def _init_worker(parent: int, running: RunningSeeds) -> None:
    """Local workers leave Ctrl-C to the parent, die when it terminates them, and die with it
    (Linux) rather than linger; each takes a slot to say which seed it solves."""
    global _WORKER_SLOT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # forked with the parent's handler, which would not die
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)
    _WORKER_SLOT = running, running.claim()


@dataclass(frozen=True)
class Pool:
    """Where chunks are solved: an executor, its worker count, and for local workers which seed
    each is solving (Dask tasks say nothing until they end)."""

    executor: Executor
    workers: int
    running: RunningSeeds | None = None


@contextmanager
def local_pool(jobs: int | None) -> Iterator[Pool]:
    workers = jobs or os.cpu_count() or 1
    # fork: quick to start, and workers share the parent's imports.
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    running = RunningSeeds(workers, context)
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                               initargs=(os.getpid(), running))
    try:
        yield Pool(pool, workers, running)
    except BaseException:
        for process in list(pool._processes.values()):  # no public way before Python 3.14
            process.terminate()  # the chunks in flight are lost, by design
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def dask_pool(address: str) -> Iterator[Pool]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("a Dask scheduler needs Dask: pip install 'dsolve[dask]'") from None

    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    executor = client.get_executor(pure=False)
    try:
        yield Pool(executor, max(1, sum(client.nthreads().values())))
    except BaseException:
        executor.shutdown(wait=False)  # cancels what is queued or running
        raise
    finally:
        client.close()


def open_pool(jobs: int | None, scheduler: str | None) -> Any:
    """The Dask cluster at ``scheduler`` if given, else ``jobs`` local workers (default: all cores)."""
    return dask_pool(scheduler) if scheduler else local_pool(jobs)


def drive(executor: Executor, window: int, tasks: Iterator[Task],
          on_result: Callable[[Task, pa.Table], None],
          on_tick: Callable[[list[tuple[Task, float]]], None]) -> None:
    """Keep up to ``window`` chunks in flight; hand each finished one to ``on_result``, and at
    least every :data:`TICK` seconds the chunks in flight with their seconds since submitted to
    ``on_tick``."""
    pending: dict[Future, tuple[Task, float]] = {}
    while True:
        for task in tasks:
            pending[executor.submit(work, task)] = task, time.monotonic()
            if len(pending) >= window:
                break
        if not pending:
            return
        finished_now, _ = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
        for future in finished_now:
            on_result(pending.pop(future)[0], future.result())
        now = time.monotonic()
        on_tick([(task, now - submitted) for task, submitted in pending.values()])


def running_now(pool: Pool, in_flight: list[tuple[Task, float]], doing: str = "solving",
                unit: str = "seed") -> tuple[str, list[tuple[str, float]]]:
    """What is being worked on, for the progress display: the seed (``unit``) each local worker
    is ``doing``, or the chunks a Dask cluster holds (queued or running: it does not say which)."""
    if pool.running is not None:
        return doing, [(f"{unit} {seed}", seconds) for seed, seconds in pool.running.snapshot()]
    return "in flight", [(f"chunk {task.first}-{task.stop - 1}", seconds) for task, seconds in in_flight]
