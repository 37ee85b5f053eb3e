"""Every figure the write-up reports: its key among the per-seed quantities, its value and
wording, the rule it is judged by (``sim.report.comparison`` sets ours beside it); the
shares pooled over seeds 1–5 as the write-up pooled them; and the closed form of each figure
that has one. The open choices' readings keep the per-seed quantities these figures are
made of (``sim.study.readings``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim.params import Params
from sim.popularity import top_share
from sim.theory import p_human_save_before_edit, stale_shares_at_day_end


@dataclass(frozen=True)
class Reported:
    key: str
    figure: str
    value: float
    as_written: str
    rule: str
    """'share': inside the five-seed range; 'zero': 0 in every seed; 'all': true in every seed;
    'one': at most 1 in every seed."""
    band: tuple[float, float] | None = None
    """For a verbal figure, the values its wording allows; None for an exact one."""
    counts: tuple[int, int] | None = None
    """For a count, the write-up's numerator and denominator (value is their ratio)."""
    untested: str = ""
    """Why the figure is not one of the independent tests Holm's correction runs over
    (a model input, or arithmetic of other tested figures); '' for a test."""

    @property
    def bounds(self) -> tuple[float, float]:
        return self.band if self.band is not None else (self.value, self.value)

    @property
    def band_text(self) -> str:
        if self.band is None:
            return ""
        lo, hi = self.band
        return f"{100 * lo:g}–{100 * hi:g} %" if lo > 0 else f"below {100 * hi:g} %"


REPORTED = (
    Reported(
        "top10_question_share",
        "top 10 articles' share of questions",
        0.367,
        "36.7 %",
        "share",
        untested="a model input: the Zipf weights are drawn from, not produced",
    ),
    Reported(
        "top10_save_share",
        "top 10 articles' share of saves",
        0.367,
        "36.7 %",
        "share",
        untested="a model input: the Zipf weights are drawn from, not produced",
    ),
    Reported(
        "zipf_stale_share",
        "stale citations at day end (Zipf)",
        369 / 1200,
        "369 of 1,200 (30.75 %)",
        "share",
        counts=(369, 1200),
    ),
    Reported(
        "zipf_answers_with_stale_share",
        "answers with ≥ 1 stale citation (Zipf)",
        0.8,
        "four out of five",
        "share",
        (0.75, 0.85),
    ),
    Reported(
        "control_stale_share",
        "stale citations, even control",
        167 / 1200,
        "167 of 1,200 (13.9 %)",
        "share",
        counts=(167, 1200),
    ),
    Reported(
        "control_answers_with_stale_share",
        "answers with ≥ 1 stale citation, even control",
        280 / 600,
        "280 of 600 (46.7 %)",
        "share",
        counts=(280, 600),
    ),
    Reported(
        "title_caught_share",
        "title-only check: stale citations caught",
        152 / 369,
        "152 of 369 (41.2 %)",
        "share",
        counts=(152, 369),
    ),
    Reported("title_caught_body", "title-only check: body-only edits caught", 0.0, "never", "zero"),
    Reported(
        "ids_equal_truth",
        "re-read and poll equal ground truth at every check",
        1.0,
        "369 = 369, asserted at every check",
        "all",
    ),
    Reported(
        "poll_calls_per_check_max", "poll calls per hourly check", 1.0, "one call per check", "one"
    ),
    Reported(
        "cas_reject_share_5s",
        "CAS edits rejected after 5 s",
        0.0,
        "good for seconds",
        "share",
        (0.0, 0.01),
    ),
    Reported(
        "cas_reject_share_3600s",
        "CAS edits rejected after 1 h",
        0.4,
        "about 4 in 10",
        "share",
        (0.35, 0.45),
    ),
    Reported(
        "cas_human_reject_share_3600s",
        "CAS edits rejected after 1 h, by a human's save only",
        0.4,
        "about 4 in 10",
        "share",
        (0.35, 0.45),
        untested="a second reading of the 1 h figure (the write-up's reason for a rejection); "
        "the all-cause share, counted as the write-up counts rejections, is the test",
    ),
    Reported(
        "cas_reject_share",
        "CAS first-try rejections, all four delays",
        172 / 600,
        "172 of 600 (28.7 %, derived)",
        "share",
        counts=(172, 600),
    ),
    Reported(
        "cas_gone_share",
        "CAS edits that found the article unpublished",
        19 / 600,
        "19 of 600",
        "share",
        counts=(19, 600),
    ),
    Reported("cas_retries_all_succeeded", "every re-read-and-retry succeeded", 1.0, "all", "all"),
    Reported(
        "cas_replay_share",
        "edits whose success was sent again (replays)",
        409 / 600,
        "409 after 600 edits",
        "share",
        counts=(409, 600),
        untested="arithmetic of two tested figures: replays = 1 − rejections − gone",
    ),
    Reported(
        "cas_replays_matched_share",
        "replays that returned the first result",
        1.0,
        "409 of 409",
        "share",
        counts=(409, 409),
        untested="a property the store guarantees (every replay returns its first result, "
        "so no seed can differ): a check, not a test that could fail by chance",
    ),
    Reported("cas_replay_new_events", "new events appended by replays", 0.0, "none", "zero"),
)


RATIOS = {
    "top10_question_share": ("questions_top10", "questions"),
    "top10_save_share": ("saves_top10", "saves"),
    "zipf_stale_share": ("zipf_stale", "zipf_citations"),
    "zipf_answers_with_stale_share": ("zipf_answers_with_stale", "zipf_answers"),
    "control_stale_share": ("control_stale", "control_citations"),
    "control_answers_with_stale_share": ("control_answers_with_stale", "control_answers"),
    "title_caught_share": ("title_caught", "title_truth_stale"),
    "cas_reject_share": ("cas_conflicts", "cas_edits"),
    "cas_gone_share": ("cas_gone", "cas_edits"),
    "cas_replays_matched_share": ("cas_replays_matched", "cas_replays"),
    "cas_replay_share": ("cas_replays", "cas_edits"),
}
"""Shares pooled over seeds 1–5 as numerator / denominator, as the write-up pooled them."""


def control_form(base: Params) -> float:
    """The even control's stale share at the day's end in closed form (``sim.theory``)."""
    return stale_shares_at_day_end(replace(base, save_popularity="even"))["citations"]


def human_save_forms(base: Params, delays_s: list[float]) -> list[float]:
    """The chance a human saves the article between the read and an edit at each delay, in
    closed form (``sim.theory``): the CAS table's column beside the simulated share."""
    return [p_human_save_before_edit(base, d) for d in delays_s]


def closed_forms(base: Params) -> dict[str, float]:
    """The closed form of each figure that has one (sim/theory.py)."""
    if base.edit_follows_questions != 1.0:
        return {}
    zipf = stale_shares_at_day_end(base)
    even = stale_shares_at_day_end(replace(base, save_popularity="even"))  # control_form's
    top = top_share(base.n_articles, base.zipf_s)
    return {
        "top10_question_share": top,
        "top10_save_share": top,
        "zipf_stale_share": zipf["citations"],
        "zipf_answers_with_stale_share": zipf["answers"],
        "control_stale_share": even["citations"],
        "control_answers_with_stale_share": even["answers"],
    }


def control_means(base: Params) -> dict[str, float]:
    """The per-seed counts whose expectation ``Params`` fixes exactly, for control variates:
    the day's questions and human saves on the ten most popular articles, each target drawn
    with replacement by the Zipf weights (``sim.model.schedule``), so n·w₁₀ with w₁₀ the
    top ten's weight (n the count, or its Poisson mean). None where the draws are not that:
    a calibrated process, questions clustered or on another ranking, saves without
    replacement, evenly spread or not on the questions' ranking."""
    if base.save_process != "writeup" or base.question_relation != "same":
        return {}
    top = top_share(base.n_articles, base.zipf_s)
    means = {"questions_top10": base.n_questions * top}
    saves_zipf = base.save_popularity == "zipf" and base.edit_follows_questions == 1.0
    if saves_zipf and base.save_spread != "distinct_articles":
        means["saves_top10"] = base.n_saves * top
    return means
