"""Every figure in results/ and results/notebook/ is traced (sim/results/figtable.py): the
function that draws it exists, the CSVs it reads are committed, and the section named shows
it, in REPORT.md or in the notebook's source; results/DATA.md lists them (its committed text
is the generated one: tests/test_data_dictionary.py)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from sim.results import figtable
from sim.results.figtable import FIGURES, NOTEBOOK_FIGURES, Entry

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
ENTRIES = (*FIGURES, *NOTEBOOK_FIGURES)
IDS = [e.file for e in ENTRIES]


def untraced(results: Path, entries: tuple[Entry, ...]) -> list[str]:
    """The PNGs in ``results`` and its notebook/ that no entry names."""
    pngs = [*results.glob("*.png"), *(results / "notebook").glob("*.png")]
    named = {e.file for e in entries}
    return sorted(
        p.relative_to(results).as_posix()
        for p in pngs
        if p.relative_to(results).as_posix() not in named
    )


def section(text: str, heading: str, prefix: str = "") -> str:
    """The lines under ``heading`` (a Markdown heading, each line after ``prefix``) up to
    the next heading of its level or above; "" when there is no such heading."""
    lines = text.splitlines()
    pattern = re.compile(rf"^{re.escape(prefix)}(#+) (.*)$")
    for i, line in enumerate(lines):
        m = pattern.match(line)
        if m and m.group(2) == heading:
            level, body = len(m.group(1)), []
            for later in lines[i + 1 :]:
                n = pattern.match(later)
                if n and len(n.group(1)) <= level:
                    break
                body.append(later)
            return "\n".join(body)
    return ""


def test_every_png_in_results_has_an_entry() -> None:
    assert untraced(RESULTS, ENTRIES) == []


def test_a_png_without_an_entry_is_found(tmp_path: Path) -> None:
    (tmp_path / "notebook").mkdir()
    for name in ("gate.png", "new_figure.png", "notebook/edit_fit.png", "notebook/other.png"):
        (tmp_path / name).write_bytes(b"")
    assert untraced(tmp_path, ENTRIES) == ["new_figure.png", "notebook/other.png"]


def test_every_entry_names_one_committed_png() -> None:
    assert len(set(IDS)) == len(IDS)
    assert [f for f in IDS if not (RESULTS / f).is_file()] == []


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_each_entry_s_function_and_csvs_exist(entry: Entry) -> None:
    if entry.draw is not None:
        module, _, name = entry.function.rpartition(".")
        assert getattr(importlib.import_module(module), name) is not None
    assert [t for t in entry.tables if not (RESULTS / f"{t}.csv").is_file()] == []
    assert entry.tables or entry.also, f"{entry.file}: say what it reads"


@pytest.mark.parametrize("entry", FIGURES, ids=[e.file for e in FIGURES])
def test_the_report_section_named_shows_the_figure(entry: Entry) -> None:
    assert entry.page == figtable.REPORT
    shown = section((RESULTS / figtable.REPORT).read_text(), entry.section)
    assert f"]({entry.file})" in shown, f"{entry.file} not under “{entry.section}”"


@pytest.mark.parametrize("entry", NOTEBOOK_FIGURES, ids=[e.file for e in NOTEBOOK_FIGURES])
def test_the_notebook_section_named_draws_and_saves_the_figure(entry: Entry) -> None:
    cells = section((ROOT / entry.page).read_text(), entry.section, prefix="# ")
    name = entry.file.removeprefix("notebook/")
    assert f'save_figure(fig, "{name}")' in cells, f"{name} not saved under “{entry.section}”"
    if entry.draw is not None:
        module, _, function = entry.function.rpartition(".")
        called = f"{module.rpartition('.')[2]}.{function}("
        assert f"fig = {called}" in cells, f"{called} not called under “{entry.section}”"
    else:
        assert "fig, axes = plt.subplots(" in cells


def test_every_figure_the_notebook_saves_has_an_entry() -> None:
    saved = re.findall(r'save_figure\(fig, "([^"]+)"\)', (ROOT / figtable.NOTEBOOK).read_text())
    assert sorted(f"notebook/{name}" for name in saved) == sorted(e.file for e in NOTEBOOK_FIGURES)


def test_a_section_without_the_figure_or_a_missing_heading_is_caught() -> None:
    text = "# Top\n## 1. One\n![a](a.png)\n### Inner\n![b](b.png)\n## 2. Two\n![c](c.png)\n"
    assert "](b.png)" in section(text, "1. One")
    assert "](c.png)" not in section(text, "1. One")
    assert section(text, "3. Three") == ""
