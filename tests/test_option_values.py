"""One rule for option values in the CLI, the rules string and the Python API: ``passes`` is a
positive integer or ``unlimited``; limits are positive finite numbers; the default table memory
is sized from the machine. And the API's rules argument and its results' repr."""
import math

import pytest

from dsolve import limits
from dsolve.klondike import api
from dsolve.errors import InputError
from dsolve.klondike.result import LIMITS
from dsolve.rules import Rules, preset, with_options

from conftest import fails


@pytest.mark.parametrize("passes", [0, -1, "0", "-2", "inf", "none", "nan", "1.5", "", math.inf, 2.0, True])
def test_passes_is_a_positive_integer_or_unlimited_everywhere(passes):
    with pytest.raises(InputError, match="passes must be a positive integer or 'unlimited'"):
        if isinstance(passes, str):
            Rules.parse(f"passes={passes}")
        else:
            Rules(passes=passes)
    with pytest.raises(InputError, match="passes must be a positive integer or 'unlimited'"):
        with_options(Rules(), passes=str(passes))
    assert "passes must be a positive integer or 'unlimited'" in fails("rules", "--passes", str(passes))


def test_passes_values_that_are_accepted():
    assert Rules(passes="unlimited") == Rules(passes=None) == Rules.parse("passes=Unlimited")
    assert Rules.parse("passes=3") == Rules(passes=3) == with_options(Rules(), passes=" 3 ")


@pytest.mark.parametrize("name, value", [
    ("timeout", math.nan), ("timeout", math.inf), ("timeout", 0), ("timeout", -1), ("timeout", "5"),
    ("memory_mb", math.nan), ("memory_mb", -math.inf), ("memory_mb", 0.0), ("max_nodes", 1.5),
    ("max_nodes", math.nan), ("max_nodes", 0), ("max_nodes", True),
])
def test_api_limits_are_positive_and_finite(name, value):
    with pytest.raises(InputError, match=f"{name} must be a positive"):
        api.check(1, **{name: value})


@pytest.mark.parametrize("option", ["--timeout", "--memory", "--max-nodes"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-3"])
def test_cli_limits_are_positive_and_finite(option, value):
    assert f"{option} must be a positive" in fails("check", "1", option, value)
    assert f"{option} must be a positive" in fails("survey", "--seeds", "1-2", "--out", "unused", option, value)


def test_default_memory_is_a_share_of_the_available_memory(monkeypatch):
    monkeypatch.setattr(limits, "available_memory_mb", lambda: 10_000.0)
    assert limits.default_memory_mb() == 5000
    assert limits.default_memory_mb(4) == 1250
    assert limits.default_memory_mb(100) == limits.MIN_MEMORY_MB
    monkeypatch.setattr(limits, "available_memory_mb", lambda: 10.0**6)
    assert limits.default_memory_mb() == limits.MAX_MEMORY_MB
    monkeypatch.setattr(limits, "available_memory_mb", lambda: None)
    assert limits.default_memory_mb() == limits.MIN_MEMORY_MB
    with pytest.raises(InputError, match="workers must be a positive whole number"):
        limits.default_memory_mb(0)


def test_available_memory_is_read_from_the_machine():
    available = limits.available_memory_mb()
    assert available is not None and 0 < available < 2**40
    assert api.default_memory_mb is limits.default_memory_mb


def test_a_solve_reports_the_memory_it_used():
    assert api.check(2).memory_mb == limits.default_memory_mb()
    assert api.check(2, memory_mb=64).memory_mb == 64


def _evidence(result):
    return result.verdict, result.moves, result.nodes


def test_check_takes_a_preset_name_or_rules_string():
    assert _evidence(api.check(5, "casino")) == _evidence(api.check(5, preset("casino")))
    by_string = api.check(5, "draw=1,passes=2")
    assert by_string.decided and _evidence(by_string) == _evidence(api.check(5, Rules(1, 2)))
    with pytest.raises(InputError, match="unknown preset 'nope'"):
        api.check(5, "nope")
    with pytest.raises(InputError, match="rules must be a Rules, a preset name or a rules string"):
        api.check(5, 3)


def test_result_repr_is_short():
    won = api.check(2)
    assert repr(won) == (f"Result('winnable', {len(won.moves)} moves, nodes={won.nodes}, "
                         f"seconds={won.seconds:.3f}, table_peak={won.table_peak}, memory_mb={won.memory_mb})")
    unknown = api.check(90, max_nodes=10)
    assert repr(unknown).startswith("Result('unknown', limit='nodes', nodes=10, ")
    assert unknown.limit in LIMITS
