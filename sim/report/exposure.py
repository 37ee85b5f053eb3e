"""How long staleness goes unnoticed: exposure against cost, per method and check interval.

The exposure runs are the write-up's Zipf day with more watchers beside the hourly
checker: re-read and poll (cursor kept, or restarted from the oldest citation) at every
interval from 1 minute to 4 hours, and push (MCP resource subscriptions). They only
read, so the day itself is the staleness run's. For each citation that changed, the
time from its first change to the moment a method flagged it (or the day's end) is its
unnoticed time; costs are the methods' calls and characters from the call log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim import exactmath, theory
from sim.experiments import Request, StudyFrames
from sim.model import methods
from sim.params import Params
from sim.report.markdown import md
from sim.server.resources import UPDATED

SEEDS = 10
SWEPT = tuple(m.name for m in methods.SWEPT)
"""The methods checked at every interval of the sweep (the registry's, in its order)."""
HOURLY_ONLY = tuple(m.name for m in methods.METHODS if m.hourly and not m.swept)
"""The methods only the hourly checker runs (every hour: their one interval)."""
METHODS = (*SWEPT, "push", *HOURLY_ONLY)
"""The table's rows: the swept methods, push, then those checked hourly only."""
LABELS = {m.name: m.label for m in methods.METHODS} | {"push": "push (resource subscriptions)"}


EXPOSURE_RECORDS = ("citations", "checks", "calls", "detections", "cadence")
"""The record types exposure_rows reads."""


def exposure_request(base: Params, seeds: list[int]) -> Request:
    return Request((base,), tuple(seeds), ("exposure",), EXPOSURE_RECORDS)


def _costs(frames: StudyFrames) -> pd.DataFrame:
    """Per seed, method and interval: checks, calls, notifications, characters."""
    cadence = frames.cadence.assign(notifications=0)
    hourly_only = frames.checks[frames.checks["method"].isin(HOURLY_ONLY)]
    hourly_only = (
        hourly_only.groupby(["seed", "method"])
        .agg(checks=("check", "size"), calls=("calls", "sum"), result_chars=("result_chars", "sum"))
        .reset_index()
        .assign(interval_s=3600.0, notifications=0, poll_calls=0)
    )
    push_calls = frames.calls[frames.calls["client_id"] == "push"]
    is_note = push_calls["tool"] == UPDATED
    push = pd.DataFrame(
        {
            "calls": push_calls[~is_note].groupby("seed")["calls"].sum(),
            "notifications": push_calls[is_note].groupby("seed")["calls"].sum(),
            "result_chars": push_calls.groupby("seed")["result_chars"].sum(),
        }
    ).fillna(0)
    push = push.reset_index().assign(method="push", interval_s=0.0, checks=0, poll_calls=0)
    cols = [
        "seed",
        "method",
        "interval_s",
        "checks",
        "calls",
        "poll_calls",
        "notifications",
        "result_chars",
    ]
    return pd.concat([cadence[cols], hourly_only[cols], push[cols]], ignore_index=True)


GROUP = ["method", "interval_s"]
COST_COLUMNS = ["checks", "calls", "poll_calls", "notifications", "result_chars"]


@dataclass(frozen=True)
class ExposureRows:
    """The exposure runs as per-seed rows: per seed × method × interval its costs and the
    sums over changed citations (count, unnoticed seconds, never noticed) with the seed's
    citation-seconds held; and the pooled 95th percentiles, which no per-seed sum gives
    (None when a subset of seeds is taken: its percentiles are not known)."""

    rows: pd.DataFrame
    p95: pd.DataFrame | None = None

    def seeds(self, seeds: list[int]) -> ExposureRows:
        return ExposureRows(self.rows[self.rows["seed"].isin(seeds)].reset_index(drop=True))


def exposure_rows(base: Params, frames: StudyFrames) -> ExposureRows:
    day_s = base.day_s
    d = frames.detections
    changed = d[d["changed_s"].notna()]
    # a change never noticed goes unnoticed until its citation is let go or the day ends;
    # change times come from the store's microsecond clock, detections from SimPy's float
    # clock: push, noticing at the same instant, would read a few hundred ns below zero
    end = np.minimum(changed["read_s"] + base.citation_hold_s, day_s)
    unnoticed = (changed["detected_s"].fillna(end) - changed["changed_s"]).clip(lower=0.0)
    changed = changed.assign(unnoticed_s=unnoticed, never=changed["detected_s"].isna(), changed=1)
    sums = changed.groupby(["seed", *GROUP])[["changed", "unnoticed_s", "never"]].sum()
    costs = _costs(frames).set_index(["seed", *GROUP])
    rows = costs.join(sums).reset_index().sort_values(["seed", *GROUP], kind="stable")
    read = frames.citations["read_s"]
    # a citation is held from its read until the agent lets it go or the day ends
    held = (
        (np.minimum(read + base.citation_hold_s, day_s) - read)
        .groupby(frames.citations["seed"])
        .sum()
    )
    rows["held_s"] = rows["seed"].map(held)
    p95 = changed.groupby(GROUP)["unnoticed_s"].quantile(0.95) / 60
    return ExposureRows(rows.reset_index(drop=True), p95.rename("p95_unnoticed_min").reset_index())


def exposure_table(base: Params, data: StudyFrames | ExposureRows) -> pd.DataFrame:
    if isinstance(data, StudyFrames):
        data = exposure_rows(base, data)
    r = data.rows
    n_seeds = r["seed"].nunique()
    held_s = r.drop_duplicates("seed")["held_s"].sum()
    s = r.groupby(GROUP)[["changed", "unnoticed_s", "never"]].sum()
    exposure = pd.DataFrame(
        {
            "changed_citations_per_day": s["changed"] / n_seeds,
            "mean_unnoticed_min": s["unnoticed_s"] / s["changed"] / 60,
            "p95_unnoticed_min": np.nan
            if data.p95 is None
            else data.p95.set_index(GROUP)["p95_unnoticed_min"],
            "never_noticed_share": s["never"] / s["changed"],
            "stale_unknown_share": s["unnoticed_s"] / held_s,
        }
    )
    cost = r.groupby(GROUP).agg(
        seeds=("seed", "nunique"),
        checks_per_day=("checks", "mean"),
        calls_per_day=("calls", "mean"),
        poll_calls_per_day=("poll_calls", "mean"),
        notifications_per_day=("notifications", "mean"),
        chars_per_day=("result_chars", "mean"),
    )
    table = cost.join(exposure).reset_index()
    table["messages_per_day"] = table["calls_per_day"] + table["notifications_per_day"]
    forms = {t: theory.unnoticed_time(base, t) for t in table["interval_s"] if t > 0}
    periodic = table["method"].isin(SWEPT)
    table["theory_mean_unnoticed_min"] = [
        forms[t]["mean_s"] / 60 if p else (0.0 if m == "push" else np.nan)
        for m, t, p in zip(table["method"], table["interval_s"], periodic, strict=True)
    ]
    shares = {t: theory.stale_unknown_share(base, t) for t in forms}
    table["theory_stale_unknown_share"] = [
        shares[t]["stale_unknown_share"] if p else (0.0 if m == "push" else np.nan)
        for m, t, p in zip(table["method"], table["interval_s"], periodic, strict=True)
    ]
    table.insert(2, "interval_min", table["interval_s"] / 60)
    order = {m: i for i, m in enumerate(METHODS)}
    table = table.sort_values(
        ["method", "interval_s"], key=lambda c: c.map(order) if c.name == "method" else c
    )
    return table.drop(columns="interval_s").reset_index(drop=True)


def crossings(table: pd.DataFrame) -> pd.DataFrame:
    """For each periodic method and cost measure: the check interval at which it costs what
    push costs (log-linear between swept intervals); shorter intervals cost more than push
    and still leave changes unnoticed. NaN when the curves do not cross in the sweep.
    Messages are calls plus notifications: a notification crosses the wire like a call."""
    push = table[table["method"] == "push"].iloc[0]
    rows = []
    for method in SWEPT:
        g = table[table["method"] == method].sort_values("interval_min")
        for measure in ("messages_per_day", "chars_per_day"):
            x, y = exactmath.log(g["interval_min"]), exactmath.log(g[measure])
            target = math.log(push[measure])
            at = np.nan
            for i in range(len(g) - 1):
                if (y[i] - target) * (y[i + 1] - target) <= 0 and y[i] != y[i + 1]:
                    at = math.exp(x[i] + (target - y[i]) * (x[i + 1] - x[i]) / (y[i + 1] - y[i]))
                    break
            rows.append(
                {
                    "method": method,
                    "measure": measure,
                    "push": push[measure],
                    "crossing_interval_min": at,
                }
            )
    return pd.DataFrame(rows)


def figure(table: pd.DataFrame) -> Figure:
    """Unnoticed minutes against cost per method; push at what was measured (0 min, on a
    symmetric-log axis that has a 0), the check intervals labelled on the re-read line."""
    fig = Figure(figsize=(11, 4.6))
    axes = fig.subplots(1, 2)
    colours = {m: methods.BY_NAME[m].colour for m in SWEPT}
    for ax, measure, label in zip(
        axes,
        ("messages_per_day", "chars_per_day"),
        ("tool calls and notifications per day (log scale)", "characters per day (log scale)"),
        strict=True,
    ):
        for method, colour in colours.items():
            g = table[table["method"] == method]
            ax.plot(
                g[measure], g["mean_unnoticed_min"], "o-", color=colour, ms=3, label=LABELS[method]
            )
            if method == "reread":
                for _, r in g.iloc[[0, len(g) // 2, -1]].iterrows():
                    ax.annotate(
                        f"every {r['interval_min']:g} min",
                        (r[measure], r["mean_unnoticed_min"]),
                        xytext=(6, -10),
                        textcoords="offset points",
                        fontsize=7,
                        color=colour,
                    )
        for method in METHODS[len(SWEPT) :]:
            marker = "*" if method == "push" else "s"
            r = table[table["method"] == method].iloc[0]
            ax.plot(
                [r[measure]],
                [r["mean_unnoticed_min"]],
                marker,
                color="k",
                ms=10 if marker == "*" else 6,
                label=f"{LABELS[method]}: {r['mean_unnoticed_min']:.1f} min, measured",
            )
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_ylim(-0.1, 400)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("minutes a change goes unnoticed, mean\n(linear below 1 min, log above)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    at = table.set_index(["method", "interval_min"])
    poll, reread = at.loc[("poll", 60.0)], at.loc[("reread", 60.0)]
    fig.suptitle(
        f"Checked hourly, re-read and poll leave a change unnoticed "
        f"{poll['mean_unnoticed_min']:.0f} min on average; the poll with its cursor kept "
        f"costs {reread['messages_per_day'] / poll['messages_per_day']:.0f}× fewer calls, "
        "and push notices at once\n(the write-up's Zipf day; each line runs from a check "
        "every 240 min, top left, to every 1 min, bottom right)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def theory_check(base: Params, table: pd.DataFrame) -> pd.DataFrame:
    """Simulated against closed form where the table has no closed-form column of its own:
    poll pages per day by interval, re-read and poll reads under the stopping rule, and
    push notifications per day."""
    push = theory.push_counts(base)
    rows = []
    for _, r in table[table["method"] == "poll"].iterrows():
        rows.append(
            (
                "poll pages per day",
                r["interval_min"],
                r["poll_calls_per_day"],
                theory.poll_pages_per_day(base, r["interval_min"] * 60),
            )
        )
    if base.stop_checking_known_stale:
        for _, r in table[table["method"] == "reread"].iterrows():
            form = theory.stopped_check_calls(base, r["interval_min"] * 60)
            poll = _row(table, "poll", r["interval_min"])
            rows.append(
                (
                    "re-reads per day, stopping rule",
                    r["interval_min"],
                    r["calls_per_day"],
                    form["reread_reads"],
                )
            )
            rows.append(
                (
                    "poll reads per day, stopping rule",
                    r["interval_min"],
                    poll["calls_per_day"] - poll["poll_calls_per_day"],
                    form["poll_reads"],
                )
            )
    p = table[table["method"] == "push"].iloc[0]
    rows.append(
        ("push notifications per day", 0.0, p["notifications_per_day"], push["notifications"])
    )
    return pd.DataFrame(rows, columns=["quantity", "interval_min", "simulated", "closed_form"])


def _row(table: pd.DataFrame, method: str, interval_min: float) -> pd.Series:
    g = table[table["method"] == method]
    return g[np.isclose(g["interval_min"], interval_min)].iloc[0]


def section_text(
    table: pd.DataFrame, cross: pd.DataFrame, advice: str, n_seeds: int, stop_rule: bool = True
) -> str:
    """The report's section: what was run, the hourly comparison, the crossings, the sweep,
    the closed forms, and the advisor's answer for the write-up's day; all from the tables."""
    title = _row(table, "title_only", 60)
    push = table[table["method"] == "push"].iloc[0]
    c = cross.set_index(["method", "measure"])["crossing_interval_min"]

    def crossing(method: str, measure: str) -> str:
        at = c[(method, measure)]
        what = "messages" if measure == "messages_per_day" else "characters"
        if np.isnan(at):
            rel = "more" if _row(table, method, 240)[measure] > push[measure] else "fewer"
            return f"costs {rel} {what} than push at every interval from 1 min to 4 h"
        return f"costs as many {what} as push when it checks every {at:.0f} min"

    hourly = pd.DataFrame(
        [
            {
                "method": LABELS[m],
                "calls/day": f"{r['calls_per_day']:,.0f}",
                "notifications/day": f"{r['notifications_per_day']:,.0f}",
                "messages/day": f"{r['messages_per_day']:,.0f}",
                "characters/day": f"{r['chars_per_day']:,.0f}",
                "mean unnoticed (min)": f"{r['mean_unnoticed_min']:.1f}",
                "p95 (min)": f"{r['p95_unnoticed_min']:.1f}",
                "never noticed": f"{100 * r['never_noticed_share']:.1f} %",
                "stale and unknown (share of citation-hours)": (
                    f"{100 * r['stale_unknown_share']:.2f} %"
                ),
            }
            for m, r in [(m, _row(table, m, 60)) for m in (*SWEPT, *HOURLY_ONLY)] + [("push", push)]
        ]
    )
    poll_rows = table[table["method"] == "poll"]
    sweep = pd.DataFrame(
        {
            "every (min)": poll_rows["interval_min"].map(lambda m: f"{m:g}"),
            "calls/day": poll_rows["calls_per_day"].map(lambda x: f"{x:,.0f}"),
            "characters/day": poll_rows["chars_per_day"].map(lambda x: f"{x:,.0f}"),
            "mean unnoticed (min)": poll_rows["mean_unnoticed_min"].map(lambda x: f"{x:.2f}"),
            "closed form": poll_rows["theory_mean_unnoticed_min"].map(lambda x: f"{x:.2f}"),
            "p95 (min)": poll_rows["p95_unnoticed_min"].map(lambda x: f"{x:.1f}"),
            "stale and unknown": poll_rows["stale_unknown_share"].map(lambda x: f"{100 * x:.2f} %"),
            "closed form ": poll_rows["theory_stale_unknown_share"].map(
                lambda x: f"{100 * x:.2f} %"
            ),
        }
    )
    n_intervals = table[table["method"] == "poll"]["interval_min"].nunique()
    su_gap = 100 * float(
        (poll_rows["theory_stale_unknown_share"] / poll_rows["stale_unknown_share"] - 1).abs().max()
    )
    mean_gap = 100 * float(
        (poll_rows["theory_mean_unnoticed_min"] / poll_rows["mean_unnoticed_min"] - 1).abs().max()
    )
    rule = (
        "Re-reading and polling stop the same way (`stop_checking_known_stale`, a stated "
        "choice): once all held citations of an article are known stale, they stop checking "
        "it until it is cited again. That changes what the checks cost, not what they find "
        "(tested). The write-up's hourly check (§ 2) keeps its own definition: "
        "every held citation at every check, each id method equal to ground truth."
        if stop_rule
        else "Re-reading and polling check every held citation at every check, including "
        "those already known stale (`stop_checking_known_stale` off): they are costed under "
        "a different stopping rule than push."
    )
    return f"""The write-up checks once an hour and counts what the checks cost. Its readers
next ask how long an answer keeps citing a changed article before the agent notices, and
what MCP's own push would save. On the write-up's Zipf day ({n_seeds} seeds, the same day as the
staleness run: the watchers only read), each citation's unnoticed time runs from the
first save or unpublish of its article after the read to the check (or notification)
that flags it, or to the day's end. Re-reading and both polls run at {n_intervals}
intervals from 1 min to 4 h; push subscribes to each cited article
(`resources/subscribe`), re-reads it on `notifications/resources/updated`, and
unsubscribes once all its citations are known stale. {rule} Costs come from the call log;
characters are what the client receives (notifications: their params); a notification
counts as a message beside the calls. Over the simulation's MCP transport (the official
SDK's client and server, the notification sent as `notifications/resources/updated`) a
day gives the same records as in-process (tested).

Not costed, for any method: the standing session push needs all day (a connection held
open and its keep-alives); the server's state per subscription (one entry per subscribed
article and session, kept until unsubscribed); notifications lost while a session
reconnects (a real client would then re-read or poll every subscribed article, which
this day never needs); the poll's cursor (one integer) and, under the stopping rule,
each method's memory of which citations are known stale.

At the write-up's hourly cadence:

{md(hourly)}

Re-reading and polling notice every change at the same check, so at one interval they
leave exactly the same exposure; they differ only in cost. Push notices each change
when it is committed, with {push["calls_per_day"]:,.0f} requests (subscribe, re-read,
unsubscribe) and {push["notifications_per_day"]:,.0f} notifications a day
({push["messages_per_day"]:,.0f} messages), and
{push["chars_per_day"]:,.0f} characters. Against push, polling with the cursor kept
{crossing("poll", "messages_per_day")}, and {crossing("poll", "chars_per_day")}; re-reading
{crossing("reread", "messages_per_day")}, and {crossing("reread", "chars_per_day")};
polling from the oldest citation (no cursor kept)
{crossing("poll_from_oldest", "messages_per_day")}.
The title-only check never notices {100 * title["never_noticed_share"]:.0f} % of the changes
(body edits keep the title).

The poll with the cursor kept, by interval, against the closed forms
(`theory.unnoticed_time`: a change at c is noticed at the first check T·⌈c/T⌉, c
distributed as the day's citations change; `exposure.csv` has every method). The
stale-and-unknown form (`theory.stale_unknown_share`) takes the day-end form's
substitution: a target unpublished before its question is not cited, a random article
is. It is within {su_gap:.1f} % of the simulated value (taken as the base) at every
interval ({n_seeds} seeds;
`tests/test_theory.py` holds it to 8 %); the mean over changed citations, without the
substitution, within {mean_gap:.1f} %.

{md(sweep)}

![exposure against cost](exposure.png)

What `python -m sim advise` recommends for the write-up's day (closed forms; the
simulated columns are seeds 1–{SEEDS} of these runs):

```
{advice}
```"""
