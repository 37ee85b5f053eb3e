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
1 h, 4 h) is one of them, chosen from the text before any was run.
"""

from __future__ import annotations

import itertools

import pandas as pd

from sim.pages import md, pct
from sim.params import LADDER_S
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


def ladder_text(table: pd.DataFrame, headline_seeds: int) -> str:
    """The ladder family, why it, and which ladders reproduce 28.7 % and 409."""
    rows = ladder_rows(table)
    ladders = table[table["choice"].isin(("default", "edit_delays_s"))]

    def which(key: str) -> str:
        g = ladders[ladders["figure"] == key]
        counts = g["verdict"].value_counts()
        ok = g.loc[g["verdict"] == "reproduced", "label"].replace("default", "the default")
        return (
            f"{counts.get('reproduced', 0)} of {len(g)} reproduce it"
            + (f" ({'; '.join(ok)})" if len(ok) else "")
            + f", {counts.get('undecided', 0)} undecided"
        )

    def verdict(key: str) -> str:
        return str(
            ladders[(ladders["figure"] == key) & (ladders["choice"] == "default")]["verdict"].iloc[
                0
            ]
        )

    longs_pairs = "; ".join(
        " and ".join(delay_label(d) for d in pair)
        for pair in itertools.combinations(LONG_RUNGS_S, 2)
    )
    minutes = ", ".join(delay_label(d) for d in MINUTES_RUNGS_S)
    longs = ", ".join(delay_label(d) for d in LONG_RUNGS_S)
    return f"""The write-up's own ladder (its per-delay table) did not survive, only its totals.
Its text fixes four delays (600 = 4 × 150),
one of seconds ("good for seconds") and one of an hour ("after one hour about 4 in 10");
its arithmetic suggests that one is longer than an hour: with about 40 % rejected at the
hour, a ladder of round rungs ending at the hour gives less than 172 of 600 = 28.7 %. That
is an argument from round values, not a deduction: rungs just under the hour (5 s, about
50 min, about 55 min, 1 h) could reach 30 %. The family tested leaves two rungs free, one
below the hour and one beyond it, and takes for them the round values a writer picks,
about evenly spaced on a log scale: {minutes} below the hour; {longs}
beyond it (8 h is the simulated day's length, so no delay outlasts the day), and also the
ladders with no rung between the seconds and the hour and two beyond it ({longs_pairs}).
5 s stands for "seconds". That is {len(rows)} ladders; the default is the one the study
took from the text before any ladder was run. A ladder with three of its four rungs at or
beyond the hour, where rejections are most frequent, raises the first-try share: the
table shows by how much.

Each ladder is judged as the readings are: the default ladder's mean over seeds
1–{headline_seeds} plus the ladder's paired shift on its own seeds (the sequential rule
above; seeds column) (cell: value at full strength, z; ✗ not reproduced, ? undecided).

{md(rows)}

Against 172 of 600 (28.7 %): {which("cas_reject_share")}. Against 409 of 600 replays:
{which("cas_replay_share")}. On the default ladder the two are {verdict("cas_reject_share")}
and {verdict("cas_replay_share")}; those verdicts rest on a ladder the write-up does not
give, so read them with this table."""
