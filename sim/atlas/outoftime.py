"""Does a site's past predict its future? Each site's log is cut at 70 % of its span: the
share measured on the first part, with its interval, against the share measured on the
rest. The later part's reads start at the cut, where every article alive then is held as it
was (an ``add`` row at the cut: no save, so no staleness of its own)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from sim.atlas import Site, cache
from sim.calibrate.logs import CHANGES, EditLog
from sim.studymap.logs import measured_rows

DAY_S = 86400.0
PAST = 0.70
AGES_S = (DAY_S, 7 * DAY_S, 30 * DAY_S, 90 * DAY_S)
COLUMNS = [
    "site", "kind", "age_s", "draw", "past", "past_lo", "past_hi", "future", "future_lo",
    "future_hi", "future_inside",
]  # fmt: skip


def split(log: EditLog, past: float = PAST) -> tuple[EditLog, EditLog]:
    """The log before and from the cut at ``past`` of its span; the later one opens with
    every article alive at the cut (same article numbers in both)."""
    t0, t1 = float(log.epoch_s.min()), float(log.epoch_s.max())
    cut = t0 + past * (t1 - t0)
    before = log.epoch_s < cut
    first = np.full(log.n_articles, np.inf)
    np.minimum.at(first, log.article, log.epoch_s)
    gone = np.zeros(log.n_articles, dtype=bool)
    gone[log.article[before & (log.kind == CHANGES["delete"])]] = True
    order = np.lexsort((log.epoch_s, log.article))
    last_before = np.full(log.n_articles, -1)
    b = order[before[order]]
    last_before[log.article[b]] = log.kind[b]
    alive = np.flatnonzero((first < cut) & (last_before != CHANGES["delete"]))
    after = ~before
    opening = int(log.publish[after].min()) - 1 if after.any() else 0
    later = EditLog(
        np.concatenate([np.full(len(alive), cut), log.epoch_s[after]]),
        np.concatenate([np.full(len(alive), opening), log.publish[after]]),
        np.concatenate([alive, log.article[after]]).astype(np.int64),
        np.concatenate([np.full(len(alive), CHANGES["add"]), log.kind[after]]),
        log.n_articles,
        f"{log.source} (from {PAST:.0%} of its span)",
    )
    earlier = EditLog(
        log.epoch_s[before], log.publish[before], log.article[before], log.kind[before],
        log.n_articles, f"{log.source} (before {PAST:.0%} of its span)",
    )  # fmt: skip
    return earlier, later


def site_rows(site: str, kind: str, log: EditLog) -> list[dict[str, Any]]:
    """One site's past and future shares at each age both parts span, by draw (kept in
    ``cache``)."""
    what = f"outoftime {PAST} {AGES_S} {site} {kind}"
    return cache.rows(what, log, lambda: _rows(site, kind, log))


def _rows(site: str, kind: str, log: EditLog) -> list[dict[str, Any]]:
    earlier, later = split(log)
    past = {(r["age_s"], r["draw"]): r for r in measured_rows(earlier, AGES_S)}
    future = {(r["age_s"], r["draw"]): r for r in measured_rows(later, AGES_S)}
    rows = []
    for key in past.keys() & future.keys():
        p, f = past[key], future[key]
        rows.append(
            {
                "site": site,
                "kind": kind,
                "age_s": key[0],
                "draw": key[1],
                "past": p["measured"],
                "past_lo": p["measured_ci_lo"],
                "past_hi": p["measured_ci_hi"],
                "future": f["measured"],
                "future_lo": f["measured_ci_lo"],
                "future_hi": f["measured_ci_hi"],
                "future_inside": bool(p["measured_ci_lo"] <= f["measured"] <= p["measured_ci_hi"]),
            }
        )
    return sorted(rows, key=lambda r: (r["draw"], r["age_s"]))


def table(records: Iterable[Site], logs: dict[str, EditLog]) -> pd.DataFrame:
    """Every site's rows (results/atlas_outoftime.csv)."""
    rows = [
        row for r in records if r.site in logs for row in site_rows(r.site, r.kind, logs[r.site])
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(t: pd.DataFrame, draw: str) -> pd.DataFrame:
    """By age: the sites whose future falls inside their past's interval, of those tried."""
    g = t[t["draw"] == draw].groupby("age_s")["future_inside"]
    return pd.DataFrame({"sites": g.size(), "inside": g.sum().astype(int)}).reset_index()
