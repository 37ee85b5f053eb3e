"""The notebooks run top to bottom on small parameters (papermill-style injection)."""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SMALL = {
    "explore.py": {
        "SEEDS": 2,
        "SENSITIVITY_S": (0.0, 0.9),
        "SENSITIVITY_SAVES": (150, 300),
        "SENSITIVITY_FOLLOWS": (0.0, 1.0),
        "WORKERS": 1,
    },
}


def with_parameters(nb: nbformat.NotebookNode, values: dict) -> nbformat.NotebookNode:
    """Insert an 'injected-parameters' cell after the one tagged 'parameters'."""
    index = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    source = "\n".join(f"{k} = {v!r}" for k, v in values.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(index + 1, cell)
    return nb


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_on_small_parameters(name: str) -> None:
    nb = with_parameters(jupytext.read(NOTEBOOKS / name), SMALL[name])
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors


def test_every_notebook_has_small_parameters() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(SMALL)
