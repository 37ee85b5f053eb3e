"""docs/walkthrough.md runs: its code blocks, in order in one namespace, print the output
blocks under them, and what they compute is the study's own (the committed row of seed 1,
the registry's methods). About 2 CPU-s: the write-up's day on one seed."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pandas as pd
import pytest

from sim.model import methods
from sim.results.rowfiles import read_csv

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "walkthrough.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)
MAX_CODE_LINES = 35
"""The walkthrough's code, blank lines left out: "about 30 lines"."""


def _blocks() -> list[tuple[str, str]]:
    """Each code block with the output block under it ('' if none)."""
    found = BLOCK.findall(DOC.read_text())
    out: list[tuple[str, str]] = []
    for kind, text in found:
        if kind == "python":
            out.append((text, ""))
        else:
            assert out and not out[-1][1], "an output block follows its code block"
            out[-1] = (out[-1][0], text)
    return out


def _rows(text: str) -> list[tuple[str, ...]]:
    return [tuple(line.split()) for line in text.strip("\n").splitlines()]


@pytest.fixture(scope="module")
def ran() -> tuple[dict[str, object], list[tuple[str, str, str]]]:
    namespace: dict[str, object] = {"__name__": "walkthrough"}
    printed = []
    for code, shown in _blocks():
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, str(DOC), "exec"), namespace)
        printed.append((code, shown, buffer.getvalue()))
    return namespace, printed


def test_the_walkthrough_is_about_thirty_lines_of_code() -> None:
    code = [line for code, _ in _blocks() for line in code.splitlines() if line.strip()]
    assert 10 <= len(code) <= MAX_CODE_LINES, len(code)


def test_each_block_prints_the_output_shown_under_it(
    ran: tuple[dict[str, object], list[tuple[str, str, str]]],
) -> None:
    """Word by word, line by line; a method added to the registry adds rows of its own
    (naming it), and the rows shown stay, in order."""
    _, printed = ran
    assert len(printed) >= 3
    names = {m.name for m in methods.METHODS}
    for code, shown, got in printed:
        want, have = _rows(shown), _rows(got)
        assert [r for r in have if r in want] == want, code
        named = {w for r in want for w in r}
        assert all(names & (set(r) - named) for r in have if r not in want), code


def test_the_days_stale_share_is_the_studys_committed_row_of_that_seed(
    ran: tuple[dict[str, object], list[tuple[str, str, str]]],
) -> None:
    """The stale share computed from the day's records equals per_seed's for seed 1, and
    both equal the row `make reproduce` committed for seed 1."""
    ns, _ = ran
    committed = read_csv(ROOT / "results" / "seeds" / "staleness_headline.csv")
    row = committed.set_index("seed").loc[1]
    assert ns["stale"] == ns["row"]["zipf_stale_share"] == row["zipf_stale_share"]  # type: ignore[index]
    assert ns["row"]["control_stale_share"] == row["control_stale_share"]  # type: ignore[index]


def test_the_methods_it_shows_are_the_registrys(
    ran: tuple[dict[str, object], list[tuple[str, str, str]]],
) -> None:
    ns, _ = ran
    checks = ns["checks"]
    rows = ns["rows"]
    assert isinstance(checks, pd.DataFrame) and isinstance(rows, pd.DataFrame)
    hourly = {m.name for m in methods.HOURLY}
    assert set(checks["method"]) == {"truth", *hourly}
    assert set(rows["method"]) == hourly


def test_the_readmes_link_to_it() -> None:
    for readme in (ROOT / "README.md", ROOT / "sim" / "README.md"):
        assert "walkthrough.md" in readme.read_text(), readme


def test_no_list_of_methods_is_written_by_hand() -> None:
    """The package's doctest and the notebook's sweep section take the methods from the
    registry: a method added there needs no edit to either (nor a notebook rerun to stay
    true)."""
    import sim

    names = [m.name for m in methods.METHODS]
    assert not [n for n in names if repr(n) in (sim.__doc__ or "")]
    section = (ROOT / "notebooks" / "explore.py").read_text().split("# ## 5.")[1]
    prose = section.split("# %%\n")[0].lower()
    words = {
        "re-read",
        "poll",
        "title",
        *(w.lower() for m in methods.METHODS for w in (m.label, m.short)),
    }
    assert not [w for w in words if w in prose], prose
    assert "for m in METHODS if m.swept" in section
