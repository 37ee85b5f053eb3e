"""REPORT.md's first page: the three answers as functions of what decides them.

Each answer is said in one sentence as a function (of a cited article's edits a day, the
citation's age, how questions relate to edits, the agent's own edits), then placed at three
kinds of point: the atlas's documentation sites measured from their own rows (their spread,
prediction interval and checks: ``sim.report.atlas``), the write-up's day simulated (its one
canonical number, defined beside it), and the reader's own KB (the command that gives it).
What moves the write-up's point most is picked by Holm's correction over the family it is
picked from (``designer``). Every number comes from the run's tables and rows; the words are
templates/firstpage_page.md.j2's.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sim.advise.closedform import MODEL_MARGIN
from sim.params import Params
from sim.report import atlas, designer
from sim.report.designer import (
    HOUR_S,
    METHOD_WORDS,
    _comparison_interval,
    _exposure_at,
    _human_part,
)
from sim.report.render import render
from sim.stats import Interval, normal_interval, ratio_interval
from sim.study.ladder import delay_label
from sim.studymap.figures import pct
from sim.studymap.report import writeup_rate
from sim.studymap.tables import stale_at

DAY_S = 86400.0


def _range(values: pd.Series) -> dict[str, float]:
    return {"lo": values.min(), "hi": values.max()}


def _break_even_settings(settings: pd.DataFrame) -> list[dict[str, Any]]:
    """The break-even's range over questions a day where a poll call takes every event, or
    saves spread evenly (the first page's own: Zipf saves, 100 events a poll call)."""
    out = []
    for (spread, page), g in settings.groupby(["save_popularity", "poll_page_events"], sort=False):
        if (spread, page) in (("zipf", 0), ("even", 100), ("even", 0)):
            at = g["saves_per_check_at_break_even"]
            out.append({"even": spread == "even", "page": int(page), **_range(at)})
    return out


def _pick(advice: dict[str, Any] | None, sets: pd.DataFrame | None) -> dict[str, Any] | None:
    """The advisor's pick for the write-up's day, with the same rule's pick on each of two
    disjoint seed sets (None where the advisor was not run or picked nothing)."""
    if advice is None or advice.get("choice") is None:
        return None
    c = advice["choice"]
    return {
        **c,
        "words": METHOD_WORDS.get(c["method"], c["method"]),
        "simulate": int(advice.get("seeds") or 0),
        "sets": None if sets is None else seedset_values(sets),
    }


def _option(r: pd.Series) -> dict[str, Any]:
    """One row of advise_pick_seedsets.csv as the page says it."""
    every = r["interval_min"]
    calls = Interval(r["calls_per_day"], r["calls_per_day_ci_lo"], r["calls_per_day_ci_hi"], 0, 0)
    return {
        "label": METHOD_WORDS.get(r["method"], r["method"])
        + (f" every {every:g} min" if every > 0 else " on every change"),
        "mean": r["mean_unnoticed_min"],
        "lo": r["mean_unnoticed_min_ci_lo"],
        "hi": r["mean_unnoticed_min_ci_hi"],
        "calls": calls,
        "meets": bool(r["meets_target"]),
    }


def seedset_values(t: pd.DataFrame) -> dict[str, Any]:
    """The pick on each seed set (results/advise_pick_seedsets.csv), set A's checked on set
    B, and set A's next longer interval of the same method, which the margin passed over,
    on both sets (with the sets where its interval alone ends under the target)."""
    target = float(t["target_min"].iloc[0])
    out: dict[str, Any] = {"margin_line": MODEL_MARGIN, "target": target, "passed": None}
    for name, g in t.groupby("seed_set", sort=True):
        picked, on_a = g[g["picked"].astype(bool)], g[g["picked_on_a"].astype(bool)]
        out[name] = {
            "range": g["seed_range"].iloc[0],
            "n": int(g["days"].max()),
            "pick": _option(picked.iloc[0]) if len(picked) else None,
            "a_pick": _option(on_a.iloc[0]) if len(on_a) else None,
        }
    a, b = out["A"]["pick"], out["B"]["pick"]
    out["same"] = a is not None and b is not None and a["label"] == b["label"]
    chosen = t[(t["seed_set"] == "A") & t["picked"].astype(bool)]
    if len(chosen) and chosen["interval_min"].iloc[0] > 0:
        c = chosen.iloc[0]
        same = t[(t["method"] == c["method"]) & (t["interval_min"] > c["interval_min"])]
        nxt = same[same["interval_min"] == same["interval_min"].min()]
        if len(nxt) and not nxt["meets_target"].astype(bool).any():
            rows = {r["seed_set"]: _option(r) for _, r in nxt.iterrows()}
            under = nxt["mean_unnoticed_min_ci_hi"] <= target
            out["passed"] = {
                "every": f"every {nxt['interval_min'].iloc[0]:g} min",
                "sets": rows,
                "under": list(nxt.loc[under, "seed_range"]),
                "over": list(nxt.loc[~under, "seed_range"]),
            }
    return out


def page(
    t: dict[str, pd.DataFrame],
    rows: dict[str, pd.DataFrame],
    advice: dict[str, Any] | None,
    target_min: float,
    base: Params,
) -> str:
    """The first page of REPORT.md, for the write-up's day ``base``."""
    rate = writeup_rate(base)
    comparison, sens, realshape = t["comparison"], t.get("sensitivity"), t.get("realshape")
    logs, cas_map = t["map_logs"], t["map_cas"]
    traits = logs.drop_duplicates("log").set_index("log")

    stale = _comparison_interval(comparison, "zipf_stale_share")
    answers = _comparison_interval(comparison, "zipf_answers_with_stale_share")
    title = _comparison_interval(comparison, "title_caught_share")
    steady = t["map_stale"]
    at_8h = stale_at(steady, "same", rate, base.day_s)
    wk_same, wk_ind = (stale_at(steady, r, 0.01, 7 * DAY_S) for r in ("same", "independent"))
    st_read = designer.top_reading(sens, "zipf_stale_share") if sens is not None else None
    own_per_day = traits["saves_per_hour"] * 24  # the logs' own saves a calendar day
    st_real = designer.top_real_move(realshape, "stale_share", own_per_day)

    ex = rows["exposure"]
    n_ex = ex["seed"].nunique()
    reread, poll = _exposure_at(ex, "reread", HOUR_S), _exposure_at(ex, "poll", HOUR_S)
    push = _exposure_at(ex, "push", 0.0)
    title_ex = ex[ex["method"] == "title_only"]
    title_never = ratio_interval(title_ex["never"].to_numpy(), title_ex["changed"].to_numpy())
    per_hour = traits["saves_per_hour"]
    points = t["map_break_even_points"]

    h = _comparison_interval(comparison, "cas_reject_share_3600s")
    human = _comparison_interval(comparison, "cas_human_reject_share_3600s")
    head = rows["cas_headline"]
    own = normal_interval(
        (head["cas_reject_share_3600s"] - head["cas_human_reject_share_3600s"]).to_numpy()
    )
    cas = t["cas_by_delay"].set_index("delay_s")
    fast = float(cas.index.min())
    agent_1h = cas_map[(cas_map["rejected_by"] == "agent") & (cas_map["delay_s"] == HOUR_S)]
    cas_read = designer.top_reading(sens, "cas_reject_share_3600s") if sens is not None else None
    cas_real = designer.top_real_move(realshape, "cas_reject_3600s", own_per_day)
    poll_real = designer.top_real_move(realshape, "poll_calls", own_per_day)

    return render(
        "firstpage_page.md.j2",
        server=designer.SERVER,
        writeup_title=designer.WRITEUP_TITLE,
        atlas=atlas.page_values(t),
        backtest=backtest_values(t["advise_backtest"]),
        day=_day(base, rate),
        stale=stale,
        answers=answers,
        title=title,
        map={
            "at_8h": pct(at_8h),
            "week_same": pct(wk_same),
            "week_independent": pct(wk_ind),
        },
        stale_reading=st_read,
        stale_real=st_real,
        exposure_seeds=n_ex,
        reread=reread,
        poll=poll,
        push=push,
        title_never=title_never,
        held=[
            {"saves": r["saves_per_check_at_break_even"], "citations": r["citations_held"]}
            for _, r in points.iterrows()
            if pd.notna(r["saves_per_check_at_break_even"])
        ],
        held_settings=_break_even_settings(t["map_break_even_settings"]),
        per_hour=_range(per_hour),
        poll_real=poll_real,
        pick=_pick(advice, t.get("advise_pick_seedsets")),
        target_min=target_min,
        at_1h=h,
        human=human,
        own=own,
        curve=[(r["rejected_share_all_seeds_mean"], delay_label(d)) for d, r in cas.iterrows()],
        agent_1h={
            "share_lo": agent_1h["rejected_share"].min(),
            "share_hi": agent_1h["rejected_share"].max(),
            "rate_lo": agent_1h["edits_per_article_day"].min(),
            "rate_hi": agent_1h["edits_per_article_day"].max(),
        },
        cas_reading=cas_read,
        human_part=_human_part(sens, cas_read),
        cas_real=cas_real,
        fastest={
            "delay": delay_label(fast),
            "share": cas.loc[fast, "rejected_share_all_seeds_mean"],
        },
    )


def _day(base: Params, rate: float) -> dict[str, float]:
    """The write-up's day as the page states it: its size, its hours, and its edits per
    article both per working day and per 24 h (the rate every formula's r is in)."""
    return {
        "articles": base.n_articles,
        "saves": base.n_saves,
        "questions": base.n_questions,
        "citations": base.citations_per_answer,
        "hours": base.day_s / HOUR_S,
        "per_workday": base.n_saves / base.n_articles,
        "per_24h": rate,
    }


def backtest_values(bt: pd.DataFrame) -> dict[str, Any]:
    """The advice held to the atlas sites' futures (results/advise_backtest.csv): how many
    sites had a change to a cited article to replay, at how many the replayed mean met the
    target, at how many its 95 % interval's top did too, and the changed weeks behind it."""
    judged = bt[bt["met"].notna()]
    met = judged["met"].astype(str) == "True"
    return {
        "sites": len(bt),
        "judged": len(judged),
        "met": int(met.sum()),
        "met_upper": int((judged["unnoticed_hi"] <= judged["target_min"]).sum()),
        "target": float(bt["target_min"].iloc[0]) if len(bt) else float("nan"),
        "picks": sorted(judged["pick"].unique()),
        "windows": int(judged["windows_changed"].median()) if len(judged) else 0,
    }
