"""The Klondike solve survey: a row per seed and rule set with the core's verdict, the length of
the winning line, and the effort (the ``solve`` job of :mod:`dsolve.survey.jobs`).

A seed's rule sets share their verdicts (unless the survey's ``solve_each`` option is set): they
are solved loosest first (:meth:`Rules.relaxes <dsolve.rules.Rules.relaxes>`), and a rule set whose
verdict follows from one already solved — a loss under rules that relax it, a win under rules it
relaxes — takes that verdict with no search, its row naming the rule set in ``implied_by`` (0
positions, 0 s; a win keeps the other's line length, a line that plays under both)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from . import deals
from ..cards import full_shape
from .deal import Deal
from .result import UNKNOWN, UNWINNABLE, VERDICTS, WINNABLE
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
# the solve survey's own column: the rule set of the seed whose verdict this one follows from
# (null: solved); chunks written before it are read with it null
SOLVE_SCHEMA = SCHEMA.append(pa.field("implied_by", pa.dictionary(pa.int32(), pa.string())))
SOLVE_EACH = "solve_each"  # the survey option: solve every rule set of a seed, sharing nothing


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


def each_seed(task: Task) -> Iterator[tuple[int, list[tuple[str, Rules, Deal]]]]:
    """The task's seeds in its order, each with its (rules text, rules, deal) in the task's order;
    a seed dealt once per deck count; a local worker marks the seed it is on."""
    rules = {text: Rules.parse(text) for text in task.settings}
    for seed, pairs in groupby(task.pairs(), key=itemgetter(0)):
        seed_deals: dict[int, Deal] = {}     # the seed's deal by decks (rule sets may differ)
        items = []
        for _, text in pairs:
            decks = rules[text].decks
            if decks not in seed_deals:
                seed_deals[decks] = deals.make_deal(task.convention, seed, full_shape(decks))
            items.append((text, rules[text], seed_deals[decks]))
        mark_running(seed)
        yield seed, items
    mark_running(RunningSeeds.IDLE)


def each_deal(task: Task) -> Iterator[tuple[int, str, Rules, Deal]]:
    """The task's (seed, rules text, rules, deal), in its order (:func:`each_seed`)."""
    for seed, items in each_seed(task):
        for text, rules, deal in items:
            yield seed, text, rules, deal


def solve_limits(task: Task) -> dict[str, float | None]:
    """The task's limits for each solve; without a memory limit the local workers share the
    default, a Dask worker takes it whole."""
    from . import api

    return {"max_nodes": task.limits.max_nodes, "timeout": task.limits.timeout,
            "memory_mb": task.limits.memory_mb or api.default_memory_mb(worker_count())}


class Decided(NamedTuple):
    """A verdict one of a seed's rule sets got by search, for its other rule sets to share."""
    rules: Rules
    text: str
    verdict: str
    length: int


def follows_from(rules: Rules, decided: Sequence[Decided]) -> Decided | None:
    """The first of ``decided`` that settles ``rules``: a win under rules that these relax, or a
    loss under rules that relax these (:meth:`Rules.relaxes`); None if none does."""
    return next((d for d in decided if (d.verdict == WINNABLE and rules.relaxes(d.rules))
                 or (d.verdict == UNWINNABLE and d.rules.relaxes(rules))), None)


def solve_chunk(task: Task) -> pa.Table:
    """Solve a chunk's rows (every seed under every rule set, seed-major, unless ``task.rows``),
    a seed's rule sets sharing verdicts unless ``task.params`` sets :data:`SOLVE_EACH` (see the
    module docstring)."""
    from . import api  # the native solver: loaded by workers, not by readers of surveys

    limits = solve_limits(task)
    share = not dict(task.params).get(SOLVE_EACH, False)
    columns: dict[str, list] = {name: [] for name in SOLVE_SCHEMA.names}
    for seed, items in each_seed(task):
        rows: dict[str, tuple[tuple, str | None]] = {}   # rules text: add_row's fields, implied_by
        decided: list[Decided] = []
        for text, rules, deal in loosest_first(items) if share else items:
            source = follows_from(rules, decided)
            if source is not None:
                rows[text] = (source.verdict, source.length, 0, 0.0, None), source.text
                continue
            result = api.solve(deal, rules, **limits)
            rows[text] = (result.verdict, len(result.moves), result.nodes, result.seconds, result.limit), None
            if share and result.verdict != UNKNOWN:
                decided.append(Decided(rules, text, result.verdict, len(result.moves)))
        for text, _, _ in items:
            fields, implied_by = rows[text]
            add_row(columns, seed, text, *fields)
            columns["implied_by"].append(implied_by)
    return pa.Table.from_pydict(columns, schema=SOLVE_SCHEMA)


def loosest_first(items: list[tuple[str, Rules, Deal]]) -> list[tuple[str, Rules, Deal]]:
    """A seed's rule sets, those relaxing more of the others first (a loss found under loose rules
    settles the stricter ones; :meth:`Rules.relaxes` is a partial order, so a rule set comes after
    every one relaxing it)."""
    return sorted(items, key=lambda item: -sum(item[1].relaxes(other[1]) for other in items))


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


def upgrade(table: pa.Table) -> pa.Table:
    """Rows of a chunk written before ``implied_by``, with it null (every row was solved)."""
    return table.append_column(SOLVE_SCHEMA.field("implied_by"), pa.nulls(table.num_rows, SOLVE_SCHEMA.field("implied_by").type))


SOLVE = Job("solve", "rules", "rule sets", deals.DEFAULT_CONVENTION, SOLVE_SCHEMA, solve_chunk, check, Tally,
            valid, legacy=LEGACY_SCHEMA, former=SCHEMA, upgrade=upgrade, retries=True)
