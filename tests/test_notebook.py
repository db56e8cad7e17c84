"""The winnability notebook runs end to end on a small survey."""
import os
from pathlib import Path

import pytest
import test_survey

import dsolve
from dsolve import api
from dsolve.rules import Rules
from dsolve.survey import run_survey

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "winnability.ipynb"


def test_notebook_runs_on_a_small_survey(tmp_path, monkeypatch):
    monkeypatch.setattr(api, "solve", test_survey.fake_solve)
    draw = [Rules(draw=d, passes=None) for d in range(1, 8)]
    passes = [Rules(draw=d, passes=p) for d in (1, 3) for p in (1, 2, 3)]
    run_survey(tmp_path / "draw", range(1, 31), draw, jobs=2)
    run_survey(tmp_path / "passes", range(1, 11), draw + passes, jobs=2)  # its draw rows lose: fewer seeds
    monkeypatch.setenv("DSOLVE_SURVEY_DIR", os.pathsep.join(str(tmp_path / name) for name in ("draw", "passes")))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel shows figures inline
    package_root = str(Path(dsolve.__file__).parent.parent)  # the kernel imports this dsolve
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()

    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "; 210 solves\n" in text and "; 130 solves\n" in text and "13 rule sets" in text
    assert "B&G in range" in text and "   7      30" in text
    assert "   3  unlimited      30" in text and "   1          2      10" in text
    figures = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(figures) == 2
