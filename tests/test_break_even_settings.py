"""The break-even as a function of the events a poll call takes and of how saves spread
over articles (``studymap.tables.break_even_settings``), and the first page stating the page
size behind its figures and push's mechanism by protocol era."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim import theory
from sim.params import Params
from sim.studymap import tables

ROOT = Path(__file__).resolve().parents[1]


def test_a_poll_call_taking_every_event_costs_one_call_a_check() -> None:
    busy = Params(n_saves=12_000)  # 1,500 events an hourly check
    paged, whole = theory.expected_check_calls(busy), theory.expected_check_calls(busy, math.inf)
    assert {r["poll_pages"] for r in paged} == {15.0} and {r["poll_pages"] for r in whole} == {1.0}
    for a, b in zip(paged, whole, strict=True):
        assert a["poll_calls"] - b["poll_calls"] == pytest.approx(14.0, abs=0.01)  # rounded


def test_the_break_even_rises_with_the_page_and_the_first_pages_setting_is_its_own() -> None:
    base = Params()
    s = tables.break_even_settings(base)
    points = tables.break_even_points(tables.break_even_map(base))
    own = s[(s["save_popularity"] == "zipf") & (s["poll_page_events"] == 100)]
    assert own["saves_per_check_at_break_even"].tolist() == (
        points["saves_per_check_at_break_even"].tolist()
    )
    for (_, q), g in s.groupby(["save_popularity", "n_questions"]):
        by_page = g.set_index("poll_page_events")["saves_per_check_at_break_even"]
        ordered = [by_page[p] for p in (10, 100, 1000, 0)]  # 0: one call a check
        assert ordered == sorted(ordered), q
    even = s[(s["save_popularity"] == "even") & (s["poll_page_events"] == 100)]
    # the issue measured 382 / 643 / 880 / 1,100 for saves spread evenly
    assert [round(x, -1) for x in even["saves_per_check_at_break_even"]] == [380, 640, 890, 1110]


def test_the_first_page_states_the_page_size_and_push_by_protocol_era() -> None:
    readme = (ROOT / "README.md").read_text()
    answers = readme[readme.index("<!-- answers:start -->") : readme.index("<!-- answers:end -->")]
    assert "polling costs a call per 100 events since the last check" in answers
    assert "lower bounds" not in answers
    assert "one poll call a check: 2,056–6,612" in answers
    assert "`subscriptions/listen`" in answers and "`resources/subscribe`" in answers
