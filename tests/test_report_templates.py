"""The branches of the report's templates that the committed rows never take, rendered
with small hand-made values."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sim.params import Params
from sim.report import comparison
from sim.report.render import environment, render


def test_a_figure_without_a_reason_of_its_own_says_which_way_it_misses() -> None:
    df = pd.DataFrame({"cas_reject_share": [0.3]})
    higher = comparison._reason("zipf_stale_share", 0.4, 0.3, Params(), df)
    assert higher.startswith("Our model gives a higher value; the reported one lies outside")
    assert higher.endswith("see the assumptions.") and "\n" not in higher
    off_ladder = replace(Params(), edit_delays_s=(5.0, 3600.0))
    lower = comparison._reason("cas_reject_share", 0.2, 0.287, off_ladder, df)
    assert lower.startswith("Our model gives a lower value;")


def test_an_undecided_verdict_says_more_seeds_would_decide_it() -> None:
    assert comparison._reasons().undecided() == (
        "The 95 % interval of our mean reaches across the verdict's threshold (|z| = 1.96); "
        "more seeds would decide it."
    )


def test_the_exposure_section_states_a_method_checked_without_the_stopping_rule() -> None:
    def never(measure: str, more: bool) -> dict[str, object]:
        return {"measure": measure, "at": None, "more": more}

    cross = {
        m: {"messages_per_day": never("messages_per_day", m == "reread"),
            "chars_per_day": never("chars_per_day", False)}
        for m in ("poll", "reread", "poll_from_oldest")
    }  # fmt: skip
    push = {"calls_per_day": 10, "notifications_per_day": 5, "messages_per_day": 15,
            "chars_per_day": 1234}  # fmt: skip
    text = render(
        "exposure_section.md.j2", n_seeds=3, n_intervals=4, span="1 min to 4 h", stop_rule=False,
        hourly="",
        push=push, cross=cross, title={"never_noticed_share": 0.5}, su_gap=1.0, mean_gap=2.0,
        sweep="", seeds=3, advice="",
    )  # fmt: skip
    assert (
        "known stale. Re-reading and polling check every held citation at every check, "
        "including those already known stale (`stop_checking_known_stale` off): they are "
        "costed under a different stopping rule than push. Costs come" in text
    )
    assert "polling with the cursor kept\ncosts fewer messages than push at every interval" in text
    assert "re-reading\ncosts more messages than push at every interval from 1 min to 4 h," in text


def _panel(**values: object) -> str:
    base: dict[str, object] = {
        "n_logs": 3, "seeds": "", "traits_table": "", "effects": "", "equal": "",
        "brackets": None, "holds": [], "depends": [], "undecided": [],
        "traits": ["popularity exponent", "burstiness", "bulk share"], "orders": 6, "covered": 4,
    }  # fmt: skip
    return render("realshape_panel.md.j2", **(base | values))


def test_the_panel_names_the_trait_a_difference_is_ordered_as_and_says_none() -> None:
    depends = [
        {"figure": "stale", "note": "depends on the log", "ordered": [("burstiness", True)]},
        {"figure": "poll", "note": "reverses with the log", "ordered": []},
    ]
    text = _panel(depends=depends)
    assert (
        "Holds across the panel: none. Depends on the log: stale (depends on the log; ordered "
        "as the inverse of the burstiness); poll (reverses with the log; ordered as none of "
        "popularity exponent, burstiness, bulk share).\nUndecided on every log (each interval "
        "holds 0): none." in text
    )
    assert (
        "or its inverse, so a difference would match one by chance alone 67 % of the time. A"
        in text
    )
    assert "What the fit's misses do" not in text and "\n\n\n" in text


def test_the_brackets_name_each_equal_volume_move_beyond_zero() -> None:
    hits = [
        {"arm": "burst", "log": "A", "figure": "stale", "ci": "+1.0 pt (+0.2 pt – +1.8 pt)"},
        {"arm": "bulk", "log": "B", "figure": "poll", "ci": "-2.0 (-3.0 – -1.0)"},
    ]
    text = _panel(brackets={"process": "", "moves": "", "hits": hits, "total": 24})
    assert (
        "At equal day volume, 2 of 24 moves have an interval that excludes 0 (burst on A, stale: "
        "+1.0 pt (+0.2 pt – +1.8 pt); bulk on B, poll: -2.0 (-3.0 – -1.0)).\n" in text
    )


def test_the_advisors_choice_can_miss_its_target() -> None:
    setting = {
        "zipf_s": 0.9, "source": "x.csv", "window": "Tuesday", "n_saves": 300, "log_volume": 1.5,
        "target": 30.0, "advice": "poll every 60 min", "mix": [1.0], "writeup_mix": [1.0],
        "cluster_share": 0.5, "cluster_delay_min": 30.0,
    }  # fmt: skip
    targets = [
        {"name": "the write-up's process", "mean": 29.0, "reach": "meets", "by": -1.0},
        {"name": "the calibrated", "mean": 33.25, "reach": "misses", "by": 3.25},
    ]
    text = render(
        "realshape_section.md.j2", setting=setting, saves=290.0, targets=targets, seeds=4, n=4,
        common=2, headline="", top=0.1, top_writeup=0.3, ablation="", relations="", panel="",
    )  # fmt: skip
    assert (
        "min target: poll every 60 min (under the write-up's process 29.0 min, meets it; under "
        "the calibrated 33.2 min, misses it by 3.2 min); this is\n" in text
    )
    assert text.endswith("\n\n\n\n![the study on a real edit shape](realshape.png)")


def test_the_gate_names_the_conditions_where_re_reading_after_approval_succeeds_more() -> None:
    row = {
        "approvals_per_edit": 1.2, "succeeded_share": 0.9, "first_try_rejected_share": 0.05,
        "agent_calls_per_edit": 3.0, "agent_chars_per_edit": 1000.0, "first_writes_sent": 90.0,
        "edits": 100.0, "human_conflict_share_of_sent": 0.02, "human_conflict_share_of_edits": 0.01,
        "agent_conflict_share_of_sent": 0.01, "gone_share_of_sent": 0.0, "gave_up_share": 0.1,
    }  # fmt: skip
    queue = {"latency": 10.0, "reviewer": "queue", "x": row, "y": row,
             "edits_differing_share": 0.3, "success_gap": 0.02, "success_gap_ci_half": 0.01,
             "p": 0.001, "p_holm": 0.002}  # fmt: skip
    bulk = queue | {"latency": 0.5, "reviewer": "batch"}
    values = {"median_s": 120.0, "a": row, "b": row, "same": [], "differ": [queue, bulk]}
    better = render("gate_recommendation.md.j2", **values, better=[queue, bulk], poorer=[])
    assert "With one reviewer working through a queue, tool calls of 10 s they differ" in better
    assert (
        "Re-read after approval succeeds more (sign test, Holm-corrected p < 0.05) with one "
        "reviewer working through a queue, tool calls of 10 s; one reviewer approving in bulk, "
        "tool calls of 0.5 s: prefer it there" in better
    )
    poorer = render("gate_recommendation.md.j2", **values, better=[], poorer=[bulk])
    assert (
        "It succeeds less (sign test, Holm-corrected p < 0.05) with one reviewer approving in "
        "bulk, tool calls of 0.5 s; re-reading after the approval always costs" in poorer
    )


def test_the_real_shape_figures_titles_read_with_one_share_held_or_none_named() -> None:
    titles = environment().get_template("realshape_figures.txt.j2").module
    assert titles.panel_title([("title check catches", "lower")], 7, 3) == (
        "1 of 7 keeps their direction on all 3 logs' shapes at the write-up's volume (title "
        "check catches: lower); the rest depend on the log or are undecided"
    )
    assert titles.panel_title([], 7, 2).startswith(
        "0 of 7 keep their direction on all 2 logs' shapes at the write-up's volume;"
    )
    assert titles.title(None, 4, 4) == (
        "On a real help centre's edits at the write-up's volume, against the write-up's process"
        "\n(dot: mean seed-paired "
        "difference, line: 95 % CI over 4 seeds an arm, a count fixed in advance; red: the "
        "whole calibrated shape)"
    )
