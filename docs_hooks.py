"""MkDocs hook: the example pages of the Pictures guide, made by ``dsolve view`` at each build.

They are added to the built site (``examples/``), not kept in the repository, so they always
show what the current renderer draws."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

_PAGES: dict[str, str] = {}  # site path -> page text, from on_files to on_post_build
ROOT = os.path.dirname(os.path.abspath(__file__))


def _dsolve(*args: str) -> str:
    """Run the dsolve CLI of the environment building the site (installed, or ``PYTHONPATH=src``)."""
    done = subprocess.run([sys.executable, "-m", "dsolve", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"dsolve {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def on_files(files, config, **_):
    """Add the four example pages to the site's files (so the guide's links to them are checked)."""
    from mkdocs.structure.files import File

    with tempfile.TemporaryDirectory() as scratch:
        pages = {name: os.path.join(scratch, name) for name in ("line.html", "hints.html", "race.html", "crapette.html")}
        _dsolve("view", "2", "--out", pages["line.html"])
        _dsolve("view", "2", "--hints", "--timeout", "5", "--out", pages["hints.html"])
        _dsolve("view", "--race", "tests/data/race-records.jsonl.gz", "--out", pages["race.html"])
        record = os.path.join(scratch, "round.json")
        with open(record, "w") as handle:
            handle.write(_dsolve("crapette", "play", "1", "--json"))
        _dsolve("view", "--crapette", record, "--out", pages["crapette.html"])
        for name, path in pages.items():
            with open(path, encoding="utf-8") as handle:
                _PAGES[f"examples/{name}"] = handle.read()
            files.append(File.generated(config, f"examples/{name}", content=_PAGES[f"examples/{name}"]))
    return files


def on_post_build(config, **_) -> None:
    """Write the pages as they are: MkDocs would treat an HTML file as a template."""
    for name, text in _PAGES.items():
        path = os.path.join(config["site_dir"], name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
