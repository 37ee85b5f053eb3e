"""The first page's picks and values: what moves the write-up's day most (a reading of an
open choice, an assumed question relation on the real logs), each chosen only where Holm's
correction over the family it is picked from keeps it, and the figures the page quotes, as
intervals over seeds. ``firstpage`` passes them to templates/firstpage_page.md.j2, whose
phrases (firstpage_phrases.md.j2) word them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sim.report import picks
from sim.report.tornado import READING_WORDS
from sim.stats import Interval, ratio_interval

WRITEUP_TITLE = (
    "How Claude can tell that a citation from the osFoundry knowledge base has gone "
    "stale, rebuilt in Python"
)
"""The write-up's title, in English (the original is a Korean blog post)."""
SERVER = "osFoundry MCP server"

HOUR_S = 3600.0
METHOD_WORDS = {
    "poll": "poll with the cursor kept",
    "push": "push",
    "reread": "re-read every cited article",
}
CHOICE_LABELS = READING_WORDS
"""Plain words for the readings that top a headline figure (others print as `choice = v`)."""


def _comparison_interval(comparison: pd.DataFrame, key: str) -> Interval:
    r = comparison.set_index("key").loc[key]
    return Interval(r["mean"], r["ci_lo"], r["ci_hi"], r["sd"], int(r["seeds"]))


PAGE_READINGS = ("zipf_stale_share", "cas_reject_share_3600s")
"""The figures this page names a reading's move for: one family for Holm's correction."""
PAGE_PANEL = ("stale_share", "poll_calls", "cas_reject_3600s")
"""The figures this page names a real log's move for: one family for Holm's correction."""


def reading_family(sensitivity: pd.DataFrame) -> pd.DataFrame:
    """Every reading × figure cell this page picks a largest move from, with Holm's adjusted
    p over them all (the delay ladders are Appendix B's, not picked from here)."""
    s = sensitivity[
        sensitivity["figure"].isin(PAGE_READINGS)
        & (sensitivity["choice"] != "default")
        & (sensitivity["choice"] != "edit_delays_s")
        & sensitivity["can_move"].astype(bool)
        & sensitivity["shift_from_default"].notna()
    ]
    return picks.with_holm(s, "shift_p")


def top_reading(sensitivity: pd.DataFrame, figure: str) -> dict[str, Any]:
    """The reading of an open choice that shifts a figure most among those Holm's correction
    over the page's family keeps, with its paired CI (``label`` None where none is kept)."""
    family = reading_family(sensitivity)
    named = picks.ranked(family[family["figure"] == figure], "shift_from_default")
    if named.empty:
        cells = family[family["figure"] == figure]
        return {"label": None, "none": picks.none_named(family, cells, "reading of an open choice")}
    r = named.iloc[0]
    label = f"{r['choice']} = {r['reading']}"
    return {
        "label": label,
        "choice": r["choice"],
        "reading": str(r["reading"]),
        "words": CHOICE_LABELS.get(label, f"`{label}`"),
        "shift": r["shift_from_default"],
        "lo": r["shift_ci_lo"],
        "hi": r["shift_ci_hi"],
        "seeds": int(r["shift_seeds"]),
        "p_holm": r["p_holm"],
        "p_text": picks.p_text(r["p_holm"]),
        "family": len(family),
    }


def _move(row: pd.Series) -> dict[str, Any]:
    from sim.report.realshape_section import LABELS

    return {
        "log": row.get("log"),
        "arm": LABELS.get(row["arm"], row["arm"]),
        "reference": LABELS.get(row["reference"], row["reference"]),
        "diff": row["diff_mean"],
        "lo": row["diff_ci_lo"],
        "hi": row["diff_ci_hi"],
        "seeds": int(row["diff_seeds"]),
        "p_holm": row["p_holm"],
        "p_text": picks.p_text(row["p_holm"]),
    }


def _volume(
    realshape: pd.DataFrame, row: pd.Series, own_per_day: pd.Series | None
) -> dict[str, Any]:
    """The saves a day the move's arm ran at on its log (the write-up's volume put into the
    log's shape) and the log's own saves a calendar day; empty without the logs' rates."""
    if own_per_day is None or "log" not in realshape or row.get("log") not in own_per_day:
        return {}
    saves = realshape[
        (realshape["figure"] == "saves")
        & (realshape["arm"] == row["arm"])
        & (realshape["log"] == row["log"])
    ]
    if saves.empty:
        return {}
    return {"saves": float(saves["mean"].iloc[0]), "own_per_day": float(own_per_day[row["log"]])}


def panel_family(realshape: pd.DataFrame) -> pd.DataFrame:
    """Every panel move this page picks a largest from: on each log and each of PAGE_PANEL's
    figures, each arm that changes how questions relate to edits (an assumption no edit log
    measures), with Holm's adjusted p over them all. The logs' measured features are the
    map's (§ 7) and Appendix C's, not picked from here."""
    from sim.study.realshape_seeds import BY_NAME

    r = realshape[realshape["figure"].isin(PAGE_PANEL) & realshape["diff_mean"].notna()]
    assumed = r["arm"].map(lambda a: BY_NAME[a].relation != "same")
    return picks.with_holm(r[assumed], "diff_p")


def top_real_move(
    realshape: pd.DataFrame | None, figure: str, own_per_day: pd.Series | None = None
) -> dict[str, Any] | None:
    """The arm of an assumed question relation that moves a figure most against its
    reference arm on any log, among those Holm's correction over the page's family keeps
    (``assumption`` None where none is kept); with ``own_per_day`` (each log's saves a
    calendar day over its span), the volume the move ran at beside the log's own."""
    if realshape is None or "diff_mean" not in realshape:
        return None
    family = panel_family(realshape)
    mine = family[family["figure"] == figure]
    if mine.empty:
        return None
    named = [
        _move(r) | _volume(realshape, r, own_per_day)
        for _, r in picks.ranked(mine, "diff_mean").iterrows()
    ]
    return {
        "assumption": next(iter(named), None),
        "family": family,
        "assumptions": mine,
        "none": picks.none_named(family, mine, "question relation"),
    }


def _mean_interval(values: pd.Series) -> Interval:
    """Mean over a few seeds, with Student's t quantile."""
    v = values.to_numpy(dtype=float)
    return ratio_interval(v, np.ones_like(v))


def _exposure_at(rows: pd.DataFrame, method: str, interval_s: float) -> dict[str, Interval]:
    r = rows[(rows["method"] == method) & (rows["interval_s"] == interval_s)]
    return {
        "calls": _mean_interval(r["calls"]),
        "messages": _mean_interval(r["calls"] + r["notifications"]),
        "unnoticed_min": ratio_interval(r["unnoticed_s"].to_numpy() / 60, r["changed"].to_numpy()),
    }


def _human_part(sens: pd.DataFrame | None, read: dict[str, Any] | None) -> dict[str, Any] | None:
    """The sensitivity row of a reading's move at 1 h in rejections by humans' saves (None
    where there is no reading or it cannot move that figure)."""
    if sens is None or read is None or read["label"] is None:
        return None
    r = sens[
        (sens["choice"] == read["choice"])
        & (sens["reading"].astype(str) == read["reading"])
        & (sens["figure"] == "cas_human_reject_share_3600s")
    ]
    if r.empty or not bool(r["can_move"].iloc[0]):
        return None
    return dict(r.iloc[0].to_dict())
