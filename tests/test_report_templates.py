"""The branches of the report's templates that the committed rows never take, rendered
with small hand-made values."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sim.params import Params
from sim.report import comparison
from sim.report.render import render


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
        "exposure_section.md.j2", n_seeds=3, n_intervals=4, stop_rule=False, hourly="",
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
