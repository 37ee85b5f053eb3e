"""The map's figures: a designer finds their KB by its edit intensity, citation age, delay
and checks; each title states the finding, computed from the tables."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim import exactmath
from sim.studymap.forms import DAY_S

MARKERS = ("o", "s", "^", "D", "v")


def age_label(age_s: float) -> str:
    """5 s, 10 min, 1 h, 1 day, 30 days."""
    for unit, size in (("days", DAY_S), ("h", 3600.0), ("min", 60.0)):
        if age_s >= size:
            v = age_s / size
            return f"{v:g} {'day' if unit == 'days' and v == 1 else unit}"
    return f"{age_s:g} s"


def pct(x: float) -> str:
    """A share as a percentage with the precision its size needs."""
    v = 100 * x
    if v < 0.001:
        return "< 0.001 %" if v > 0 else "0 %"
    return f"{v:.2g} %" if v < 1 else f"{v:.1f} %" if v < 10 else f"{v:.0f} %"


def _span(values: pd.Series) -> str:
    lo, hi = values.min(), values.max()
    return pct(lo) if pct(lo) == pct(hi) else f"{pct(lo)}–{pct(hi)}"


def stale_title(stale: pd.DataFrame, logs: pd.DataFrame, writeup_rate: float, who: str) -> str:
    same = stale[stale["relation"] == "same"]
    at = same.assign(
        gap=np.abs(exactmath.log(same["edits_per_article_day"].to_numpy() / writeup_rate))
    )
    near = at[at["gap"] == at["gap"].min()].set_index("age_s")["stale_at_age"]
    pop = logs[logs["draw"] == "popularity"].set_index("age_s")
    spans = [
        f"{_span(pop.loc[age, 'measured'])} after {when}"
        for age, when in ((DAY_S, "a day"), (30 * DAY_S, "a month"))
        if age in pop.index  # a log shorter than the age measures none at it
    ]
    return (
        f"At the write-up's {writeup_rate:.3g} edits per article a day {pct(near[8 * 3600.0])}"
        f" of citations are stale after 8 h;\n{who}: " + (", ".join(spans) or "too short a log")
    )


def stale_figure(
    stale: pd.DataFrame,
    logs: pd.DataFrame,
    writeup_rate: float,
    who: str = "the real help centres' own rows",
) -> Figure:
    """Stale share against edits per article per day, one line per citation age (solid:
    questions on the edits' ranking; dashed: independent); each log's own measurement at
    its intensity (popularity draw, window interval)."""
    fig, ax = plt.subplots(figsize=(8, 5))
    ages = sorted(stale["age_s"].unique())
    colour = {a: plt.get_cmap("viridis")(i / max(1, len(ages) - 1)) for i, a in enumerate(ages)}
    for (relation, age), g in stale.groupby(["relation", "age_s"]):
        ax.plot(
            g["edits_per_article_day"],
            100 * g["stale_at_age"],
            color=colour[age],
            ls="-" if relation == "same" else "--",
            lw=1.6 if relation == "same" else 0.9,
            label=age_label(age) if relation == "same" else None,
        )
    pop = logs[(logs["draw"] == "popularity") & logs["age_s"].isin(ages)]
    for i, (name, g) in enumerate(pop.groupby("log", sort=False)):
        x = g["edits_per_article_day"].to_numpy()
        ax.errorbar(
            x,
            100 * g["measured"],
            yerr=100
            * np.vstack([g["measured"] - g["measured_ci_lo"], g["measured_ci_hi"] - g["measured"]]),
            fmt=MARKERS[i % len(MARKERS)],
            ls="none",
            color="black",
            ms=5,
            mfc="none",
            label=f"{name} (its own rows)",
        )
    ax.axvline(writeup_rate, color="#c0392b", lw=0.8, ls=":")
    ax.text(
        writeup_rate,
        0.0012,
        " write-up's day",
        color="#c0392b",
        fontsize=8,
        rotation=90,
        va="bottom",
    )
    ax.set(xscale="log", yscale="log", ylim=(1e-3, 100))
    ax.set_xlabel("edits per cited article per day (mean over articles)")
    ax.set_ylabel("citations stale at that age (%)")
    ax.set_title(stale_title(stale, logs, writeup_rate, who), fontsize=9)
    ax.legend(
        fontsize=7,
        ncol=2,
        loc="lower right",
        title="citation age (dashed: independent)",
        title_fontsize=7,
    )
    fig.tight_layout()
    return fig


def cas_title(cas: pd.DataFrame, logs: pd.DataFrame, writeup_rate: float) -> str:
    human = cas[(cas["rejected_by"] == "human")]
    near = human[
        np.abs(exactmath.log(human["edits_per_article_day"].to_numpy() / writeup_rate)) < 1e-9
    ]
    at_1h = float(np.interp(3600.0, near["delay_s"], near["rejected_share"]))
    agent = cas[(cas["rejected_by"] == "agent") & (cas["edits_per_article_day"] == 0.9)]
    own_1h = float(np.interp(3600.0, agent["delay_s"], agent["rejected_share"]))
    pop = logs[(logs["draw"] == "popularity") & (logs["age_s"] == 3600.0)]
    return (
        f"An edit sent 1 h after the read meets a human's save in {pct(at_1h)} at the write-up's "
        f"rate, {_span(pop['measured'])} on the real logs;\nthe write-up's agent's own other "
        f"edits alone reject {pct(own_1h)} (right)"
    )


def cas_figure(cas: pd.DataFrame, logs: pd.DataFrame, writeup_rate: float) -> Figure:
    """CAS rejection by delay: left, a human's save at each edit intensity with each log's
    own rows; right, the agent's own other edits at each of its intensities."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
    for ax, source in ((left, "human"), (right, "agent")):
        part = cas[cas["rejected_by"] == source]
        levels = sorted(part["edits_per_article_day"].unique())
        for i, (r, g) in enumerate(part.groupby("edits_per_article_day")):
            ax.plot(
                g["delay_s"],
                100 * g["rejected_share"],
                color=plt.get_cmap("plasma")(i / max(1, len(levels))),
                label=f"{r:.3g} a day"
                + (
                    " (write-up)"
                    if abs(r - writeup_rate) < 1e-9 or (source == "agent" and r == 0.9)
                    else ""
                ),
            )
        ax.set(xscale="log", yscale="log", ylim=(1e-3, 100))
        ax.set_xlabel("delay from read to edit (s)")
        ax.grid(alpha=0.2)
    pop = logs[logs["draw"] == "popularity"]
    for i, (name, g) in enumerate(pop.groupby("log", sort=False)):
        left.errorbar(
            g["age_s"],
            100 * g["measured"],
            yerr=100
            * np.vstack([g["measured"] - g["measured_ci_lo"], g["measured_ci_hi"] - g["measured"]]),
            fmt=MARKERS[i % len(MARKERS)],
            color="black",
            mfc="none",
            ms=5,
            ls="none",
            label=f"{name}, own rows ({g['edits_per_article_day'].iloc[0]:.2g} a day)",
        )
        left.plot(g["age_s"], 100 * g["model_writeup_shape"], ls=":", color="grey", lw=0.9)
    left.set_ylabel("CAS edits rejected (%)")
    left.set_title(
        "a human's save (human edits per article per day;\ndotted: the model at each log's)",
        fontsize=9,
    )
    right.set_title("the agent's own other edits (its edits per article per day)", fontsize=9)
    left.legend(fontsize=7, loc="upper left")
    right.legend(fontsize=7, loc="lower right")
    fig.suptitle(cas_title(cas, logs, writeup_rate), fontsize=9)
    fig.tight_layout()
    return fig


def break_even_title(points: pd.DataFrame) -> str:
    parts = [
        f"{r['saves_per_check_at_break_even']:,.0f} at {r['n_questions']:g} questions"
        if np.isfinite(r["saves_per_check_at_break_even"])
        else f"past the map at {r['n_questions']:g} questions"
        for _, r in points.iterrows()
    ]
    return (
        "Polling costs fewer calls than re-reading every held citation up to "
        + ", ".join(parts)
        + "\na day (saves per hourly check; closed form, dots: the simulated grid)"
    )


def break_even_figure(
    table: pd.DataFrame,
    points: pd.DataFrame,
    simulated: pd.DataFrame,
    logs_per_hour: dict[str, float],
) -> Figure:
    """Poll's calls over re-read's by saves per check, one line per questions a day (its
    citations held), the simulated grid's points, and each log's saves per hourly check."""
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for i, (q, g) in enumerate(table.groupby("n_questions")):
        c = plt.get_cmap("tab10")(i)
        held = points.set_index("n_questions").loc[q, "citations_held"]
        ax.plot(
            g["saves_per_check"],
            g["calls_ratio"],
            color=c,
            label=f"{q:g} questions a day ({held:.0f} articles held)",
        )
        s = simulated[simulated["n_questions"] == q]
        ax.plot(s["events_per_check"], s["calls_ratio"], "o", color=c, ms=5)
    ax.axhline(1.0, color="black", lw=0.8)
    for i, (name, rate) in enumerate(logs_per_hour.items()):
        ax.axvline(rate, color="grey", lw=0.8, ls=":")
        ax.text(rate, 1.5 * (1 + i), f" {name}", fontsize=7, color="grey")
    ax.set(xscale="log", yscale="log")
    ax.set_xlabel("saves per hourly check")
    ax.set_ylabel("poll's calls / re-read's calls")
    ax.set_title(break_even_title(points), fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
