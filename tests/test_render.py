"""The report's templates: one strict environment, the shared filters, and every template
in sim/report/templates/ compiles."""

from __future__ import annotations

from typing import Any

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


def _phrases() -> Any:
    """The first page's phrases template as a module: its macros as attributes."""
    return environment().get_template("firstpage_phrases.md.j2").module


def _option(label: str, mean: float, lo: float, hi: float, meets: bool) -> dict[str, object]:
    calls = Interval(70.0, 65.0, 75.0, 0.0, 0)
    return {"label": label, "mean": mean, "lo": lo, "hi": hi, "calls": calls, "meets": meets}


def test_the_first_page_says_when_the_advisor_did_not_pick_or_the_seed_sets_differ() -> None:
    """Branches the committed run does not take: no pick, no seed sets, set A's pick not
    set B's (its check on B short of the margin), and no pick on set A."""
    say = _phrases()
    assert (
        str(say.pick(None, 30.0, "8-hour day"))
        == "`python -m sim advise` picks the interval for your rates (§ 6)"
    )
    pick: dict[str, Any] = {
        "words": "poll with the cursor kept",
        "interval_min": 60.0,
        "simulate": 0,
        "sets": None,
    }
    assert str(say.pick(pick, 30.0, "8-hour day")).endswith(
        "picks **poll with the cursor kept every 60 min** (§ 6)"
    )
    sixty = _option("poll every 60 min", 26.0, 25.0, 26.9, True)
    sixty_b = _option("poll every 60 min", 28.8, 27.9, 29.7, False)
    thirty = _option("poll every 30 min", 14.5, 14.0, 15.0, True)
    sets = {"margin_line": 0.1, "target": 30.0, "same": False, "passed": None,
            "A": {"range": "1–50", "n": 50, "pick": sixty, "a_pick": sixty},
            "B": {"range": "1001–1050", "n": 50, "pick": thirty, "a_pick": sixty_b}}  # fmt: skip
    pick["sets"] = sets
    text = str(say.pick(pick, 30.0, "8-hour day"))
    assert (
        "; its rule, made afresh on two disjoint sets of 50 seeds, picks poll every 60 min on "
        "seeds 1–50 (26.0 min (25.0 – 26.9) at 70 (65 – 75) calls per 8-hour day) but poll "
        "every 30 min on seeds 1001–1050, where poll every 60 min leaves a change unnoticed "
        "28.8 min (27.9 – 29.7) at 70 (65 – 75) calls per 8-hour day, short of the margin. A "
        "pick's 95 % interval must end 10 % under the target (27 min) or more" in text
    )
    sets["A"] = {"range": "1–50", "n": 50, "pick": None, "a_pick": None}
    nothing = str(say.pick(pick, 30.0, "8-hour day"))
    assert "; its rule, made afresh on seeds 1–50, picks nothing." in nothing


def test_the_first_page_says_why_no_reading_or_assumption_is_named() -> None:
    say = _phrases()
    assert str(say.reading(None)) == "of the settings the write-up leaves open, none was run"
    assert str(say.reading({"label": None, "none": "no reading moves it"})) == "no reading moves it"
    assert str(say.sentence("no reading moves it")) == "No reading moves it."
    assert str(say.assumed(None)) == ""
    none = {"assumption": None, "none": "no question relation moves it beyond noise"}
    assert str(say.assumed(none)) == " No question relation moves it beyond noise."


def _calibration_values(**changed: object) -> dict[str, object]:
    row = {"estimate": 1.5, "ci_low": 1.2, "ci_high": 1.8}
    gof = {"ks_distance": 0.05, "p_value": 0.2, "aic": 1234.0}
    values: dict[str, object] = {
        "fit_table": "FIT", "s": row, "zipf": gof, "chosen": gof, "law": "zipf–mandelbrot",
        "rejected": [], "both_rejected": False, "missed": [], "burst_gap": "",
        "burst_table": "BURST", "panel": "PANEL",
    }  # fmt: skip
    return values | changed


def test_the_calibration_says_when_its_process_holds_the_logs_bursts() -> None:
    text = render("calibration_text.md.j2", **_calibration_values())
    assert "`calibration_gof.csv`. Burstiness B" in text  # no law rejected: no verdict
    assert "\nHere the calibrated process's range holds the log's B and M.\n\nPANEL\n" in text
    missed = render("calibration_text.md.j2", **_calibration_values(missed=["B", "M"]))
    assert "range does not hold the log's B and M: its bursts are milder" in missed


def _panel_values(**changed: object) -> dict[str, object]:
    values: dict[str, object] = {
        "runs": 20, "permutations": 1000, "n_statistics": 8, "drift_level": 0.05,
        "tally_table": "TALLY", "validation_table": "VALIDATION", "unexplained": 0,
        "largest_miss": None, "transfer_table": "", "transfer": {}, "import_share": 0.2,
        "import_min": 10, "imports": [], "no_imports": ["A"],
        "own_volumes": [{"log": "A", "target_saves_per_day": 12.5}], "study_saves": 300,
        "day_hours": 8.0, "times_lo": 24.0, "times_hi": 24.0,
    }  # fmt: skip
    return values | changed


def test_the_panel_says_when_every_miss_is_the_logs_and_no_log_was_imported() -> None:
    text = render("calibration_panel_text.md.j2", **_panel_values())
    assert (
        "\n\nEvery miss of the calibrated process is on a statistic whose log drifts.\n\n" in text
    )
    assert "Transfer: the panel holds one log: nothing to transfer." in text
    assert "and the bulk sizes): none in the panel.\n\n" in text
    assert (
        "first two thirds: A 12.50); the study's day holds 300 saves in 8 hours, 24 to 24" in text
    )


def test_the_cas_analysis_without_ladders_and_with_1h_reproduced_by_humans_alone() -> None:
    row = {"mean": 0.4, "z": 0.5, "verdict": "reproduced"}
    text = render(
        "openchoices_cas_analysis.md.j2", at_1h=row, human=row, ratio=0.7,
        reported_ratio=0.717, spread=None, only_with_own=False,
    )  # fmt: skip
    assert "is one ratio on an assumed ladder, not a shape. At 1 h" in text
    assert "same article colliding. An unpublish" in text


def test_the_open_choices_name_the_verdicts_the_shared_seeds_change() -> None:
    class Rule:
        def describe(self, open_when: str) -> str:
            return f"open while {open_when}"

    shared = {"lo": -0.05, "hi": 0.1, "median": 0.02, "cells": 40,
              "flips": ["a = 1 on x: reproduced → undecided"]}  # fmt: skip
    tables = ("seeds", "choices", "largest", "zipf", "control", "cas")
    text = render(
        "openchoices_text.md.j2", half_width=0.021, shared=shared, rule=Rule(), shift_bound=0.01,
        staleness_seeds=150, counting="gone_counted", still_open=[], undecided=["a = 1"],
        **{f"{t}_table": t.upper() for t in tables},
    )  # fmt: skip
    assert "up to ±2.1 points)" in text
    assert (
        "half-width changes by -5 % to +10 % (median +2 %) across the 40 reading × figure cells, "
        "and 1 verdicts change (a = 1 on x: reproduced → undecided). (`ci_half_shared`" in text
    )
    assert "open while on any figure it can move, a paired shift whose 95 % interval " in text
    assert "wider than ±1 points. A reading" in text
    assert (
        "at their cap):\nnone. Undecided on a figure they can move\nwhere they stopped: a = 1.\n"
        in text
        and text.endswith("CAS on the default ladder:\n\nCAS")
    )


def test_the_ladder_section_with_no_ladder_reproducing_a_figure() -> None:
    none = {"ladders": 12, "reproduced": 0, "undecided": 3, "ok": [], "default": "undecided"}
    text = render(
        "ladders_text.md.j2", minutes=["1 min"], longs=["2 h"], long_pairs=[["2 h", "4 h"]],
        n_ladders=12, headline_seeds=150, table="TABLE", reject=none, replay=none,
    )  # fmt: skip
    assert "Against 172 of 600 (28.7 %): 0 of 12 reproduce it, 3 undecided. Against" in text
    assert (
        "ladders with no rung between the seconds and the hour and two beyond it (2 h and 4 h)"
        in text
    )


def test_a_pick_with_no_move_beyond_noise_says_the_family_and_the_smallest_p() -> None:
    import pandas as pd

    from sim.report.picks import none_named

    family, cells = pd.DataFrame({"p_holm": [0.3, 0.5, 0.9]}), pd.DataFrame({"p_holm": [0.3, 0.5]})
    assert none_named(family, cells, "reading") == (
        "no reading moves it beyond noise after Holm's correction over the 3 moves this page "
        "picks from (of its 2, the smallest adjusted p is 0.30)"
    )
