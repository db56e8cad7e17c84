"""The public API: what `import dsolve` offers, and the README's "From Python" example, run as it is."""
import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import dsolve
from dsolve.klondike.result import WINNABLE

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## From Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(readme_example(), "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Result('unwinnable'")            # seed 1 at draw 3
    assert lines[1].split()[0] in ("winnable", "unwinnable")
    assert lines[2] in ("winnable", "unwinnable")
    assert len(lines) == 6 and all(line.split()[-1] in ("winnable", "unwinnable", "unknown")
                                   for line in lines[3:])


def test_the_top_level_names():
    assert set(dsolve.__all__) <= set(dir(dsolve)) | {"check", "solve", "hints"}
    assert dsolve.check(2).verdict == WINNABLE
    deal = dsolve.deal(2)
    assert dsolve.solve(deal, "standard").to_dict()["verdict"] == WINNABLE
    by_deal, by_seed = dsolve.check(deal, dsolve.preset("standard")), dsolve.check("2", deal="solvitaire")
    assert (by_deal.verdict, by_deal.nodes, by_deal.moves) == (by_seed.verdict, by_seed.nodes, by_seed.moves)


def test_import_does_not_load_the_native_core():
    code = "import sys, dsolve; print('dsolve._core' in sys.modules); dsolve.check(2); print('dsolve._core' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
