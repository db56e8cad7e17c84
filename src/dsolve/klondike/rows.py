"""The Klondike solve survey: a row per seed and rule set with the core's verdict, the length of
the winning line, and the effort (the ``solve`` job of :mod:`dsolve.survey.jobs`)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from . import deals
from ..cards import full_shape
from .deal import Deal
from .result import UNKNOWN, VERDICTS, WINNABLE
from ..rules import Rules
from ..survey.executors import RunningSeeds, mark_running, worker_count
from ..survey.jobs import Job, Task
from ..survey.stats import WinRange

SCHEMA = pa.schema([
    ("seed", pa.int64()),
    ("rules", pa.dictionary(pa.int32(), pa.string())),
    ("verdict", pa.dictionary(pa.int32(), pa.string())),
    ("length", pa.int32()),  # moves of the solution; null unless winnable
    ("nodes", pa.int64()),
    ("seconds", pa.float64()),
    ("limit", pa.string()),  # the budget that ran out (Result.limit); null unless unknown
])
LEGACY_SCHEMA = SCHEMA.remove(SCHEMA.get_field_index("limit"))  # chunks of format 1


class Tally:
    """Running counts per rule set: how many rows, won, unknown."""

    def __init__(self, rules: Sequence[str]):
        self.counts = {r: [0, 0, 0] for r in rules}  # n, won, unknown

    def add(self, table: pa.Table) -> None:
        for rules, verdict in zip(table["rules"].to_pylist(), table["verdict"].to_pylist()):
            c = self.counts[rules]
            c[0] += 1
            c[1] += verdict == WINNABLE
            c[2] += verdict == UNKNOWN

    def __str__(self) -> str:
        ranges = [WinRange(n, won, unknown) for n, won, unknown in self.counts.values()]
        return f"unknown {sum(r.unknown for r in ranges)}, winnable " + " | ".join(map(str, ranges))


def check(convention: str, seeds: range, rules: Sequence[str]) -> None:
    """InputError for an unknown convention, a first or last seed out of its range, bad rules, or
    rules with a deck count the convention does not deal."""
    decks = {Rules.parse(text).decks for text in rules}
    for seed in (seeds[0], seeds[-1]):
        for count in sorted(decks):
            deals.make_deal(convention, seed, full_shape(count))


def valid(table: pa.Table) -> None:
    """ValueError if a row holds a verdict the core never gives."""
    if pc.index_in(table["verdict"].cast(pa.string()), value_set=pa.array(VERDICTS)).null_count:
        raise ValueError("a row holds an unknown verdict")


def each_deal(task: Task) -> Iterator[tuple[int, str, Rules, Deal]]:
    """The task's (seed, rules text, rules, deal), in its order; a seed dealt once per deck count;
    a local worker marks the seed it is on."""
    rules = {text: Rules.parse(text) for text in task.settings}
    seed_deals: dict[int, Deal] = {}     # the seed's deal by decks (rule sets may differ)
    deal_seed = None
    for seed, text in task.pairs():
        if seed != deal_seed:
            seed_deals, deal_seed = {}, seed
        decks = rules[text].decks
        if decks not in seed_deals:
            seed_deals[decks] = deals.make_deal(task.convention, seed, full_shape(decks))
        mark_running(seed)
        yield seed, text, rules[text], seed_deals[decks]
    mark_running(RunningSeeds.IDLE)


def solve_limits(task: Task) -> dict[str, float | None]:
    """The task's limits for each solve; without a memory limit the local workers share the
    default, a Dask worker takes it whole."""
    from . import api

    return {"max_nodes": task.limits.max_nodes, "timeout": task.limits.timeout,
            "memory_mb": task.limits.memory_mb or api.default_memory_mb(worker_count())}


def solve_chunk(task: Task) -> pa.Table:
    """Solve a chunk's rows (every seed under every rule set, seed-major, unless ``task.rows``)."""
    from . import api  # the native solver: loaded by workers, not by readers of surveys

    limits = solve_limits(task)
    columns: dict[str, list] = {name: [] for name in SCHEMA.names}
    for seed, text, rules, deal in each_deal(task):
        result = api.solve(deal, rules, **limits)
        add_row(columns, seed, text, result.verdict, len(result.moves), result.nodes, result.seconds,
                result.limit)
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def add_row(columns: dict[str, list], seed: int, rules: str, verdict: str, length: int, nodes: int,
            seconds: float, limit: str | None) -> None:
    """Append a solve's row to ``columns`` (length only if winnable, limit only if unknown)."""
    columns["seed"].append(seed)
    columns["rules"].append(rules)
    columns["verdict"].append(verdict)
    columns["length"].append(length if verdict == WINNABLE else None)
    columns["nodes"].append(nodes)
    columns["seconds"].append(seconds)
    columns["limit"].append(limit if verdict == UNKNOWN else None)


SOLVE = Job("solve", "rules", "rule sets", deals.DEFAULT_CONVENTION, SCHEMA, solve_chunk, check, Tally,
            valid, legacy=LEGACY_SCHEMA, retries=True)
