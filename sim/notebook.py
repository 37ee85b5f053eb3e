"""Run a notebook source (jupytext percent format) headless with injected parameters, and
save it executed, its outputs kept, as the same bytes on every run.

The injection follows papermill's convention: a cell tagged ``injected-parameters``
goes right after the cell tagged ``parameters``, so the notebook's own defaults stay
visible and are overridden. `python -m sim notebook -p NAME=VALUE` takes them from the
command line, each checked against the parameters cell's names and default types.
"""

from __future__ import annotations

import ast
import math
import os
import re
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbclient import NotebookClient
from tqdm import tqdm

from sim.params import Params

FORMATS = "ipynb,py:percent"
"""The pairing: explore.ipynb (outputs, what GitHub and JupyterLab show) and explore.py."""
SET_BY_FLAGS = {"OUT_DIR": "--out", "KB_DB": "--db"}
COUNTS = {"SEEDS": 1, "SWEEP_SEEDS": 1, "BREAK_EVEN_SEEDS": 1, "REAL_SEEDS": 1, "FIT_BOOT": 2}
"""Counts and the least a section can run on (FIT_BOOT as `calibrate --boot`); each at most
MAX_COUNT, so a typo cannot start a run that never ends."""
MAX_COUNT = 100_000
AS_PARAMS = {
    "N_SAVES": ("n_saves", 1),
    "ZIPF_S": ("zipf_s", 1),
    "EDIT_FOLLOWS": ("edit_follows_questions", 1),
    "CHECK_INTERVAL_S": ("check_interval_s", 1),
    "CITATIONS": ("citations_per_answer", 1),
    "SENSITIVITY_S": ("zipf_s", 1),
    "SENSITIVITY_SAVES": ("n_saves", 1),
    "SENSITIVITY_FOLLOWS": ("edit_follows_questions", 1),
    "BREAK_EVEN_SAVES": ("n_saves", 1),
    "BREAK_EVEN_QUESTIONS": ("n_questions", 1),
    "BREAK_EVEN_INTERVALS_S": ("check_interval_s", 1),
    "SWEEP_INTERVALS_MIN": ("check_interval_s", 60),
}
"""Parameters that set a field of the day's Params (each value times the scale, an int so an
int stays one): checked by Params itself before any cell runs, not refused inside a cell."""


class ParameterError(ValueError):
    """A -p that names no parameter of the notebook, or a value its default's type refuses."""


def _parameters_index(nb: nbformat.NotebookNode) -> int:
    for i, c in enumerate(nb.cells):
        if "parameters" in c.metadata.get("tags", []):
            return i
    raise ParameterError('no cell tagged parameters (# %% tags=["parameters"])')


def with_parameters(nb: nbformat.NotebookNode, values: dict[str, Any]) -> nbformat.NotebookNode:
    index = _parameters_index(nb)
    source = "\n".join(f"{k} = {v!r}" for k, v in values.items())
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(index + 1, cell)
    return nb


def defaults(path: Path) -> dict[str, Any]:
    """The parameters cell's names and default values; ParameterError naming the file when
    it is not a notebook script with such a cell of literal values."""
    try:
        nb = jupytext.read(path)
        out = {}
        for node in ast.parse(nb.cells[_parameters_index(nb)].source).body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                try:
                    out[name] = ast.literal_eval(node.value)
                except ValueError:
                    raise ParameterError(f"{name} is not a literal value") from None
    except (ValueError, SyntaxError, UnicodeDecodeError) as e:
        raise ParameterError(
            f"--path {path}: not a notebook script (jupytext's percent format) whose"
            f" parameters cell holds literal values: {e}"
        ) from None
    return out


def overrides(pairs: list[str], known: dict[str, Any]) -> dict[str, Any]:
    """-p NAME=VALUE pairs as values, each of its default's type (papermill's -p)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ParameterError(f"-p {pair!r}: expected NAME=VALUE, e.g. -p SEEDS=5")
        if name in SET_BY_FLAGS:
            raise ParameterError(f"-p {name}: set it with {SET_BY_FLAGS[name]}")
        if name not in known:
            raise ParameterError(
                f"-p {pair}: the notebook has no parameter {name}; its parameters: "
                + ", ".join(n for n in known if n not in SET_BY_FLAGS)
            )
        if known[name] is None and name in AS_PARAMS and text.strip() == "None":
            out[name] = None  # Params' own default, as the cell leaves it
            continue
        out[name] = _value(name, text.strip(), _typed(name, known[name]))
        _as_params(name, text.strip(), out[name])
    return out


def _typed(name: str, default: Any) -> Any:
    """A parameter left None to keep Params' own default takes that default's type."""
    if default is None and name in AS_PARAMS:
        return getattr(Params(), AS_PARAMS[name][0])
    return default


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # a bare word or path: a string


def _number(v: Any, whole: bool) -> bool:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return False
    return (isinstance(v, int) if whole else math.isfinite(v)) and v >= 0


def _value(name: str, text: str, default: Any) -> Any:
    v = _literal(text)
    if isinstance(default, str):
        return v if isinstance(v, str) else text
    if isinstance(default, tuple):
        items = v if isinstance(v, tuple | list) else (v,)
        if isinstance(v, str) and "," in v:
            items = tuple(s.strip() for s in v.split(","))
        kinds = {type(d) for d in default}
        whole = kinds == {int}
        if all(isinstance(i, str) for i in items) and (not default or kinds == {str}):
            return tuple(items)
        if items and all(_number(i, whole) for i in items) and str not in kinds:
            return tuple(items if whole else (float(i) for i in items))
        kind = "a tuple of " + ("names" if kinds == {str} else "numbers ≥ 0, e.g. (1, 2)")
    elif default is None:
        if v is None or (_number(v, True) and v > 0):
            return v
        kind = "a whole number above 0 or None"
    elif isinstance(default, int):
        least, most = (COUNTS[name], MAX_COUNT) if name in COUNTS else (0, math.inf)
        if _number(v, True) and least <= v <= most:
            return v
        kind = (
            f"a whole number from {least} to {most:,}" if most < math.inf else "a whole number ≥ 0"
        )
    elif isinstance(default, float):
        if _number(v, False):
            return float(v)
        kind = "a number ≥ 0"
    else:
        kind = type(default).__name__
    raise ParameterError(
        f"-p {name}={text}: {name} takes {kind} (default {default!r}); got {text!r}"
    )


def _as_params(name: str, text: str, value: Any) -> None:
    """A value the day's Params refuses (EDIT_FOLLOWS=2, CITATIONS=0), refused here."""
    if name not in AS_PARAMS:
        return
    field, scale = AS_PARAMS[name]
    for item in value if isinstance(value, tuple) else (value,):
        try:
            Params(**{field: item * scale})
        except ValueError as e:
            unit = f" (× {scale})" if scale != 1 else ""
            raise ParameterError(f"-p {name}={text}: {name}{unit} sets {e}") from None


SECTION = re.compile(r"## ([0-9]+)\. ")
"""A numbered section's heading: a markdown cell that starts with `## 7. `."""


def sections(nb: nbformat.NotebookNode) -> dict[str, list[nbformat.NotebookNode]]:
    """Each numbered section's cells by its number, in order; "" holds those before the
    first (the introduction, the parameters and the imports every section needs)."""
    out: dict[str, list[nbformat.NotebookNode]] = {"": []}
    current = ""
    for cell in nb.cells:
        heading = SECTION.match(cell.source) if cell.cell_type == "markdown" else None
        if heading:
            current = heading.group(1)
            out[current] = []
        out[current].append(cell)
    return out


def names_read(cells: list[nbformat.NotebookNode]) -> set[str]:
    """Every name the code cells read: a parameter not among them changes nothing they do
    (the parameters cell only binds its names)."""
    python = (_MAGIC.sub("", c.source) for c in cells if c.cell_type == "code")
    return {
        node.id
        for source in python
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)
"""An IPython magic or shell line, which is not Python."""


def reading(path: Path, name: str) -> tuple[list[str], list[str], set[str]]:
    """The numbered sections of the notebook at ``path`` whose code reads ``name``, the
    other sections, and the names the first ones and the cells before them read."""
    parts = sections(jupytext.read(path))
    using = [n for n, cells in parts.items() if n and name in names_read(cells)]
    others = [n for n in parts if n and n not in using]
    return using, others, names_read([c for n in ("", *using) for c in parts[n]])


def only(nb: nbformat.NotebookNode, keep: Collection[str], note: str) -> nbformat.NotebookNode:
    """The notebook with the cells before its first section and the sections in ``keep``,
    ``note`` (what was run and what left out) a markdown cell before the first of those."""
    parts = sections(nb)
    nb.cells = [*parts[""], nbformat.v4.new_markdown_cell(note)]
    nb.cells += [c for n, cells in parts.items() if n in keep for c in cells]
    return nb


def execute(
    path: Path,
    parameters: dict[str, Any],
    timeout_s: int = 3600,
    progress: bool = False,
    keep: tuple[Collection[str], str] | None = None,
) -> nbformat.NotebookNode:
    """Execute in the notebook's own folder (only the sections and note of ``keep``, if
    given); raises CellExecutionError on the first error. The kernel's channels are Unix
    sockets in a folder only this user can open, not localhost TCP ports that any local
    process can reach (Windows has TCP alone)."""
    nb = jupytext.read(path)
    nb = with_parameters(nb if keep is None else only(nb, *keep), parameters)
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    with (
        tempfile.TemporaryDirectory(prefix="kernel-") as sockets,
        tqdm(total=code_cells, desc=path.name, unit="cell", disable=not progress) as bar,
    ):
        client = NotebookClient(
            nb,
            kernel_name="python3",
            timeout=timeout_s,
            record_timing=False,
            resources={"metadata": {"path": str(path.parent)}},
            on_cell_executed=lambda **_: bar.update(),
        )
        if os.name != "nt":
            km = client.create_kernel_manager()  # the one execute() starts
            km.transport, km.ip = "ipc", str(Path(sockets) / "k")
        client.execute()
    return nb


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """What differs between two runs of the same notebook goes: execution counts and times,
    kernel and widget state, the Python patch release, the random cell ids, and stderr
    (progress bars with their rates); the figures and every text output stay."""
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("papermill", None)
    nb.metadata.get("language_info", {}).pop("version", None)
    nb.metadata["jupytext"] = {"formats": FORMATS}
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.execution_count = None
        cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
        for o in cell.outputs:
            if "execution_count" in o:
                o.execution_count = None
    return nb


def save(nb: nbformat.NotebookNode, target: Path) -> None:
    """The executed notebook as .ipynb, cleaned (the same bytes for the same outputs)."""
    nbformat.validate(clean(nb))
    target.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def text_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Each code cell's text outputs (streams, plain-text results and errors), as
    `make check` compares them; images are left to the PNG files beside results/."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "injected-parameters" in cell.metadata.get("tags", []):
            continue
        for o in cell.outputs:
            text = o.get("text") or o.get("data", {}).get("text/plain") or o.get("evalue", "")
            if text:
                out.append(f"cell {i}: {text}")
    return out
