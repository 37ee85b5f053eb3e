"""The report's figures, drawn from the same tables that are written as CSV."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from sim.model import methods
from sim.report.render import environment

COLOURS = {"zipf": "#c0392b", "even": "#2c7fb8"} | {m.name: m.colour for m in methods.METHODS}
LABELS = {"zipf": "Zipf saves (s = 0.9)", "even": "even control"} | {
    m.name: m.label for m in methods.METHODS
}


def _titles() -> Any:
    """The figures' titles: templates/figures.txt.j2's macros."""
    return environment().get_template("figures.txt.j2").module


def _stale_title(t: pd.DataFrame, n: int) -> str:
    last = t[t["hour"] == t["hour"].max()].set_index("save_popularity")["stale_share_mean"]
    return str(_titles().stale(last["zipf"], last["even"], n))


def stale_over_day(t: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for pop, g in t.groupby("save_popularity"):
        ax.plot(g["hour"], 100 * g["stale_share_mean"], color=COLOURS[pop], label=LABELS[pop])
        ax.fill_between(
            g["hour"],
            100 * g["stale_share_ci_lo"],
            100 * g["stale_share_ci_hi"],
            color=COLOURS[pop],
            alpha=0.2,
        )
        ax.plot(g["hour"], 100 * g["stale_share_seeds_1_5"], "o", color=COLOURS[pop], ms=4)
    n = int(t["seeds"].max())
    ax.set(
        xlabel="time of day (hours since opening)",
        ylabel="citations stale or gone (%)",
        title=_stale_title(t, n),
    )
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def check_cost(t: pd.DataFrame) -> Figure:
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.3), layout="constrained")
    for method, g in t.groupby("method"):
        kw = {"color": COLOURS[method], "label": LABELS[method], "marker": "o", "ms": 3}
        a1.plot(g["hour"], g["calls_mean"], **kw)
        a1.fill_between(
            g["hour"], g["calls_ci_lo"], g["calls_ci_hi"], color=COLOURS[method], alpha=0.2
        )
        if g["calls_closed_form"].notna().all():
            a1.plot(g["hour"], g["calls_closed_form"], "--", color=COLOURS[method], lw=1)
        a2.plot(g["hour"], g["result_chars_mean"] / 1000, **kw)
        if g["result_chars_closed_form"].notna().all():
            a2.plot(
                g["hour"], g["result_chars_closed_form"] / 1000, "--", color=COLOURS[method], lw=1
            )
    a1.plot([], [], "--", color="#333333", lw=1, label="closed form")
    a1.set(
        xlabel="time of day (hours)",
        ylabel="tool calls per check",
        title="Calls per hourly check (Zipf day)",
    )
    a2.set(
        xlabel="time of day (hours)",
        ylabel="result size per check (thousand characters)",
        title="Characters returned per hourly check",
    )
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.set_ylim(bottom=0)
    a1.legend(fontsize=8)
    day = t.groupby("method")["calls_mean"].sum()
    fig.suptitle(
        str(_titles().check_cost(day["reread"] / day["poll"], int(t["seeds"].max()))), fontsize=9
    )
    return fig


def _cas_title(curve: pd.DataFrame, ladder: pd.DataFrame) -> str:
    at = ladder.set_index("delay_s")["rejected_share_all_seeds_mean"]
    parts = [(v, _delay_words(d)) for d, v in at.items() if d >= 3600]
    return str(_titles().cas(parts, int(curve["seeds"].max())))


def _delay_words(d: float) -> str:
    return f"{d:g} s" if d < 60 else f"{d / 60:g} min" if d < 3600 else f"{d / 3600:g} h"


def cas_by_delay(curve: pd.DataFrame, ladder: pd.DataFrame) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = curve["delay_s"]
    ax.plot(
        x,
        100 * curve["rejected_share_all_seeds_mean"],
        color="#6a3d9a",
        label="rejected on first try (simulation)",
    )
    ax.fill_between(
        x,
        100 * curve["rejected_share_all_seeds_ci_lo"],
        100 * curve["rejected_share_all_seeds_ci_hi"],
        color="#6a3d9a",
        alpha=0.2,
        label="95 % CI over seeds",
    )
    ax.plot(
        x,
        100 * curve["human_save_in_window_share_all_seeds"],
        ":",
        color="#333333",
        label="a human saved or unpublished in between (simulation)",
    )
    ax.plot(
        x,
        100 * curve["human_save_in_window_theory"],
        "--",
        color="#333333",
        label="the same, closed form",
    )
    ax.plot(
        ladder["delay_s"],
        100 * ladder["rejected_share_all_seeds_mean"],
        "D",
        color="#e31a1c",
        label="delay ladder 5 s, 10 min, 1 h, 4 h",
    )
    ax.set_xscale("log")
    ticks = [1, 10, 60, 600, 3600, 4 * 3600, 8 * 3600]
    ax.set_xticks(ticks, ["1 s", "10 s", "1 min", "10 min", "1 h", "4 h", "8 h"])
    ax.set(
        xlabel="delay between the read and the edit (log scale)",
        ylabel="edits rejected (%)",
        title=_cas_title(curve, ladder),
    )
    ax.fill_between(
        x,
        100 * curve["human_save_in_window_share_all_seeds"],
        100 * curve["rejected_share_all_seeds_mean"],
        color="#fdbf6f",
        alpha=0.5,
        label="the gap: the agent's own other edits",
    )
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig
