"""The ``dsolve`` command line: commands parse options, call the library and print.

Every :class:`InputError` and every click usage error ends as one line ``dsolve: error: ...`` on
stderr with exit code 2. Commands share their options through :func:`deal_options` with
:func:`load_from_options` (which deal) and :func:`rules_options` with :func:`dsolve.rules.choose_rules`
(which rules).
"""
from __future__ import annotations

import dataclasses
import json
import re
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from . import __version__
from .errors import InputError, SolverBug
from .klondike.dealfiles import FORMATS, choose_deal, dump_deal
from .klondike.deals import CONVENTIONS, DEFAULT_CONVENTION, exact_index
from .klondike.render import deal_json, render
from .klondike.solution import narrate
from .limits import MAX_MEMORY_MB, MEMORY_SHARE, checked_limit
from .races.table import VARIANTS, WINS
from .races.timing import MODES
from .rules import PRESETS, choose_rule_sets, choose_rules, parse_count, preset, preset_labels

if TYPE_CHECKING:
    from .survey import Limits, SurveyRun

F = TypeVar("F", bound=Callable[..., Any])
# Bare ``dsolve``: click (>= 8.2) shows the help through this usage error; let it.
_HELP_REQUEST = getattr(click.exceptions, "NoArgsIsHelpError", ())
EXIT_DECIDED, EXIT_UNKNOWN, EXIT_SOLVER_BUG, EXIT_INTERRUPTED = 0, 3, 70, 130


class CliError(click.ClickException):
    """Shown as one line ``dsolve: error: MESSAGE`` on stderr; exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"dsolve: error: {self.format_message()}", err=True)


@contextmanager
def _one_line_errors() -> Iterator[None]:
    try:
        yield
    except _HELP_REQUEST:
        raise
    except InputError as err:
        raise CliError(" ".join(str(err).split())) from None
    except SolverBug as err:
        click.echo(f"dsolve: internal error: {err}", err=True)
        sys.exit(EXIT_SOLVER_BUG)
    except click.UsageError as err:
        hint = f" (see '{err.ctx.command_path} --help')" if err.ctx else ""
        raise CliError(" ".join(err.format_message().split()) + hint) from None


class _Main(click.Group):
    """A group whose errors, its own and its commands', are one line and exit code 2."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _one_line_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _one_line_errors():
            return super().invoke(ctx)


class _SeedCommand(click.Command):
    """A command taking a SEED that may be typed negative: ``-5`` is taken for the seed (which its
    convention then refuses by range), not for an unknown option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value = {name for p in self.params if isinstance(p, click.Option) and not p.is_flag
                       for name in p.opts}
        options: list[str] = []
        negative: list[str] = []
        for arg in args:
            if arg == "--":
                break
            if _NEGATIVE.fullmatch(arg) and not (options and options[-1] in takes_value):
                negative.append(arg)
            else:
                options.append(arg)
        if negative:
            args = options + ["--", *negative, *args[len(options) + len(negative) + 1:]]
        return super().parse_args(ctx, args)


_NEGATIVE = re.compile(r"-[0-9]+")


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dsolve")
def main() -> None:
    """Decide Klondike deals, and show and convert them."""


# --- shared options ----------------------------------------------------------------------------

class _Limit(click.ParamType):
    """A solve's budget: a positive finite number (a whole one with ``integer``), the library's rule."""

    name = "limit"

    def __init__(self, integer: bool = False) -> None:
        self.integer = integer

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        name = param.opts[0] if param is not None else "limit"
        try:
            number = (int if self.integer else float)(value)
        except (TypeError, ValueError):
            number = value
        return checked_limit(name, number, self.integer)


_MEMORY_HELP = (f"default: {MEMORY_SHARE:.0%} of the memory available, split among the solves running "
                f"at once, at most {MAX_MEMORY_MB} MB")


def deal_options(command: F) -> F:
    """Add ``SEED``, ``--deal``, ``--file`` and ``--shape``; pass them to :func:`load_from_options`."""
    for decorator in reversed((
        click.argument("seed", required=False),
        click.option("--deal", "convention", metavar="CONVENTION",
                     help=f"how SEED numbers deals: {', '.join(CONVENTIONS)} "
                          f"(default {DEFAULT_CONVENTION})"),
        click.option("--file", "deal_file", metavar="PATH",
                     help="read the deal from a file instead: Solvitaire JSON, dsolve text, or "
                          "Klondike-Solver's deck string or PySol board (told apart by content)"),
        click.option("--shape", metavar="SxR/C",
                     help="deck for a generated deal: suits x ranks / columns, e.g. 3x5/4 "
                          "(default 4x13/7)"),
    )):
        command = decorator(command)
    return command


_RULES_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("--preset", "preset_name"),
     {"metavar": "NAME", "help": "start from a named preset (default: standard)"}),
    (("--rules", "rules_text"),
     {"metavar": "SPEC", "help": "e.g. draw=1,passes=3,empty=any,worry=no (any subset of "
                                 "draw, passes, empty, worry; the rest as in standard), or a preset name"}),
    (("--draw",), {"metavar": "N", "help": "cards turned from the stock at a time, 1..13"}),
    (("--passes",), {"metavar": "N|unlimited", "help": "trips through the stock (3 passes = 2 redeals)"}),
    (("--empty",), {"metavar": "king|any|none", "help": "what may fill an empty column"}),
    (("--worry/--no-worry", "worry"),
     {"default": None, "help": "whether a foundation card may move back to the tableau"}),
    (("--decks",), {"metavar": "1|2", "help": "copies of each card; 2: Double Klondike, 9 piles "
                                              "(a generated deal has the two-deck shape)"}),
    (("--foundations",), {"metavar": "4|8", "help": "two decks: 4 foundations built A..K twice, "
                                                    "or 8, two per suit, each A..K"}),
)


def rules_options(command: F) -> F:
    """Add ``--preset``, ``--rules``, ``--draw``, ``--passes``, ``--empty`` and
    ``--worry/--no-worry``; pass them to :func:`dsolve.rules.choose_rules`."""
    for decls, kwargs in reversed(_RULES_OPTIONS):
        command = click.option(*decls, **kwargs)(command)
    return command


# --- commands ----------------------------------------------------------------------------------

@main.command("rules")
@rules_options
def rules_command(**options: Any) -> None:
    """List the rule presets and the rules options; with options, print the rules they give."""
    if any(value is not None for value in options.values()):
        click.echo(choose_rules(**options))
        return
    width = max(map(len, PRESETS))
    click.echo("Presets: name, rules, source")
    for p in PRESETS.values():
        click.echo(f"  {p.name:<{width}}  {p.rules}\n  {'':<{width}}  {p.source}")
    click.echo("\nRules options (given to 'dsolve rules', it prints the rules they resolve to):")
    for decls, kwargs in _RULES_OPTIONS:
        label = f"  {decls[0]} {kwargs.get('metavar', '')}".ljust(30)
        click.echo(textwrap.fill(kwargs["help"], 100, initial_indent=label, subsequent_indent=" " * 30))
    click.echo("--draw, --passes, --empty, --worry/--no-worry, --decks and --foundations override "
               "--preset or --rules.")


def decks_option(command: F) -> F:
    """Add ``--decks`` (for the commands without the rules options); see :func:`_decks`."""
    return click.option("--decks", metavar="1|2",
                        help="copies of each card: 2 deals the two-deck shape (9 piles)")(command)


def _decks(decks: str | None) -> int:
    return 1 if decks is None else parse_count("decks", decks, (1, 2))


@main.command(cls=_SeedCommand)
@deal_options
@decks_option
@click.option("--json", "as_json", is_flag=True,
              help="print JSON: tableau (bottom -> top), stock (first turned first), face_down, exact")
def show(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
         decks: str | None, as_json: bool) -> None:
    """Draw a deal: SEED (default 1) under --deal, or --file."""
    deal = choose_deal(seed, convention, deal_file, shape, _decks(decks))
    click.echo(json.dumps(deal_json(deal)) if as_json else render(deal))


@main.command(cls=_SeedCommand)
@deal_options
@decks_option
@click.option("--to", "fmt", required=True, type=click.Choice([*FORMATS, "exact"]),
              help="json: Solvitaire's deal file; text: dsolve's layout; ks: Klondike-Solver's deck "
                   "string; pysol: Klondike-Solver's PySol board; exact: the 256-bit index")
@click.option("--out", metavar="PATH", help="write to PATH instead of standard output")
def convert(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
            decks: str | None, fmt: str, out: str | None) -> None:
    """Write a deal (SEED under --deal, or --file) in another format."""
    deal = choose_deal(seed, convention, deal_file, shape, _decks(decks))
    text = f"{exact_index(deal)}\n" if fmt == "exact" else dump_deal(deal, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write {out!r}: {err.strerror}") from None


# --- check -------------------------------------------------------------------------------------


@main.command(cls=_SeedCommand)
@deal_options
@rules_options
@click.option("--solution", is_flag=True,
              help="print the winning line, one numbered step a line, with the waste card each "
                   "turn shows and the card each move turns up")
@click.option("--boards", is_flag=True, help="with the winning line, draw the board after each move")
@click.option("--json", "as_json", is_flag=True,
              help="print one JSON object: verdict, moves, move_count, nodes, seconds, table_peak, "
                   "limit, memory_mb, dead_cards, rules, seed, convention, file, shape")
@click.option("--timeout", type=_Limit(), metavar="S", help="give up after S seconds (verdict unknown)")
@click.option("--memory", type=_Limit(), metavar="MB",
              help=f"memory for the transposition tables ({_MEMORY_HELP}); when they are full the "
                   "search goes on without storing more positions")
@click.option("--max-nodes", type=_Limit(integer=True), metavar="N",
              help="give up after N positions (verdict unknown)")
def check(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
          solution: bool, boards: bool, as_json: bool, timeout: float | None, memory: float | None,
          max_nodes: int | None, **rules: Any) -> None:
    """Decide one deal or game in progress: SEED (default 1) under --deal, or --file, under the
    rules options.

    Prints one line: the verdict, the length of the winning line, the positions searched and
    the time (for a loss proved without search, the cards that can never move); --solution adds
    the winning line, --boards the board after each of its moves, --json prints it all as one
    object.

    \b
    Exit codes:
      0    decided: winnable or unwinnable
      3    unknown: --timeout or --max-nodes ran out first (after the table
           filled, if it did: see --memory)
      2    usage error or bad input
      70   internal error: the solver's line failed the referee (a bug; the message holds the deal)
      130  interrupted (Ctrl-C)
    """
    from .klondike.api import solve  # the native core: loaded by the commands that solve only

    chosen = choose_rules(**rules)
    deal = choose_deal(seed, convention, deal_file, shape, chosen.decks)
    try:
        result = solve(deal, chosen, max_nodes=max_nodes, timeout=timeout, memory_mb=memory)
    except KeyboardInterrupt:
        click.echo("dsolve: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if deal_file is not None:
        label, number, conv = deal_file, None, None
    else:
        number = "1" if seed is None else str(int(seed))  # a valid decimal by now: 007 is seed 7
        conv = convention or DEFAULT_CONVENTION
        details = [c for c in (None if conv == DEFAULT_CONVENTION else conv, shape) if c is not None]
        label = f"seed {number}" + (f" ({', '.join(details)})" if details else "")
    if as_json:
        click.echo(json.dumps({**result.to_dict(), "rules": str(chosen),
                               "seed": None if number is None else int(number),
                               "convention": conv, "file": deal_file, "shape": str(deal.shape)}))
    else:
        click.echo(f"{label}: {result.describe()}  {chosen}  nodes {result.nodes}  {result.seconds:.3f} s  "
                   f"table {result.memory_mb:g} MB")
        if solution or boards:
            width = len(str(len(result.moves)))
            notation = max((len(str(m)) for m in result.moves), default=0)
            for step in narrate(deal, chosen, result.moves):
                click.echo(f"{step.number:>{width}}. {str(step.move):<{notation}}  {step.text}")
                if boards:
                    click.echo(textwrap.indent(render(step.board), "    ") + "\n")
    sys.exit(EXIT_DECIDED if result.decided else EXIT_UNKNOWN)


@main.command(cls=_SeedCommand)
@deal_options
@rules_options
@click.option("--json", "as_json", is_flag=True,
              help="print a JSON list: move, verdict, moves_to_win, nodes, seconds per move")
@click.option("--timeout", type=_Limit(), default=10.0, show_default=True, metavar="S",
              help="seconds allowed to decide each move")
@click.option("--memory", type=_Limit(), metavar="MB",
              help=f"memory for each decision's transposition tables ({_MEMORY_HELP})")
def hint(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
         as_json: bool, timeout: float, memory: float | None, **rules: Any) -> None:
    """Every legal move from a deal or game in progress (SEED, or --file), with whether it keeps
    the game winnable: winning moves first, those with the shortest line found first."""
    from .klondike.api import hints

    chosen = choose_rules(**rules)
    deal = choose_deal(seed, convention, deal_file, shape, chosen.decks)
    try:
        found = hints(deal, chosen, timeout=timeout, memory_mb=memory)
    except KeyboardInterrupt:
        click.echo("dsolve: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if as_json:
        click.echo(json.dumps([{"move": str(h.move), "verdict": h.verdict,
                                "moves_to_win": len(h.result.moves) if h.verdict == "winnable" else None,
                                "nodes": h.result.nodes, "seconds": round(h.result.seconds, 6)}
                               for h in found]))
        return
    words = {"winnable": "keeps the game winnable", "unwinnable": "loses the game",
             "unknown": f"unknown within {timeout:g} s"}
    notation = max((len(str(h.move)) for h in found), default=0)
    for h in found:
        won = f" ({len(h.result.moves)} more moves)" if h.verdict == "winnable" else ""
        click.echo(f"{str(h.move):<{notation}}  {words[h.verdict]}{won}  ({h.move.describe()})")
    if not found:
        click.echo("no legal move")


# --- race tables -------------------------------------------------------------------------------

def _fast_player(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    ctx.meta["dsolve.fast"] = value


def _sample_setting(field: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """An option callback: unset, the value ``--fast`` gives ``field`` (with it), else None (the default)."""
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        from .players.hidden import FAST

        return getattr(FAST, field) if value is None and ctx.meta.get("dsolve.fast") else value
    return callback


_SAMPLE_OPTIONS = (  # the hidden-information player's
    click.option("--fast", is_flag=True, is_eager=True, expose_value=False, callback=_fast_player,
                 help="the faster, weaker hidden-information player: 8 worlds of 2000 positions "
                      "(about a quarter of the CPU; --samples and --sample-nodes still apply)"),
    click.option("--samples", type=click.IntRange(min=1), metavar="N", callback=_sample_setting("samples"),
                 help="worlds the hidden-information player deals per decision (default 16)"),
    click.option("--sample-nodes", type=click.IntRange(min=1), metavar="N", callback=_sample_setting("max_nodes"),
                 help="the core's positions per world (default 10000)"),
)
_HIDDEN_OPTIONS = (
    click.option("--plays", type=click.IntRange(min=1), default=4, show_default=True, metavar="N",
                 help="plays of each player per deal (different sampling seeds)"),
    *_SAMPLE_OPTIONS,
    click.option("--sampling-seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="K",
                 help="seed of the players' random choices"),
)


def hidden_options(command: F) -> F:
    """Add ``--plays``, ``--samples``, ``--sample-nodes`` and ``--sampling-seed``."""
    for decorator in reversed(_HIDDEN_OPTIONS):
        command = decorator(command)
    return command


def _hidden_from_options(samples: int | None, sample_nodes: int | None) -> Any:
    from .players.hidden import HiddenOptions

    defaults = HiddenOptions()
    return dataclasses.replace(defaults, samples=samples or defaults.samples,
                               max_nodes=sample_nodes or defaults.max_nodes)


@main.command(cls=_SeedCommand)
@deal_options
@rules_options
@hidden_options
@click.option("--json", "as_json", is_flag=True,
              help="print one JSON object: seed, rules, verdict, moves, hidden_win_rate, hidden_plays, "
                   "careless_win_rate, traps, difficulty and the rest of the grade")
@click.option("--timeout", type=_Limit(), metavar="S",
              help="seconds for the thoughtful verdict (unknown: the deal is not played)")
def grade(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
          plays: int, samples: int | None, sample_nodes: int | None, sampling_seed: int, as_json: bool,
          timeout: float | None, **rules: Any) -> None:
    """Grade a deal for a race table: its thoughtful verdict, how often a player who cannot see
    the face-down cards wins it (and a careless one), the traps it holds, its difficulty."""
    from .players.grade import grade as grade_deal

    deal = choose_deal(seed, convention, deal_file, shape)
    chosen = choose_rules(**rules)
    label = deal_file if deal_file is not None else int(seed) if seed and seed.isdigit() else seed or 1
    try:
        g = grade_deal(deal, chosen, plays, seed=label, sampling=sampling_seed,
                       options=_hidden_from_options(samples, sample_nodes), timeout=timeout)
    except KeyboardInterrupt:
        click.echo("dsolve: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    click.echo(json.dumps(g.to_dict()) if as_json else g.describe())


# --- surveys -----------------------------------------------------------------------------------

def rule_sets_options(command: F) -> F:
    """:func:`rules_options` with ``--preset`` and ``--rules`` repeatable, one rule set each;
    pass them to :func:`dsolve.rules.choose_rule_sets`."""
    for decls, kwargs in reversed(_RULES_OPTIONS):
        if decls[0] in ("--preset", "--rules"):
            kwargs = {**kwargs, "multiple": True, "help": f"{kwargs['help']}; repeatable, a rule set each"}
        command = click.option(*decls, **kwargs)(command)
    return command


class _SecondsOrNone(click.ParamType):
    """A positive, finite number of seconds, or ``none`` (no limit; given as :data:`NO_LIMIT`)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        from .survey import parse_timeout

        seconds = parse_timeout(value, param.opts[0] if param is not None else "timeout")
        return NO_LIMIT if seconds is None else seconds


NO_LIMIT = "none"
SECONDS_OR_NONE = _SecondsOrNone()


def survey_limits(timeout: float | str | None, memory: int | None, max_nodes: int | None) -> Limits | None:
    """The limits given to a survey command: ``None`` if none was (the survey's own, or the
    defaults for a new one); else those given, with the default timeout unless ``--timeout``."""
    from .survey import DEFAULT_TIMEOUT, Limits

    if timeout is None and memory is None and max_nodes is None:
        return None
    seconds = DEFAULT_TIMEOUT if timeout is None else None if timeout == NO_LIMIT else timeout
    return Limits(max_nodes, seconds, memory)


_RUN_OPTIONS = (
    click.option("--seeds", metavar="FIRST-LAST", help="seeds to solve, inclusive, e.g. 1-1000000"),
    rule_sets_options,
    click.option("--deal", "convention", metavar="CONVENTION",
                 help=f"how seeds number deals: {', '.join(CONVENTIONS)} (default {DEFAULT_CONVENTION})"),
    click.option("--jobs", type=click.IntRange(min=1), metavar="N",
                 help="local worker processes (default: all cores)"),
    click.option("--scheduler", metavar="ADDRESS", help="run the chunks on this Dask scheduler instead"),
    click.option("--timeout", type=SECONDS_OR_NONE, metavar="S|none",
                 help="seconds per solve, then the deal counts as unknown (default 60 for a new "
                      "survey or a retry; a resumed survey keeps its own limits); none: no limit"),
    click.option("--memory", type=_Limit(integer=True), metavar="MB",
                 help=f"table memory per solve ({_MEMORY_HELP})"),
    click.option("--max-nodes", type=_Limit(integer=True), metavar="N", help="positions per solve"),
    click.option("--chunk-size", type=click.IntRange(min=1), metavar="N",
                 help="seeds per chunk of a new survey (default: 200 solves' worth)"),
)


def run_options(command: F) -> F:
    """Add what to survey and how (seeds, rule sets, convention, workers, limits); pass them to
    :func:`survey_from_options`."""
    for decorator in reversed(_RUN_OPTIONS):
        command = decorator(command)
    return command


_SOLVE_EACH = click.option(
    "--solve-each", is_flag=True,
    help="solve every rule set of a seed on its own, to time them (by default a verdict that follows "
         "from another rule set's is taken from it: a loss under looser rules, a win under stricter ones)")


def survey_from_options(out: str, seeds: str | None, convention: str | None, jobs: int | None,
                        scheduler: str | None, timeout: float | str | None, memory: int | None,
                        max_nodes: int | None, chunk_size: int | None, solve_each: bool,
                        **rules: Any) -> SurveyRun:
    """Run the survey chosen by :func:`run_options` and ``--solve-each`` into ``out``, with a
    progress bar."""
    from .klondike.rows import SOLVE_EACH
    from .survey import parse_seeds, run_survey  # pyarrow: loaded by the survey commands only

    if seeds is None:
        raise InputError("--seeds is required to solve a survey")
    run = run_survey(out, parse_seeds(seeds), choose_rule_sets(**rules), convention or DEFAULT_CONVENTION,
                     survey_limits(timeout, memory, max_nodes), jobs, scheduler, chunk_size, progress=True,
                     params={SOLVE_EACH: True} if solve_each else None)
    _show_set_aside(run, "solved")
    return run


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@contextmanager
def _resumable(kept: str) -> Iterator[None]:
    """On Ctrl-C, one line saying what is ``kept`` and the command that resumes, then exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        click.echo(f"dsolve: interrupted; {kept}. To resume, run: dsolve {shlex.join(sys.argv[1:])}", err=True)
        sys.exit(EXIT_INTERRUPTED)


def _show_set_aside(run: SurveyRun, done: str) -> None:
    """On stderr, the damaged chunks a survey run set aside; ``done``: what was done to their
    seeds again (solved, played)."""
    for damage in run.set_aside:
        click.echo(f"dsolve: damaged chunk moved to {damage.path} ({damage.reason}); its seeds were {done} "
                   "again", err=True)


def _show_run(run: SurveyRun, out: str, done: str, stats_command: str, unit: str = "seed") -> None:
    """One line of what a survey run did; ``done``: what was done to the seeds (solved, played),
    ``unit`` what they number."""
    click.echo(f"{_plural(run.seeds, unit)} surveyed in {out} ({run.seeds_done_before} "
               f"{'was' if run.seeds_done_before == 1 else 'were'} done before, "
               f"{_plural(run.chunks_written, 'chunk')} {done} now); see 'dsolve {stats_command} {out}'")


def _given(values: dict[str, Any], names: Iterable[str]) -> list[str]:
    """The options among ``names`` given on the command line, as typed (``--seeds``)."""
    return [p.opts[0] for p in click.get_current_context().command.params
            if p.name in names and values.get(p.name) not in (None, ())]


@main.command()
@run_options
@_SOLVE_EACH
@click.option("--out", required=True, metavar="DIR", help="survey directory: created, resumed or extended")
@click.option("--retry-unknown", is_flag=True,
              help="solve the survey's unknown rows again under --timeout, --memory, --max-nodes")
def survey(out: str, retry_unknown: bool, **options: Any) -> None:
    """Solve --seeds under each rule set into DIR, a Parquet file per chunk of seeds.

    Rerunning the same command resumes: finished chunks are skipped, damaged ones moved to
    DIR/_damaged and solved again. With --retry-unknown, the unknown rows of DIR are solved again
    under the limits given and their chunks rewritten; the manifest records the retry, and the
    wall time counts it. Progress goes to stderr: a bar on a terminal, else a line every 30 s
    (DSOLVE_PROGRESS_EVERY=SECONDS)."""
    with _resumable(f"the finished chunks are kept in {out}"):
        if retry_unknown:
            given = _given(options, ("seeds", "preset_name", "rules_text", "draw", "passes", "empty", "worry",
                                     "decks", "foundations", "convention", "chunk_size"))
            if given:
                raise InputError(f"--retry-unknown takes the survey's seeds and rules: drop {', '.join(given)}")
            from .survey import DEFAULT_LIMITS, retry_unknown as retry

            limits = survey_limits(options["timeout"], options["memory"], options["max_nodes"]) or DEFAULT_LIMITS
            done = retry(out, limits, options["jobs"], options["scheduler"], progress=True)
            click.echo(f"{_plural(done.rows, 'unknown row')} solved again in {out} ({done.still_unknown} "
                       f"still unknown, {_plural(done.chunks_written, 'chunk')} rewritten); "
                       f"see 'dsolve stats {out}'")
            return
        run = survey_from_options(out, **options)
    _show_run(run, out, "solved", "stats")


@main.command()
@run_options
@hidden_options
@click.option("--out", required=True, metavar="FILE",
              help="the picked seeds with their grades: FILE.csv or FILE.parquet (the grades are kept, "
                   "resumably, in FILE.grades/, the races of --pairs in FILE.races/)")
@click.option("--count", type=click.IntRange(min=1), metavar="N", help="list at most N seeds (the lowest)")
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard"]), help="only seeds of this band")
@click.option("--min-hidden-win-rate", type=click.FloatRange(0, 1), default=0.0, metavar="X",
              help="only seeds the hidden-information player wins at least this share of its plays")
@click.option("--pairs", is_flag=True, help="match the picked seeds two by two on their grades (two-deck tables), "
                                           "race each pair and drop those clearly uneven")
@click.option("--pair-races", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="with --pairs: races per pair (duplicate format)")
@click.option("--pair-variant", default="locked", show_default=True, type=click.Choice(VARIANTS, case_sensitive=False),
              help="with --pairs: the double solitaire variant raced")
@click.option("--pair-players", default="hidden,hidden", show_default=True, metavar="A,B",
              help="with --pairs: the seats' players (hidden, careless, hidden-own, careless-own, random)")
def pick(out: str, seeds: str | None, convention: str | None, jobs: int | None, scheduler: str | None,
         timeout: float | str | None, memory: int | None, max_nodes: int | None, chunk_size: int | None,
         plays: int, samples: int | None, sample_nodes: int | None, sampling_seed: int, count: int | None,
         difficulty: str | None, min_hidden_win_rate: float, pairs: bool, pair_races: int, pair_variant: str,
         pair_players: str, **rules: Any) -> None:
    """Grade --seeds for race tables and write the seeds that qualify, with their grades, to FILE.

    Every listed seed is proven winnable. Rerunning the same command resumes the grading and
    writes the same FILE."""
    from .pick import pick as pick_seeds, races_of, store_of
    from .players.grade import grading_options
    from .survey import parse_seeds

    if seeds is None:
        raise InputError("--seeds is required")
    chosen = choose_rule_sets(**rules)
    if len(chosen) != 1:
        raise InputError("pick grades under one rule set: give one --preset or --rules")
    if chunk_size is not None:
        raise InputError("--chunk-size is not a pick option")
    racing = None
    if pairs:
        from .races.race import setup_from_options

        racing = setup_from_options(pair_variant, "race", chosen[0].draw, chosen[0].passes, pair_players,
                                    hidden=_hidden_from_options(samples, sample_nodes),
                                    sampling_seed=sampling_seed)
    kept = f"the grades so far are kept in {store_of(Path(out))}"
    with _resumable(kept + (f", the pairs raced in {races_of(Path(out))}" if pairs else "")):
        done = pick_seeds(out, parse_seeds(seeds), chosen[0], convention=convention or DEFAULT_CONVENTION,
                          limits=survey_limits(timeout, memory, max_nodes),
                          grading=grading_options(plays, samples, sample_nodes, sampling_seed),
                          count=count, difficulty=difficulty, min_hidden_win_rate=min_hidden_win_rate,
                          pairs=pairs, pair_races=racing, pair_plays=pair_races, jobs=jobs,
                          scheduler=scheduler, progress=True)
    paired = ""
    if pairs:
        worst = max((r["pair_gap"] for r in done.rows), default=0.0)
        paired = (f" in {len(done.rows) // 2} pairs raced even (largest gap in hidden win rate {worst:.2f}, "
                  f"largest imbalance {max((abs(r['imbalance']) for r in done.rows), default=0.0):.2f})")
        if done.unpaired is not None:
            paired += f"; seed {done.unpaired} left without a pair"
    click.echo(f"{len(done.rows)} seeds written to {done.out}{paired}: {done.qualified} of {done.graded} "
               f"graded qualify, {done.winnable} proven winnable (grades in {done.store}"
               f"{f', races in {races_of(done.out)}' if pairs else ''})")


@main.command()
@click.argument("directory", metavar="DIR")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--slowest", default=5, show_default=True, type=click.IntRange(min=0), metavar="N",
              help="how many of the slowest seeds to list")
def stats(directory: str, as_json: bool, slowest: int) -> None:
    """Per rule set of the survey in DIR: verdicts, winnable % with its 95 % range (Blake & Gent:
    unknowns lost at the low end, won at the high end), solution lengths and times."""
    from .survey.stats import survey_report

    click.echo(survey_report(directory, as_json, compare=False, slowest=slowest))


@main.command()
@click.argument("directory", metavar="[DIR]", required=False)
@run_options
@_SOLVE_EACH
@click.option("--out", metavar="DIR", help="with --seeds: keep the survey in DIR (default: discard it)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def compare(directory: str | None, out: str | None, as_json: bool, **options: Any) -> None:
    """Rule sets side by side: winnable %, unknowns, solve times, solution lengths.

    From the survey in DIR, or by solving --seeds under each --preset / --rules given."""
    from .survey.stats import survey_report

    if directory is not None:
        values = {**options, "out": out, "solve_each": options["solve_each"] or None}  # a flag: given if set
        given = _given(values, values)
        if given:
            raise InputError(f"with a survey DIR, drop the options that solve one: {', '.join(given)}")
        click.echo(survey_report(directory, as_json, compare=True))
        return
    typed = [name for name in options["preset_name"]
             if choose_rules(name, None, options["draw"], options["passes"], options["empty"],
                             options["worry"], options["decks"], options["foundations"]) == preset(name)]
    with tempfile.TemporaryDirectory(prefix="dsolve-compare-") as temp:
        survey_from_options(out or temp, **options)
        click.echo(survey_report(out or temp, as_json, compare=True, labels=preset_labels(typed)))


# --- race ----------------------------------------------------------------------------------------

class _RaceGroup(click.Group):
    """``dsolve race SEED_A SEED_B ...`` races a pair (the ``pair`` command, the default);
    ``dsolve race survey`` and ``dsolve race stats`` are commands of their own."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ctx.help_option_names):
            args = ["pair", *args]
        return super().parse_args(ctx, args)


_RACE_OPTIONS = (
    click.option("--variant", default="locked", show_default=True, type=click.Choice(VARIANTS, case_sensitive=False),
                 help="locked: only the foundations are shared; open: also the other tableau (build on it, "
                      "take its top card onward); milder: build on the other tableau, never move its cards"),
    click.option("--win", default="first", show_default=True, type=click.Choice(WINS, case_sensitive=False),
                 help="first: the first seat to empty its tableau, stock and waste wins; count: a full game, "
                      "won by the most cards placed on the foundations"),
    click.option("--mode", default="race", show_default=True, type=click.Choice(MODES, case_sensitive=False),
                 help="race: both seats at once (think times); turns: the Pagat turns"),
    click.option("--draw", default="3", show_default=True, metavar="1|3", help="cards turned from the stock at a time"),
    click.option("--passes", default="unlimited", show_default=True, metavar="N|unlimited",
                 help="trips through the stock"),
    click.option("--plays", default=20, show_default=True, type=int, metavar="N",
                 help="races (of each pair), the decks swapped between the seats every other race"),
    click.option("--players", default="hidden,hidden", show_default=True, metavar="A,B",
                 help="seat A's and seat B's player: hidden, careless, hidden-own, careless-own, random (one name: both)"),
    click.option("--think", default="1,1", show_default=True, metavar="A,B",
                 help="mean think time per move of seat A and seat B, seconds (race mode)"),
    *_SAMPLE_OPTIONS,
    click.option("--sampling-seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="K",
                 help="varies every random number of the races"),
)


def race_options(command: F) -> F:
    """Add what a pair's races play (rules, mode, players, races, think times, the hidden player's
    options, the sampling seed); pass them to :func:`_race_setup`."""
    for decorator in reversed(_RACE_OPTIONS):
        command = decorator(command)
    return command


def _race_setup(variant: str, win: str, mode: str, draw: str, passes: str, players: str, think: str,
                samples: int | None, sample_nodes: int | None, sampling_seed: int) -> Any:
    from .races.race import setup_from_options

    return setup_from_options(variant, mode, draw, passes, players, think,
                              _hidden_from_options(samples, sample_nodes), sampling_seed, win)


@main.group(cls=_RaceGroup)
def race() -> None:
    """Double solitaire (two seats, eight shared foundations): race a pair of seeds (the default:
    'dsolve race SEED_A SEED_B'), survey many pairs, and their statistics."""


@race.command("pair", cls=_SeedCommand)
@click.argument("seed_a")
@click.argument("seed_b")
@race_options
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N", help="worker processes")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def race_pair_command(seed_a: str, seed_b: str, plays: int, jobs: int, as_json: bool, **options: Any) -> None:
    """Race SEED_A's deck against SEED_B's at double solitaire (two seats, eight shared
    foundations) and report each deck's win share, draws, cards contributed and moves to finish,
    and the pair's imbalance, with 95 % intervals. (The default command: 'dsolve race SEED_A SEED_B'.)"""
    from .races.race import format_report, race_pair

    rep = race_pair((seed_a, seed_b), _race_setup(**options), plays, jobs)
    click.echo(json.dumps(rep.to_dict(), indent=2) if as_json else format_report(rep))


@race.command("survey")
@click.option("--pairs", "pair_range", metavar="FIRST-LAST",
              help="pair numbers, inclusive: pair k races seed 2k-1 against seed 2k (with --pairs-file: the "
                   "k-th pair listed; default all of them)")
@click.option("--pairs-file", metavar="FILE", help="race the pairs listed in FILE, a 'dsolve pick --pairs' output")
@race_options
@click.option("--out", required=True, metavar="DIR", help="survey directory: created, resumed or extended")
@click.option("--jobs", type=click.IntRange(min=1), metavar="N", help="local worker processes (default: all cores)")
@click.option("--scheduler", metavar="ADDRESS", help="run the chunks on this Dask scheduler instead")
@click.option("--chunk-size", type=click.IntRange(min=1), metavar="N",
              help="pairs per chunk of a new survey (default 4)")
def race_survey(pair_range: str | None, pairs_file: str | None, plays: int, out: str, jobs: int | None,
                scheduler: str | None, chunk_size: int | None, **options: Any) -> None:
    """Race --pairs (or the pairs of --pairs-file) --plays times each into DIR, a Parquet file per
    chunk of pairs, a row per pair: each deck's wins, draws, cards contributed, moves to finish,
    and the pair's imbalance with its interval.

    Rerunning the same command resumes: finished chunks are skipped, damaged ones moved to
    DIR/_damaged and raced again. Progress goes to stderr as for 'dsolve survey'."""
    from .pick import read_pairs
    from .races.rows import survey as race_survey_run
    from .survey import parse_seeds

    setup = _race_setup(**options)
    listed = None
    if pairs_file is not None:
        convention, listed = read_pairs(Path(pairs_file))
        setup = dataclasses.replace(setup, convention=convention)
        pair_range = pair_range or f"1-{len(listed)}"
    elif pair_range is None:
        raise InputError("--pairs or --pairs-file is required")
    with _resumable(f"the finished chunks are kept in {out}"):
        run = race_survey_run(out, parse_seeds(pair_range), setup, plays, listed, jobs, scheduler, chunk_size,
                              progress=True)
    _show_set_aside(run, "raced")
    _show_run(run, out, "raced", "race stats", "pair")


@race.command("stats")
@click.argument("directory", metavar="DIR")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def race_stats(directory: str, as_json: bool) -> None:
    """From the race survey in DIR, per setting: the imbalance of the pairs (mean, quantiles, mean
    |imbalance|), the share of pairs whose imbalance interval excludes 0, the draw rate, cards
    contributed, moves and ends, with 95 % intervals."""
    from .races.rows import open_races
    from .races.stats import format_summary, summarize

    found = open_races(directory)
    summary = summarize(found.rows.to_pylist())
    races = sum(s["races"] for s in summary)
    _show_survey_stats(found, {"settings": summary}, races, "races", format_summary(summary), as_json)


# --- crapette ----------------------------------------------------------------------------------

@main.group()
def crapette() -> None:
    """Crapette (Double Solitaire): play rounds and matches between players, and their statistics."""


def _crapette_setup(players: str, rules_text: str | None) -> tuple[tuple[str, str], Any]:
    from .crapette.rounds import parse_players
    from .crapette.rules import Options

    return parse_players(players), Options.parse(rules_text or "")


_CRAPETTE_OPTIONS = (
    click.option("--players", default="greedy,greedy", show_default=True, metavar="A,B",
                 help="seat A's and seat B's player: random, greedy, search, planner (one name: both)"),
    click.option("--rules", "rules_text", metavar="SPEC",
                 help="rules options, e.g. load_match=suit,reserve_first=no (see the README)"),
    click.option("--json", "as_json", is_flag=True, help="print JSON"),
)


def crapette_options(command: F) -> F:
    """Add ``--players``, ``--rules`` and ``--json``."""
    for decorator in reversed(_CRAPETTE_OPTIONS):
        command = decorator(command)
    return command


@crapette.command("play")
@click.argument("seed")
@crapette_options
@click.option("--match", "whole_match", is_flag=True,
              help="play a match to the rules' target points (300 unless --rules target=N; SEED seeds its deals)")
def crapette_play(seed: str, players: str, rules_text: str | None, as_json: bool, whole_match: bool) -> None:
    """Play the round dealt by SEED (or with --match a match) and print the moves and the score."""
    from .crapette import rounds

    seats, options = _crapette_setup(players, rules_text)
    if whole_match:
        match = rounds.play_match(seed, seats, options)
        click.echo(json.dumps(rounds.match_record(match)) if as_json else rounds.format_match(match))
    else:
        rnd = rounds.play_round(seed, seats, options)
        click.echo(json.dumps(rounds.round_record(rnd, seats)) if as_json else rounds.format_round(rnd, seats))


@crapette.command("survey")
@click.option("--seeds", required=True, metavar="FIRST-LAST", help="round seeds, inclusive, e.g. 1-10000")
@click.option("--players", default="greedy", show_default=True, metavar="A,B",
              help="seat A's and seat B's player: random, greedy, search, planner (one name: both); two different "
                   "players play each seed in both seat orders")
@click.option("--rules", "rules_text", metavar="SPEC",
              help="rules options, e.g. load_match=suit,reserve_first=no (see the README)")
@click.option("--out", required=True, metavar="DIR", help="survey directory: created, resumed or extended")
@click.option("--jobs", type=click.IntRange(min=1), metavar="N", help="local worker processes (default: all cores)")
@click.option("--scheduler", metavar="ADDRESS", help="run the chunks on this Dask scheduler instead")
@click.option("--chunk-size", type=click.IntRange(min=1), metavar="N",
              help="seeds per chunk of a new survey (default: 200 rounds' worth)")
def crapette_survey(seeds: str, players: str, rules_text: str | None, out: str, jobs: int | None,
                    scheduler: str | None, chunk_size: int | None) -> None:
    """Play the rounds of --seeds between --players into DIR, a Parquet file per chunk of seeds.

    Rerunning the same command resumes: finished chunks are skipped, damaged ones moved to
    DIR/_damaged and played again. Progress goes to stderr as for 'dsolve survey'."""
    from .crapette.rows import survey as play_survey
    from .crapette.rules import Options
    from .survey import parse_seeds

    with _resumable(f"the finished chunks are kept in {out}"):
        run = play_survey(out, parse_seeds(seeds), players, Options.parse(rules_text or ""), jobs, scheduler,
                          chunk_size, progress=True)
    _show_set_aside(run, "played")
    _show_run(run, out, "played", "crapette stats")


@crapette.command("stats")
@click.argument("directory", metavar="DIR")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def crapette_stats(directory: str, as_json: bool) -> None:
    """From the Crapette survey in DIR: the first player's win share (95 % Wilson interval),
    stalemates, moves and turns per round, points per round, rounds per match to the rules'
    target (300 by default), and with two player types each one's win share against the other."""
    from .crapette.rows import options_of, summarize_survey
    from .crapette.stats import format_summary

    found, summary = summarize_survey(directory)
    text = f"rules: {options_of(found.manifest.params)}\n{format_summary(summary)}"
    _show_survey_stats(found, summary, summary["rounds"], "rounds", text, as_json)


def _show_survey_stats(found: Any, summary: dict, count: int, unit: str, text: str, as_json: bool) -> None:
    """Print a survey's statistics: its manifest, wall time and ``summary`` as JSON, or its
    description, wall time and ``count`` ``unit`` per second, then ``text``."""
    from .survey import RunTime

    wall = RunTime.of(found.chunks)
    if as_json:
        click.echo(json.dumps({"survey": json.loads(found.manifest.to_json()),
                               "wall_time": dataclasses.asdict(wall), **summary}, indent=2))
    else:
        rate = f", {count / wall.seconds:.4g} {unit}/s" if wall.seconds > 0 else ""
        click.echo(f"{found.manifest.describe(found.rows.num_rows)}\n{wall.describe(found.manifest.kind.unit)}{rate}"
                   f"\n\n{text}")


# --- view --------------------------------------------------------------------------------------

@main.command(cls=_SeedCommand)
@deal_options
@rules_options
@click.option("--hints", is_flag=True, help="picture the deal's hints: the board after each legal move, "
                                            "marked keeps / loses / unknown")
@click.option("--race", "race_file", metavar="RECORD",
              help="picture a double-solitaire race record (JSON, or JSON lines, gzipped or not)")
@click.option("--crapette", "crapette_file", metavar="RECORD",
              help="picture a Crapette round record ('dsolve crapette play SEED --json'; a match's: see --index)")
@click.option("--index", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="the N-th record of a RECORD file holding several (a line each, or a match's rounds)")
@click.option("--out", metavar="PAGE", help="write the stepping page (HTML) to PAGE")
@click.option("--svg", "svg_out", metavar="FILE", help="write the first board only, as a standalone SVG")
@click.option("--timeout", type=_Limit(), metavar="S",
              help="seconds for the solve (with --hints: to decide each move, default 10)")
@click.option("--memory", type=_Limit(), metavar="MB", help=f"memory for the transposition tables ({_MEMORY_HELP})")
@click.option("--max-nodes", type=_Limit(integer=True), metavar="N",
              help="give up after N positions (per move with --hints)")
def view(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None, hints: bool,
         race_file: str | None, crapette_file: str | None, index: int, out: str | None, svg_out: str | None,
         timeout: float | None, memory: float | None, max_nodes: int | None, **rules: Any) -> None:
    """Draw a game as a page to step through in a browser: a deal's winning line (SEED or --file,
    under the rules options), its hints (--hints), a race record (--race) or a Crapette round
    record (--crapette). The page is one HTML file, cards drawn inline; buttons and the arrow,
    Home and End keys step through it.

    A deal that is not won (unwinnable, or unknown within --timeout or --max-nodes) gets a page of the deal
    alone and a line saying so; the exit code is then that of 'dsolve check' (0, or 3 unknown)."""
    from .view import page as pages

    if (out is None) == (svg_out is None):
        raise InputError("give --out PAGE or --svg FILE (one of them)")
    records = [name for name, given in (("--race", race_file), ("--crapette", crapette_file)) if given]
    klondike = [name for name, given in (("SEED", seed), ("--file", deal_file), ("--hints", hints)) if given]
    if len(records) > 1 or (records and klondike):
        raise InputError(f"{' and '.join(records + klondike)} picture different games: give one")
    status, note = EXIT_DECIDED, None
    if records:
        from .view import crapette as crapette_pictures, race as race_pictures
        from .view.records import read_record

        pictures = race_pictures if race_file else crapette_pictures
        path = race_file or crapette_file
        record = read_record(path, index)  # type: ignore[arg-type]
        frames = pictures.frames(record)
        title = f"{'Race' if race_file else 'Crapette round'}: {path}"
        summary, decks = pictures.summary(record), 2
    else:
        from .klondike.api import hints as find_hints, solve
        from .view import klondike as pictures

        chosen = choose_rules(**rules)
        deal = choose_deal(seed, convention, deal_file, shape, chosen.decks)
        title = deal_file or f"Deal {int(seed) if seed else 1} ({convention or DEFAULT_CONVENTION})"
        summary, decks = str(chosen), 1
        try:
            if svg_out is None and hints:
                found = find_hints(deal, chosen, timeout=10.0 if timeout is None else timeout, memory_mb=memory,
                                   max_nodes=max_nodes)
            elif svg_out is None:
                result = solve(deal, chosen, timeout=timeout, memory_mb=memory, max_nodes=max_nodes)
        except KeyboardInterrupt:
            click.echo("dsolve: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        if svg_out is not None:
            frames = [pages.Frame(pictures.board(deal, chosen.draw), "the deal")]
        elif hints:
            frames, title = pictures.hint_frames(deal, chosen, found), f"Hints: {title}"
        elif result.verdict == "winnable":
            frames, title = pictures.line_frames(deal, chosen, result.moves), f"Winning line: {title}"
        else:
            note = f"{title}: {result.describe()}; no winning line to show, the page holds the deal alone"
            frames = [pages.Frame(pictures.board(deal, chosen.draw), f"the deal: {result.describe()}")]
            status = EXIT_DECIDED if result.decided else EXIT_UNKNOWN
    if svg_out is not None:
        from .view.svg import standalone

        pages.write(svg_out, standalone(frames[0].svg, decks) + "\n")
        click.echo(f"{svg_out}: the first board")
    else:
        pages.write(out, pages.page(title, summary, frames, decks))  # type: ignore[arg-type]
        click.echo(note or f"{out}: {len(frames)} frames")
    sys.exit(status)
