"""The shares advise prints, and the CAS edits rejected at the first try by cause: a share
with its interval in text ("not enough days" where the days give none) and in JSON, and the
by-delay table (``advise --db`` and ``--edit-log``) in both."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from sim import stats
from sim.advise import sampled, text
from sim.advise.closedform_text import _plain
from sim.stats import Interval

CAUSES = {
    "human": ("rejected_by_human_save", "a human's newer save"),
    "agent": ("rejected_by_agent_edit", "the agent's own other edit"),
    "unpublished": ("gone", "the article unpublished"),
}
"""A first try's rejection by cause: the edit-rows column counting it, and its label."""


def cas_by_cause(
    cas: pd.DataFrame, none: str = "no question found a published article to edit"
) -> tuple[list[dict[str, Any]], list[str]]:
    """Per delay, the share of first tries rejected and of each cause, with intervals
    (``stats.share_interval``): the JSON rows and the text table. A human's newer save is
    what CAS exists to catch; the agent's own other edit of the article (the day's agent
    edits at every delay) and an unpublished article are not."""
    if cas.empty:
        return [], [f"No CAS edit was made: {none}."]
    head = ["delay", "edits", "rejected %", *(label + " %" for _, label in CAUSES.values())]
    table, rows = [head], []
    for delay, g in cas.groupby("delay_s"):
        days = g.groupby("seed")[["edits", *(c for c, _ in CAUSES.values())]].sum()
        edits = days["edits"].to_numpy(float)
        counts = {n: days[c].to_numpy(float) for n, (c, _) in CAUSES.items()}
        rejected = sum(counts.values())
        enough = sampled.MIN_DAYS_CHANGED
        total = stats.share_interval(rejected, edits, enough)
        row: dict[str, Any] = {"delay_s": float(delay), "edits": int(edits.sum())}
        row["rejected"] = share_json(total, int(rejected.sum()))
        cells = [f"{delay:g} s", f"{int(edits.sum()):,}", brief_share(total)]
        for name, c in counts.items():
            r = stats.share_interval(c, edits, enough)
            row[name] = share_json(r, int(c.sum()))
            cells.append(brief_share(r))
        rows.append(row)
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    days = cas["seed"].nunique()
    lines = [
        "CAS edits rejected at the first try, by the delay between read and edit and by "
        f"cause (% of the edits, 95 % interval; {days} {'day' if days == 1 else 'days'}):"
    ]
    lines += ["  " + "  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in table]
    return rows, lines


def brief_share(r: Interval) -> str:
    """'0.35 (0.06–2.06)' in per cent; 'not enough days' in place of no interval."""
    if math.isnan(r.lo) or r.lo == r.hi:
        return f"{100 * r.mean:.2f} (not enough days)"
    return f"{100 * r.mean:.2f} ({100 * r.lo:.2f}–{100 * r.hi:.2f})"


def share_json(r: Interval, n: int) -> dict[str, Any]:
    lo, hi = (None, None) if math.isnan(r.lo) else (r.lo, r.hi)
    return {"count": n, "share": _plain(r.mean), "lo": lo, "hi": hi, "days": r.n}


def share_ci(r: Interval, scale: float, fmt: str, cap: float | None = None) -> str:
    """A share (or rate) and its interval, scaled, the bounds kept within 0 and the cap
    (a share's 100 %). Fewer days than the advisor's MIN_DAYS_CHANGED give no interval
    ("not enough days"): two days that happen to agree would show one of zero width."""
    top = scale if cap is None else cap
    lo, hi = scale * r.lo, scale * r.hi
    if r.n < sampled.MIN_DAYS_CHANGED:
        return text.ci(scale * r.mean, math.nan, math.nan, fmt, r.n)
    if not math.isnan(lo):
        lo, hi = max(0.0, lo), min(top, hi)
    return text.ci(scale * r.mean, lo, hi, fmt)
