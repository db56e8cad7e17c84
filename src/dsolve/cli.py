"""The ``dsolve`` command line: commands parse options, call the library and print.

Every :class:`InputError` and every click usage error ends as one line ``dsolve: error: ...`` on
stderr with exit code 2. Commands share their options through :func:`deal_options` with
:func:`load_from_options` (which deal) and :func:`rules_options` with :func:`rules_from_options`
(which rules).
"""
from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from . import __version__
from .cards import STANDARD, DeckShape
from .deal import Deal
from .dealfiles import FORMATS, dump_deal, load_deal
from .deals import CONVENTIONS, exact_index, make_deal
from .errors import InputError
from .render import deal_json, render
from .rules import PRESETS, STANDARD_RULES, Rules, preset, with_options

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_CONVENTION = "solvitaire"
# Bare ``dsolve``: click (>= 8.2) shows the help through this usage error; let it.
_HELP_REQUEST = getattr(click.exceptions, "NoArgsIsHelpError", ())


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


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dsolve")
def main() -> None:
    """Decide Klondike deals, and show and convert them."""


# --- shared options ----------------------------------------------------------------------------

def deal_options(command: F) -> F:
    """Add ``SEED``, ``--deal``, ``--file`` and ``--shape``; pass them to :func:`load_from_options`."""
    for decorator in reversed((
        click.argument("seed", required=False),
        click.option("--deal", "convention", metavar="CONVENTION",
                     help=f"how SEED numbers deals: {', '.join(CONVENTIONS)} "
                          f"(default {DEFAULT_CONVENTION})"),
        click.option("--file", "deal_file", metavar="PATH",
                     help="read the deal from a file (Solvitaire JSON or dsolve text) instead"),
        click.option("--shape", metavar="SxR/C",
                     help="deck for a generated deal: suits x ranks / columns, e.g. 3x5/4 "
                          "(default 4x13/7)"),
    )):
        command = decorator(command)
    return command


def load_from_options(seed: str | None, convention: str | None, deal_file: str | None,
                      shape: str | None) -> Deal:
    """The deal chosen by :func:`deal_options`: from ``--file``, else ``SEED`` (default 1) dealt
    by ``--deal`` (default solvitaire) with the ``--shape`` deck."""
    if deal_file is not None:
        given = [name for name, value in (("SEED", seed), ("--deal", convention), ("--shape", shape))
                 if value is not None]
        if given:
            raise InputError(f"--file gives the whole deal; drop {', '.join(given)}")
        return load_deal(deal_file)
    deck = DeckShape.parse(shape) if shape is not None else STANDARD
    return make_deal(convention or DEFAULT_CONVENTION, "1" if seed is None else seed, deck)


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
)


def rules_options(command: F) -> F:
    """Add ``--preset``, ``--rules``, ``--draw``, ``--passes``, ``--empty`` and
    ``--worry/--no-worry``; pass them to :func:`rules_from_options`."""
    for decls, kwargs in reversed(_RULES_OPTIONS):
        command = click.option(*decls, **kwargs)(command)
    return command


def rules_from_options(preset_name: str | None, rules_text: str | None, draw: str | None,
                       passes: str | None, empty: str | None, worry: bool | None) -> Rules:
    """The rules chosen by :func:`rules_options`: ``--preset`` or ``--rules`` (default standard),
    then the single options on top."""
    if preset_name is not None and rules_text is not None:
        raise InputError("give --preset or --rules, not both")
    if preset_name is not None:
        base = preset(preset_name)
    elif rules_text is not None:
        base = Rules.parse(rules_text)
    else:
        base = STANDARD_RULES
    return with_options(base, draw=draw, passes=passes, empty=empty, worry=worry)


# --- commands ----------------------------------------------------------------------------------

@main.command("rules")
@rules_options
def rules_command(**options: Any) -> None:
    """List the rule presets and the rules options; with options, print the rules they give."""
    if any(value is not None for value in options.values()):
        click.echo(rules_from_options(**options))
        return
    width = max(map(len, PRESETS))
    click.echo("Presets: name, rules, source")
    for p in PRESETS.values():
        click.echo(f"  {p.name:<{width}}  {p.rules}\n  {'':<{width}}  {p.source}")
    click.echo("\nRules options (given to 'dsolve rules', it prints the rules they resolve to):")
    for decls, kwargs in _RULES_OPTIONS:
        label = f"  {decls[0]} {kwargs.get('metavar', '')}".ljust(30)
        click.echo(textwrap.fill(kwargs["help"], 100, initial_indent=label, subsequent_indent=" " * 30))
    click.echo("--draw, --passes, --empty and --worry/--no-worry override --preset or --rules.")


@main.command()
@deal_options
@click.option("--json", "as_json", is_flag=True,
              help="print JSON: tableau (bottom -> top), stock (first turned first), face_down, exact")
def show(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
         as_json: bool) -> None:
    """Draw a deal: SEED (default 1) under --deal, or --file."""
    deal = load_from_options(seed, convention, deal_file, shape)
    click.echo(json.dumps(deal_json(deal)) if as_json else render(deal))


@main.command()
@deal_options
@click.option("--to", "fmt", required=True, type=click.Choice([*FORMATS, "exact"]),
              help="json: Solvitaire's deal file; text: dsolve's layout; exact: the 256-bit index")
@click.option("--out", metavar="PATH", help="write to PATH instead of standard output")
def convert(seed: str | None, convention: str | None, deal_file: str | None, shape: str | None,
            fmt: str, out: str | None) -> None:
    """Write a deal (SEED under --deal, or --file) in another format."""
    deal = load_from_options(seed, convention, deal_file, shape)
    text = f"{exact_index(deal)}\n" if fmt == "exact" else dump_deal(deal, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write {out!r}: {err.strerror}") from None
