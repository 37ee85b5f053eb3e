"""When does polling the event log stop being cheaper than re-reading every citation?

Per check, re-reading costs one read per distinct cited article held (D); polling
costs ⌈E / 100⌉ pages for the E events since the last check plus one read per cited
article that changed (C ≤ D). So in calls polling wins while ⌈E / 100⌉ + C < D; in
characters a page of events weighs about as much as several reads, so it stops
winning sooner. A sweep over edit volume and held citations measures both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.report.render import environment


def break_even_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean cost per check of each grid point; ratios above 1 mean polling costs more."""
    r = runs.assign(
        events_per_check=runs["saves"] / runs["checks"],
        citations_held_at_end=runs["zipf_citations"],
        reread_calls_per_check=runs["reread_calls"] / runs["checks"],
        poll_calls_per_check=runs["poll_method_calls"] / runs["checks"],
        calls_ratio=runs["poll_method_calls"] / runs["reread_calls"],
        chars_ratio=runs["poll_method_chars"] / runs["reread_chars"],
    )
    keys = ["n_saves", "n_questions", "check_interval_s"]
    cols = [
        "events_per_check",
        "citations_held_at_end",
        "reread_calls_per_check",
        "poll_calls_per_check",
        "calls_ratio",
        "chars_ratio",
    ]
    out = r.groupby(keys, as_index=False)[cols].mean()
    out["seeds"] = r.groupby(keys)["seed"].nunique().to_numpy()
    return out


def crossings(table: pd.DataFrame) -> pd.DataFrame:
    """Per (questions, interval): the grid's saves per check either side of where each ratio
    reaches 1 (the last point below 1 and the first at or above it; NaN past the grid). The
    grid's points are a factor of 3–4 apart on a few seeds each, so a bracket is all it
    supports: no value between them is reported."""
    rows = []
    for (q, interval), g in table.groupby(["n_questions", "check_interval_s"]):
        g = g.sort_values("events_per_check")
        row = {
            "n_questions": q,
            "check_interval_s": interval,
            "citations_held_at_end": g["citations_held_at_end"].mean(),
        }
        for ratio in ("calls", "chars"):
            x, y = g["events_per_check"].to_numpy(), g[f"{ratio}_ratio"].to_numpy()
            lo = hi = np.nan
            for i in range(len(x) - 1):
                if y[i] < 1 <= y[i + 1]:
                    lo, hi = x[i], x[i + 1]
                    break
            if np.isnan(lo) and len(x):  # no crossing: the grid's first point or its last
                hi, lo = (x[0], np.nan) if y[0] >= 1 else (np.nan, x[-1])
            row[f"{ratio}_parity_above"] = lo
            row[f"{ratio}_parity_at_most"] = hi
        rows.append(row)
    return pd.DataFrame(rows)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def bracket(lo: float, hi: float, unit: str = "") -> str:
    """A crossing as the grid brackets it, in words (templates/breakeven.txt.j2)."""
    return str(_phrases().bracket(_finite(lo), _finite(hi), unit))


def _title(cross: pd.DataFrame) -> str:
    """The crossings in calls at each day's questions, as the finding."""
    at = cross.groupby("n_questions")[["calls_parity_above", "calls_parity_at_most"]].min()
    return str(
        _phrases().title(
            [
                (q, _finite(r["calls_parity_above"]), _finite(r["calls_parity_at_most"]))
                for q, r in at.iterrows()
            ]
        )
    )


def _phrases() -> Any:
    """The module's phrases: the template's macros."""
    return environment().get_template("breakeven.txt.j2").module


def figure(table: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for (q, _interval), g in table.groupby(["n_questions", "check_interval_s"]):
        g = g.sort_values("events_per_check")
        label = f"{q} questions a day"
        line = ax.plot(
            g["events_per_check"], g["calls_ratio"], marker="o", label=f"tool calls, {label}"
        )[0]
        ax.plot(
            g["events_per_check"],
            g["chars_ratio"],
            marker="x",
            ls="--",
            color=line.get_color(),
            label=f"characters, {label}",
        )
    ax.axhline(1, color="black", lw=0.8)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="human saves per hourly check (log scale)",
        ylabel="poll cost ÷ re-read cost (log scale)",
        title=_title(crossings(table)),
    )
    ax.text(ax.get_xlim()[0], 1.05, " polling costs more above, less below", fontsize=7)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return fig
