"""The statistics a referee reads off an edit log, computed the same way on logged and
generated saves (both as ``Saves``), so a comparison is like for like."""

from __future__ import annotations

import numpy as np

from sim.calibrate import sessions
from sim.calibrate.generate import DAY_S, Saves

RESAVE_WITHIN_S = {"10 min": 600.0, "1 h": 3600.0, "1 day": DAY_S}
STATISTICS = (
    "top-10 share of body edits",
    "re-saves within 10 min",
    "re-saves within 1 h",
    "re-saves within 1 day",
    "saves in publishes of >=10",
    "publishes with >1 article",
    "saves per active day",
    "weekend share",
)


def summary(saves: Saves, start_s: float = 0.0) -> dict[str, float]:
    """The STATISTICS of a set of saves whose time 0 is ``start_s`` after a Monday 00:00 UTC."""
    nan = float("nan")
    if not len(saves):
        return dict.fromkeys(STATISTICS, nan)
    body = np.sort(np.bincount(saves.rank[saves.kind == 0]))[::-1]
    gaps = sessions.resave_gaps(saves.rank, saves.time_s)
    sizes = np.bincount(saves.publish)
    sizes = sizes[sizes > 0]
    day = np.floor((start_s + saves.time_s) / DAY_S).astype(np.int64)
    out = {"top-10 share of body edits": float(body[:10].sum() / body.sum()) if body.sum() else nan}
    for label, s in RESAVE_WITHIN_S.items():
        out[f"re-saves within {label}"] = float(np.mean(gaps <= s)) if len(gaps) else nan
    out["saves in publishes of >=10"] = float(sizes[sizes >= 10].sum() / sizes.sum())
    out["publishes with >1 article"] = float(np.mean(sizes > 1))
    out["saves per active day"] = float(len(saves) / len(np.unique(day)))
    out["weekend share"] = float(np.mean(day % 7 >= 5))
    return out
