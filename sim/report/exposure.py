"""How long staleness goes unnoticed, as the report shows it: exposure against cost per
method and check interval (the table is ``sim.study.exposure``'s), the crossings with push,
the closed forms beside the simulation, the figure and the section's words.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim import exactmath
from sim.model import methods
from sim.pages import md
from sim.report.render import num, pct, render
from sim.study.exposure import HOURLY_ONLY, METHODS, SEEDS, SWEPT

LABELS = {m.name: m.label for m in methods.METHODS} | {"push": "push (resource subscriptions)"}


def shown(table: pd.DataFrame, names: tuple[str, ...]) -> list[str]:
    """The methods of `names` that the table has rows of, in that order: a method added to
    the registry after the rows were made has none until they are made again."""
    have = set(table["method"])
    return [m for m in names if m in have]


def crossings(table: pd.DataFrame) -> pd.DataFrame:
    """For each periodic method and cost measure: the check interval at which it costs what
    push costs (log-linear between swept intervals); shorter intervals cost more than push
    and still leave changes unnoticed. NaN when the curves do not cross in the sweep.
    Messages are calls plus notifications: a notification crosses the wire like a call."""
    push = table[table["method"] == "push"].iloc[0]
    rows = []
    for method in shown(table, SWEPT):
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
    colours = {m: methods.BY_NAME[m].colour for m in shown(table, SWEPT)}
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
        for method in shown(table, METHODS[len(SWEPT) :]):
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
    title = render(
        "exposure_figure.txt.j2",
        unnoticed_min=poll["mean_unnoticed_min"],
        fewer=reread["messages_per_day"] / poll["messages_per_day"],
    )
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def _row(table: pd.DataFrame, method: str, interval_min: float) -> pd.Series:
    g = table[table["method"] == method]
    return g[np.isclose(g["interval_min"], interval_min)].iloc[0]


def _span(minutes: float) -> str:
    return f"{minutes:g} min" if minutes < 60 else f"{minutes / 60:g} h"


def section_text(
    table: pd.DataFrame, cross: pd.DataFrame, advice: str, n_seeds: int, stop_rule: bool = True
) -> str:
    """The report's section: what was run, the hourly comparison, the crossings, the sweep,
    the closed forms, and the advisor's answer for the write-up's day; all from the tables
    (templates/exposure_section.md.j2)."""
    push = table[table["method"] == "push"].iloc[0]
    crossing: dict[str, dict[str, dict[str, object]]] = {}
    for (method, measure), at in cross.set_index(["method", "measure"])[
        "crossing_interval_min"
    ].items():
        crossing.setdefault(method, {})[measure] = {
            "measure": measure,
            "at": None if np.isnan(at) else at,
            "more": bool(_row(table, method, 240)[measure] > push[measure])
            if np.isnan(at)
            else None,
        }
    hourly = pd.DataFrame(
        [
            {
                "method": LABELS[m],
                "calls/day": num(r["calls_per_day"]),
                "notifications/day": num(r["notifications_per_day"]),
                "messages/day": num(r["messages_per_day"]),
                "characters/day": num(r["chars_per_day"]),
                "mean unnoticed (min)": f"{r['mean_unnoticed_min']:.1f}",
                "p95 (min)": f"{r['p95_unnoticed_min']:.1f}",
                "never noticed": pct(r["never_noticed_share"]),
                "stale and unknown (share of citation-hours)": pct(r["stale_unknown_share"], 2),
            }
            for m, r in [(m, _row(table, m, 60)) for m in shown(table, (*SWEPT, *HOURLY_ONLY))]
            + [("push", push)]
        ]
    )
    poll_rows = table[table["method"] == "poll"]
    sweep = pd.DataFrame(
        {
            "every (min)": poll_rows["interval_min"].map(lambda m: f"{m:g}"),
            "calls/day": poll_rows["calls_per_day"].map(num),
            "characters/day": poll_rows["chars_per_day"].map(num),
            "mean unnoticed (min)": poll_rows["mean_unnoticed_min"].map(lambda x: f"{x:.2f}"),
            "closed form": poll_rows["theory_mean_unnoticed_min"].map(lambda x: f"{x:.2f}"),
            "p95 (min)": poll_rows["p95_unnoticed_min"].map(lambda x: f"{x:.1f}"),
            "stale and unknown": poll_rows["stale_unknown_share"].map(lambda x: pct(x, 2)),
            "closed form ": poll_rows["theory_stale_unknown_share"].map(lambda x: pct(x, 2)),
        }
    )
    every = poll_rows["interval_min"]
    su_gap = (poll_rows["theory_stale_unknown_share"] / poll_rows["stale_unknown_share"] - 1).abs()
    mean_gap = (poll_rows["theory_mean_unnoticed_min"] / poll_rows["mean_unnoticed_min"] - 1).abs()
    return render(
        "exposure_section.md.j2",
        n_seeds=n_seeds,
        n_intervals=every.nunique(),
        span=f"{_span(every.min())} to {_span(every.max())}",
        stop_rule=stop_rule,
        hourly=md(hourly),
        push=push.to_dict(),
        cross=crossing,
        title=_row(table, "title_only", 60).to_dict(),
        su_gap=100 * float(su_gap.max()),
        mean_gap=100 * float(mean_gap.max()),
        sweep=md(sweep),
        seeds=SEEDS,
        advice=advice,
    )
