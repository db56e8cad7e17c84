"""The rules model: draw size, pass limit, empty-column rule, worrying back, decks and
foundations; named presets."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .errors import InputError

EmptyRule = Literal["king", "any", "none"]
EMPTY_RULES: tuple[EmptyRule, ...] = ("king", "any", "none")
UNLIMITED = "unlimited"
MAX_DRAW = 13
FOUNDATION_RULES = (4, 8)


@dataclass(frozen=True)
class Rules:
    """One Klondike rule set.

    ``draw``: cards turned from the stock at a time (1..13). ``passes``: trips through the stock,
    a positive integer or ``None`` / ``"unlimited"`` (3 passes = 2 redeals). ``empty_rule``: what may fill an empty column
    (``king``: a king or king-headed run; ``any``: any card or run; ``none``: nothing).
    ``worry_back``: whether a card may move from a foundation back to the tableau.
    ``decks``: copies of each card (1, or 2 for Double Klondike). ``foundations``: 4, one per suit
    (with two decks built A..K, then the suit's second ace on that king and A..K again), or 8
    (two decks only: two piles per suit, each A..K).
    """

    draw: int = 3
    passes: int | None = None
    empty_rule: EmptyRule = "king"
    worry_back: bool = True
    decks: int = 1
    foundations: int = 4

    def __post_init__(self) -> None:
        if self.passes == UNLIMITED:
            object.__setattr__(self, "passes", None)
        if isinstance(self.draw, bool) or not isinstance(self.draw, int) or not 1 <= self.draw <= MAX_DRAW:
            raise InputError(f"draw must be 1..{MAX_DRAW}, got {self.draw!r}")
        if self.passes is not None and (
            isinstance(self.passes, bool) or not isinstance(self.passes, int) or self.passes < 1
        ):
            raise InputError(f"passes must be a positive integer or {UNLIMITED!r}, got {self.passes!r}")
        if self.empty_rule not in EMPTY_RULES:
            raise InputError(f"empty must be one of {', '.join(EMPTY_RULES)}, got {self.empty_rule!r}")
        if not isinstance(self.worry_back, bool):
            raise InputError(f"worry must be yes or no, got {self.worry_back!r}")
        if self.decks not in (1, 2) or isinstance(self.decks, bool):
            raise InputError(f"decks must be 1 or 2, got {self.decks!r}")
        if self.foundations not in FOUNDATION_RULES or isinstance(self.foundations, bool):
            raise InputError(f"foundations must be 4 or 8, got {self.foundations!r}")
        if self.foundations == 8 and self.decks != 2:
            raise InputError("8 foundations need two decks (--decks 2)")

    def __str__(self) -> str:
        """``draw=3,passes=unlimited,empty=king,worry=yes``; two-deck rules add
        ``,decks=2,foundations=4|8`` (one-deck rules strings are as they always were)."""
        passes = "unlimited" if self.passes is None else str(self.passes)
        worry = "yes" if self.worry_back else "no"
        text = f"draw={self.draw},passes={passes},empty={self.empty_rule},worry={worry}"
        if self.decks != 1:
            text += f",decks={self.decks},foundations={self.foundations}"
        return text

    @classmethod
    def parse(cls, text: str) -> "Rules":
        """Parse ``draw=3,passes=3,empty=any,worry=no,decks=2,foundations=8`` (any subset; the
        rest default) or a preset name."""
        text = text.strip()
        if "=" not in text:
            return preset(text)
        fields: dict[str, str] = {}
        for part in text.split(","):
            key, sep, value = part.partition("=")
            key = key.strip().lower()
            if not sep or key not in RULES_KEYS:
                raise InputError(f"bad rules item {part.strip()!r} (keys: {', '.join(RULES_KEYS)})")
            fields[key] = value.strip()
        return with_options(cls(), **fields)

    def relaxes(self, other: "Rules") -> bool:
        """Whether every play legal under ``other`` is legal under these rules, so that a deal won
        under ``other`` is won under these and a deal lost under these is lost under ``other``.

        True for the same decks and foundations with: a draw that divides ``other``'s (turning
        ``N`` cards at once leaves the stock and waste as ``N / d`` turns of ``d`` do, the last,
        short turn included, and a pass ends when the stock does either way), at least as many
        passes, an empty-column rule at least as wide (none, then king, then any: each lets in
        what the one before does) and worrying back where ``other`` allows it. Reflexive.
        """
        return (self.decks == other.decks and self.foundations == other.foundations
                and other.draw % self.draw == 0
                and (self.passes is None or (other.passes is not None and self.passes >= other.passes))
                and EMPTY_WIDTH[self.empty_rule] >= EMPTY_WIDTH[other.empty_rule]
                and self.worry_back >= other.worry_back)


EMPTY_WIDTH = {"none": 0, "king": 1, "any": 2}  # what each empty-column rule lets in grows
RULES_KEYS = ("draw", "passes", "empty", "worry", "decks", "foundations")


def parse_draw(value: str | int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"draw must be a number 1..{MAX_DRAW}, got {value!r}") from None


def parse_passes(value: str | int | None) -> int | None:
    """A positive integer, or ``None`` for ``unlimited`` (as typed, in any case)."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text == UNLIMITED:
        return None
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise InputError(f"passes must be a positive integer or {UNLIMITED!r}, got {value!r}")


def parse_worry(value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "y", "true", "1", "on"):
        return True
    if text in ("no", "n", "false", "0", "off"):
        return False
    raise InputError(f"worry must be yes or no, got {value!r}")


def parse_count(name: str, value: str | int, allowed: tuple[int, ...]) -> int:
    """A whole number among ``allowed`` (``decks`` 1|2, ``foundations`` 4|8), as typed."""
    text = str(value).strip()
    if not text.isdigit() or int(text) not in allowed:
        raise InputError(f"{name} must be {' or '.join(map(str, allowed))}, got {value!r}")
    return int(text)


def with_options(
    base: Rules,
    draw: str | int | None = None,
    passes: str | int | None = None,
    empty: str | None = None,
    worry: str | bool | None = None,
    decks: str | int | None = None,
    foundations: str | int | None = None,
) -> Rules:
    """``base`` with the given option values (as typed by a user) replaced. One deck always
    has 4 foundations: ``decks=1`` alone resets them."""
    changes: dict[str, object] = {}
    if draw is not None:
        changes["draw"] = parse_draw(draw)
    if passes is not None:
        changes["passes"] = parse_passes(passes)
    if empty is not None:
        changes["empty_rule"] = str(empty).strip().lower()
    if worry is not None:
        changes["worry_back"] = parse_worry(worry)
    if decks is not None:
        changes["decks"] = parse_count("decks", decks, (1, 2))
        if changes["decks"] == 1 and foundations is None:
            changes["foundations"] = 4
    if foundations is not None:
        changes["foundations"] = parse_count("foundations", foundations, FOUNDATION_RULES)
    return replace(base, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Preset:
    name: str
    rules: Rules
    source: str


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("standard", Rules(3, None, "king", True),
               "research standard: thoughtful Klondike, draw 3 (Blake & Gent; Solvitaire; lonelybot)"),
        Preset("standard-1", Rules(1, None, "king", True),
               "research standard with draw 1 (Blake & Gent; lonelybot)"),
        Preset("race", Rules(1, None, "king", True),
               "same-deal race table (klondike-race-same-deal.txt)"),
        Preset("double-open-1", Rules(1, None, "king", False),
               "double solitaire open race, turn one (double-solitaire-open-race.txt)"),
        Preset("double-open-3", Rules(3, None, "king", False),
               "double solitaire open race, turn three (double-solitaire-open-race.txt)"),
        Preset("double-house-3-pass", Rules(3, 3, "king", False),
               "double solitaire with the three-pass house limit (double-solitaire-open-race.txt)"),
        Preset("simultaneous-fr", Rules(3, None, "king", False),
               "Simultaneous Solitaire, French page: draw 3, unlimited (simultaneous-solitaire-fr.txt)"),
        Preset("double-klondike", Rules(3, None, "any", True, decks=2, foundations=4),
               "Double Klondike: two decks, 9 piles, 4 foundations built A..K twice, draw 3, "
               "unlimited, any card in a space (double-klondike.txt)"),
        Preset("double-klondike-8", Rules(3, None, "any", True, decks=2, foundations=8),
               "Double Klondike with 8 foundations, two per suit, each A..K (double-klondike.txt's "
               "variant; Solvitaire's two-deck Klondike)"),
        Preset("single-pass", Rules(1, 1, "king", True),
               "single pass through the stock, draw 1 (casino 'Vegas' draw one)"),
        Preset("single-pass-3", Rules(3, 1, "king", True),
               "single pass through the stock, draw 3"),
        Preset("casino", Rules(3, 3, "king", True),
               "three-pass casino Klondike, draw 3 (Vegas three-pass)"),
    )
}


def preset(name: str) -> Rules:
    """The rules of a named preset."""
    try:
        return PRESETS[name.strip().lower()].rules
    except KeyError:
        raise InputError(f"unknown preset {name!r} (see 'dsolve rules')") from None


STANDARD_RULES = PRESETS["standard"].rules


def choose_rules(preset_name: str | None = None, rules_text: str | None = None, draw: str | None = None,
                 passes: str | None = None, empty: str | None = None, worry: bool | None = None,
                 decks: str | None = None, foundations: str | None = None) -> Rules:
    """The rules a user chose (as the CLI's rules options): a preset or a rules string (default
    standard), not both, then the single options on top."""
    if preset_name is not None and rules_text is not None:
        raise InputError("give --preset or --rules, not both")
    if preset_name is not None:
        base = preset(preset_name)
    elif rules_text is not None:
        base = Rules.parse(rules_text)
    else:
        base = STANDARD_RULES
    return with_options(base, draw=draw, passes=passes, empty=empty, worry=worry, decks=decks,
                        foundations=foundations)


def choose_rule_sets(preset_name: Sequence[str] = (), rules_text: Sequence[str] = (), draw: str | None = None,
                     passes: str | None = None, empty: str | None = None, worry: bool | None = None,
                     decks: str | None = None, foundations: str | None = None) -> list[Rules]:
    """A rule set per preset and rules string given (default standard), the single options on top
    of each (:func:`choose_rules`)."""
    bases = [(name, None) for name in preset_name] + [(None, text) for text in rules_text] or [(None, None)]
    return [choose_rules(name, text, draw, passes, empty, worry, decks, foundations) for name, text in bases]


def preset_labels(given: Iterable[str] = ()) -> dict[str, str]:
    """Rules strings -> preset names to show for them: the presets ``given`` (as typed, without
    single options changing them), and a preset whose rules no other preset shares."""
    sharing: dict[str, list[str]] = {}
    for p in PRESETS.values():
        sharing.setdefault(str(p.rules), []).append(p.name)
    labels = {rules: names[0] for rules, names in sharing.items() if len(names) == 1}
    labels.update((str(preset(name)), name.strip().lower()) for name in given)
    return labels
