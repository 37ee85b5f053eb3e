"""REPORT.md's first page is for a designer: the three answers, their conditions, what to do
and one atlas figure within 90 lines, each rate in a stated unit (the write-up's day is 8
working hours, the formulas' r is per 24 h), each CAS figure at 1 h with its estimand, and
its pointers landing where § 7 holds what they point to. The audit is the later sections'."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from sim.params import HOUR_S, Params
from sim.studymap.report import writeup_rate

ROOT = Path(__file__).resolve().parents[1]
REPORT = (ROOT / "results" / "REPORT.md").read_text()
README = (ROOT / "README.md").read_text()
MAX_LINES = 90
"""The issue's "within about 90 lines"; the page was 105 before it."""
HEADING = "## The answers on one page"


def _first_page() -> str:
    return HEADING + REPORT.split(HEADING, 1)[1].split("\n## ", 1)[0]


def _section_7() -> str:
    return REPORT.split("\n## 7.", 1)[1].split("\n## ", 1)[0]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _answers() -> str:
    return README.split("<!-- answers:start -->", 1)[1].split("<!-- answers:end -->", 1)[0]


def test_the_first_page_is_at_most_90_lines() -> None:
    lines = _first_page().strip().splitlines()
    assert len(lines) <= MAX_LINES, f"the first page has {len(lines)} lines, over {MAX_LINES}"


def test_every_rate_a_day_says_which_day() -> None:
    """No "a day" for a rate: the write-up's r is said per working day and per 24 h, as
    computed from its setting, and counts per day say the working day's hours."""
    base = Params()
    hours = f"{base.day_s / HOUR_S:g}-hour day"
    for name, text in (("first page", _flat(_first_page())), ("README", _flat(_answers()))):
        vague = re.findall(r"(?:edits per article|calls|messages|saves|times) a day", text)
        assert not vague, (name, vague)
    page = _flat(_first_page())
    assert (
        f"r = {base.n_saves / base.n_articles:.3g} per {hours}, {writeup_rate(base):.3g} per 24 h"
        in page
    )
    assert f"calls per {hours}" in page and "edits per 24 h" in page


def test_each_cas_figure_at_1_h_names_its_estimand_once() -> None:
    """The human-caused share at 1 h on the write-up's day is one simulated figure wherever
    it is quoted, set apart from all causes; § 7's steady closed form is named as such."""
    row = pd.read_csv(ROOT / "results" / "comparison.csv").set_index("key")
    human = f"{100 * row.loc['cas_human_reject_share_3600s', 'mean']:.1f} %"
    every = f"{100 * row.loc['cas_reject_share_3600s', 'mean']:.1f} %"
    page, map_text = _flat(_first_page()), _flat(_section_7())
    assert "a human's save alone rejects" in page and f"and {human} (" in page
    assert f"all causes together reject {every} (" in page
    assert f"On the write-up's simulated day a human's save rejects {human} at 1 h" in map_text
    assert "In the map's steady closed form (no unpublishing, no end of day)" in map_text


def test_the_first_pages_pointers_land_on_what_section_7_holds() -> None:
    """The atlas's measure and its checks are in § 7's part on real sites, which says the
    three help centres are among the atlas's sites."""
    assert "§ 7, *Real sites*" in _first_page()
    headings = re.findall(r"^### (.+)$", _section_7(), re.M)
    assert any(h.startswith("Real sites") for h in headings), headings
    part = _section_7().split("### Real sites", 1)[1]
    assert "**The atlas.**" in part and "(`atlas_loo.csv`)" in part
    assert "three real help centres" not in _section_7()
