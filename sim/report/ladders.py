"""The delay ladder as an open choice: the four-rung ladders the write-up's text allows.

The text fixes three things: four delays (600 edits = 4 × 150); one of seconds ("good
for seconds"); one of an hour ("after one hour about 4 in 10"). Its arithmetic adds a
fourth: 172 first-try rejections of 600 (28.7 %) is more than a ladder ending at the hour
can give with about 40 % there, so one delay is longer than an hour (an argument from
round rungs, not a deduction). That leaves two rungs free. The family takes the round
values a writer picks, about evenly spaced on a log scale: one rung of 1, 10 or 30 minutes
below the hour and one of 2, 4 or 8 hours above it (nine ladders), or no rung between the
seconds and the hour and two of 2, 4 and 8 hours above it (three more), 8 h being the
length of the day the write-up simulates. 5 s stands for "seconds" (a delay of seconds
rejects almost nothing on either side of it). Twelve ladders; the default (5 s, 10 min,
1 h, 4 h) is one of them, chosen from the text before any was run. REPORT.md's section on
it is templates/ladders_text.md.j2.
"""

from __future__ import annotations

import itertools

import pandas as pd

from sim.pages import md
from sim.params import LADDER_S
from sim.report.render import pct, render
from sim.study.ladder import LONG_RUNGS_S, MINUTES_RUNGS_S, delay_label, ladder_label

LADDER_FIGURES = (
    ("cas_reject_share", "first-try rejections, all delays"),
    ("cas_replay_share", "replays"),
    ("cas_reject_share_3600s", "rejected at 1 h"),
    ("cas_human_reject_share_3600s", "… by a human's save"),
    ("cas_gone_share", "gone"),
)


def ladder_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Per ladder of the family (the default first), each CAS figure at full strength with
    z and verdict, from the sensitivity table's ladder rows."""
    rows = []
    ladders = table[table["choice"].isin(("default", "edit_delays_s"))]
    for label, g in ladders.groupby("label", sort=False):
        by = g.set_index("figure")
        row = {
            "ladder": ladder_label(LADDER_S) + " (default)" if label == "default" else label,
            "seeds": int(g["shift_seeds"].max()) if label != "default" else int(g["seeds"].max()),
        }
        for key, name in LADDER_FIGURES:
            r = by.loc[key]
            mark = {"reproduced": "", "not reproduced": " ✗", "undecided": " ?"}[r["verdict"]]
            row[name] = f"{pct(r['mean'])} ({r['z']:+.2f}){mark}"
        rows.append(row)
    return pd.DataFrame(rows)


def _verdicts(ladders: pd.DataFrame, key: str) -> dict[str, object]:
    """One figure's verdicts across the ladders: how many reproduce it (and which), how
    many are undecided, and the default ladder's verdict."""
    g = ladders[ladders["figure"] == key]
    counts = g["verdict"].value_counts()
    return {
        "ladders": len(g),
        "reproduced": counts.get("reproduced", 0),
        "undecided": counts.get("undecided", 0),
        "ok": list(g.loc[g["verdict"] == "reproduced", "label"].replace("default", "the default")),
        "default": str(g.loc[g["choice"] == "default", "verdict"].iloc[0]),
    }


def ladder_text(table: pd.DataFrame, headline_seeds: int) -> str:
    """The ladder family, why it, and which ladders reproduce 28.7 % and 409
    (templates/ladders_text.md.j2)."""
    rows = ladder_rows(table)
    ladders = table[table["choice"].isin(("default", "edit_delays_s"))]
    return render(
        "ladders_text.md.j2",
        minutes=[delay_label(d) for d in MINUTES_RUNGS_S],
        longs=[delay_label(d) for d in LONG_RUNGS_S],
        long_pairs=[[delay_label(d) for d in p] for p in itertools.combinations(LONG_RUNGS_S, 2)],
        n_ladders=len(rows),
        headline_seeds=headline_seeds,
        table=md(rows),
        reject=_verdicts(ladders, "cas_reject_share"),
        replay=_verdicts(ladders, "cas_replay_share"),
    )
