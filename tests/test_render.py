"""The report's templates: one strict environment, the shared filters, and every template
in sim/report/templates/ compiles."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from sim.report.render import count, environment, oneline, pct, pct_ci, points, render
from sim.stats import Interval


def test_filters_write_a_share_an_interval_a_count_and_a_move() -> None:
    assert pct(0.1234) == "12.3 %" and pct(0.5, 0) == "50 %"
    assert pct_ci(Interval(0.2, 0.1, 0.3, 0.05, 10)) == "20.0 % (10.0 % – 30.0 %)"
    assert count(12345) == "12,345" and count(0.114) == "0.11" and count(2.5) == "2.5"
    assert points(0.012) == "+1.2" and points(-0.003) == "-0.3"


def test_oneline_joins_a_wrapped_paragraph_with_single_spaces() -> None:
    assert oneline("  one\n  two \n\tthree  \n") == "one two three"


def test_an_undefined_value_is_an_error_not_an_empty_string() -> None:
    template = environment().from_string("{{ missing | pct }}")
    with pytest.raises(UndefinedError):
        template.render()


def test_every_template_compiles() -> None:
    names = environment().list_templates(extensions=["j2"])
    assert "gate_recommendation.md.j2" in names
    for name in names:
        environment().get_template(name)


def test_a_template_keeps_its_values_and_no_stray_whitespace() -> None:
    row = {
        "approvals_per_edit": 1.25,
        "succeeded_share": 0.9,
        "first_try_rejected_share": 0.05,
        "agent_calls_per_edit": 3.0,
        "agent_chars_per_edit": 12345.0,
        "first_writes_sent": 1000.0,
        "edits": 1200.0,
        "human_conflict_share_of_sent": 0.02,
        "human_conflict_share_of_edits": 0.015,
        "agent_conflict_share_of_sent": 0.01,
        "gone_share_of_sent": 0.001,
    }
    text = render(
        "gate_recommendation.md.j2", median_s=120.0, a=row, b=row, same=[], differ=[],
        better=[], poorer=[],
    )  # fmt: skip
    first, second = text.split("\n\n")
    assert first.startswith("With tools that take no time") and "\n" not in second
    assert "At a 2-minute median they ask 1.25 approvals" in first and "12,345 characters" in first
    assert second.startswith("No condition shows a difference") and "  " not in text
