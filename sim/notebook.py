"""Run a notebook source (jupytext percent format) headless with injected parameters.

The injection follows papermill's convention: a cell tagged ``injected-parameters``
goes right after the cell tagged ``parameters``, so the notebook's own defaults stay
visible and are overridden.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbclient import NotebookClient
from tqdm import tqdm


def with_parameters(nb: nbformat.NotebookNode, values: dict[str, Any]) -> nbformat.NotebookNode:
    index = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    source = "\n".join(f"{k} = {v!r}" for k, v in values.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(index + 1, cell)
    return nb


def execute(
    path: Path, parameters: dict[str, Any], timeout_s: int = 3600, progress: bool = False
) -> nbformat.NotebookNode:
    """Execute in the notebook's own folder; raises CellExecutionError on the first error."""
    nb = with_parameters(jupytext.read(path), parameters)
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    with tqdm(total=code_cells, desc=path.name, unit="cell", disable=not progress) as bar:
        NotebookClient(
            nb,
            timeout=timeout_s,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            on_cell_executed=lambda **_: bar.update(),
        ).execute()
    return nb
