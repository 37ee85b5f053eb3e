"""Headline quantities, one row per seed, from the study's record frames.

'Stale' in the headline counts every citation whose article was saved after the
read, including those unpublished since (gone): the write-up's 369 includes the
unpublished ones, since its title-only check caught "title changes or unpublishes".
"""

from __future__ import annotations

import pandas as pd

from sim.model import methods
from sim.params import LADDER_S
from sim.study.experiments import StudyFrames


def staleness_by_seed(citations: pd.DataFrame, prefix: str = "") -> pd.DataFrame:
    kind = citations["final_kind"]
    c = citations.assign(
        stale=citations["final_status"] != "fresh",
        body=kind == "body",
        title=kind == "title",
        gone=kind == "gone",
    )
    per_answer = c.groupby(["seed", "answer"])["stale"].any()
    sums = c.groupby("seed")[["stale", "body", "title", "gone"]].sum()
    out = pd.DataFrame(
        {
            "citations": c.groupby("seed").size(),
            "stale": sums["stale"],
            "stale_body": sums["body"],
            "stale_title": sums["title"],
            "gone": sums["gone"],
            "answers": per_answer.groupby("seed").size(),
            "answers_with_stale": per_answer.groupby("seed").sum(),
        }
    )
    out["stale_share"] = out["stale"] / out["citations"]
    out["answers_with_stale_share"] = out["answers_with_stale"] / out["answers"]
    return out.add_prefix(prefix)


WIDE_COSTS = {"reread": "reread", "poll": "poll_method", "title_only": "title"}
"""The per-seed rows' names of the hourly methods' costs (``{name}_calls``,
``{name}_chars``), in their column order: frozen with the committed rows, which the report
reads. A method added to the registry gets rows in the long form (``sim.study.methodrows``,
the sweep's method table), not columns here."""


def checks_by_seed(checks: pd.DataFrame) -> pd.DataFrame:
    final = checks[checks["check"] == checks.groupby("seed")["check"].transform("max")]
    title = final[final["method"] == "title_only"].set_index("seed")
    truth = final[final["method"] == "truth"].set_index("seed")
    by = checks.set_index(["seed", "check", "method"])
    truth_flags = by.xs("truth", level="method")["flagged"]
    ran = set(checks["method"])
    exact = [m.name for m in methods.HOURLY if m.exact and m.name in ran]
    ids_equal = (
        pd.concat(
            [
                (by.xs(m, level="method")["caught"] == truth_flags)
                & (by.xs(m, level="method")["false_alarms"] == 0)
                for m in exact
            ],
            axis=1,
        )
        .all(axis=1)
        .groupby("seed")
        .all()
    )
    polls = checks[checks["method"] == "poll"].groupby("seed")["poll_calls"]
    cost = checks.groupby(["seed", "method"])[["calls", "result_chars"]].sum().unstack("method")
    costs = {
        f"{wide}_{measure}": cost[(column, method)]
        for method, wide in WIDE_COSTS.items()
        for measure, column in (("calls", "calls"), ("chars", "result_chars"))
    }
    return pd.DataFrame(
        {
            "title_caught": title["caught"],
            "title_caught_body": title["caught_body"],
            "title_caught_title": title["caught_title"],
            "title_caught_gone": title["caught_gone"],
            "title_false_alarms": title["false_alarms"],
            "title_caught_share": title["caught"] / truth["flagged"],
            "title_truth_stale": truth["flagged"],
            "ids_equal_truth": ids_equal,
            "poll_calls_per_check_max": polls.max(),
            "checks": checks.groupby("seed")["check"].max(),
            **costs,
        }
    )


def cas_by_seed(edits: pd.DataFrame) -> pd.DataFrame:
    e = edits.assign(
        conflict=edits["first_outcome"] == "conflict",
        gone=edits["first_outcome"] == "gone",
        first_ok=edits["first_outcome"] == "ok",
        ok=edits["final_outcome"] == "ok",
        by_agent=edits["conflict_cause"] == "agent",
        by_human=edits["conflict_cause"] == "human",
    )
    g = e.groupby("seed")
    out = pd.DataFrame(
        {
            "cas_edits": g.size(),
            "cas_first_ok": g["first_ok"].sum(),
            "cas_conflicts": g["conflict"].sum(),
            "cas_conflicts_agent": g["by_agent"].sum(),
            "cas_gone": g["gone"].sum(),
            "cas_successes": g["ok"].sum(),
            "cas_retries_all_succeeded": e[e["conflict"]].groupby("seed")["ok"].all(),
            "cas_replays": g["replayed"].sum(),
            "cas_replays_matched": g["replay_matched"].sum(),
            "cas_conflicts_human": g["by_human"].sum(),
            "cas_replay_new_events": g["replay_new_events"].sum(),
        }
    )
    out["cas_retries_all_succeeded"] = out["cas_retries_all_succeeded"].fillna(True).astype(bool)
    out["cas_reject_share"] = out["cas_conflicts"] / out["cas_edits"]
    out["cas_gone_share"] = out["cas_gone"] / out["cas_edits"]
    out["cas_replays_matched_share"] = out["cas_replays_matched"] / out["cas_replays"]
    out["cas_replay_share"] = out["cas_replays"] / out["cas_edits"]
    out["cas_human_reject_share"] = out["cas_conflicts_human"] / out["cas_edits"]
    human = e.assign(human=e["conflict"] & (e["conflict_cause"] == "human"))
    for d in LADDER_S:
        at = e[e["delay_s"] == d].groupby("seed")["conflict"].mean()
        out[f"cas_reject_share_{int(d)}s"] = at
        at = human[human["delay_s"] == d].groupby("seed")["human"].mean()
        out[f"cas_human_reject_share_{int(d)}s"] = at
    return out


PER_SEED_RECORDS = ("days", "citations", "checks", "edits")
"""The record types per_seed reads."""


def per_seed(f: StudyFrames) -> pd.DataFrame:
    """One row per seed with every headline quantity of the experiments that were run."""

    def of(frame: pd.DataFrame, experiment: str) -> pd.DataFrame:
        return frame[frame["experiment"] == experiment] if not frame.empty else frame

    # each experiment's records selected once (a selection copies the frame: the realshape
    # arms and the readings call this per point)
    zipf, control = of(f.citations, "staleness"), of(f.citations, "control")
    checks, cas = of(f.checks, "staleness"), of(f.edits, "cas")
    parts = []
    if not zipf.empty:
        parts.append(staleness_by_seed(zipf, "zipf_"))
    if not control.empty:
        parts.append(staleness_by_seed(control, "control_"))
    if not checks.empty:
        parts.append(checks_by_seed(checks))
    if not cas.empty:
        parts.append(cas_by_seed(cas))
    # Questions are the same in every run of a seed; saves too, except in the control.
    days = f.days[f.days["experiment"] != "control"]
    days = (days if not days.empty else f.days).drop_duplicates("seed").set_index("seed")
    parts.append(
        pd.DataFrame(
            {
                "questions": days["questions"],
                "questions_top10": days["questions_top10"],
                "saves": days["saves"],
                "saves_top10": days["saves_top10"],
                "top10_question_share": days["questions_top10"] / days["questions"],
                "top10_save_share": days["saves_top10"] / days["saves"],
            }
        )
    )
    out = pd.concat(parts, axis=1)
    out.index.name = "seed"
    return out.reset_index()


DAY_COLUMNS = [
    "questions",
    "questions_top10",
    "saves",
    "saves_top10",
    "top10_question_share",
    "top10_save_share",
]


def joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """per_seed of several sets of runs (each with its own seeds) as per_seed of all their
    records: columns in the parts' order, the day columns last, taken from the first part
    that has the seed (the day is the same in every run but the control)."""
    indexed = [p.set_index("seed") for p in parts]
    days = indexed[0][DAY_COLUMNS]
    for p in indexed[1:]:
        days = days.combine_first(p[DAY_COLUMNS])[DAY_COLUMNS]
    out = pd.concat([p.drop(columns=DAY_COLUMNS) for p in indexed] + [days], axis=1)
    out.index.name = "seed"
    return out.reset_index()


EDIT_KEYS = ["experiment", "delay_s", "seed"]
EDIT_COUNTS = [
    "edits",
    "first_try_ok",
    "rejected",
    "rejected_by_human_save",
    "rejected_by_agent_edit",
    "gone",
    "attempts",
    "succeeded",
    "gave_up",
    "replays_matched",
    "replay_new_events",
    "human_save_in_window",
]
"""The counts of the CAS tables, per run, delay and seed (``edit_rows``) and pooled."""


def edit_rows(f: StudyFrames) -> pd.DataFrame:
    """Per run, delay and seed: the counts of the CAS tables."""
    e = f.edits
    return (
        e.assign(
            edits=1,
            first_try_ok=e["first_outcome"] == "ok",
            rejected=e["first_outcome"] == "conflict",
            rejected_by_human_save=e["conflict_cause"] == "human",
            rejected_by_agent_edit=e["conflict_cause"] == "agent",
            gone=e["first_outcome"] == "gone",
            succeeded=e["final_outcome"] == "ok",
            gave_up=e["final_outcome"] == "gave_up",
            replays_matched=e["replay_matched"],
        )
        .groupby(EDIT_KEYS, as_index=False)[EDIT_COUNTS]
        .sum()
    )
