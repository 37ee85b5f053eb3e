"""Waiting for approval: the write gate against CAS, by edit delay and approval latency.

Each run is the CAS day with the gate on: every agent write needs a recorded approval of
exactly its arguments, decided after a lognormal latency. Two strategies: write with the
citation's version once approved, or re-read after the approval and ask again if the
article changed. The closed form is the chance a human saved in the read-to-write window
(``theory.p_human_save_before_gated_write``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.experiments import experiment_params, run_grid
from sim.params import Params
from sim.theory import p_human_save_before_gated_write

STRATEGIES = ("approve_then_write", "reread_after_approval")
MEDIANS_S = (10.0, 60.0, 120.0, 600.0, 1800.0)
"""Median approval latencies swept: a glance, a minute, the default two, ten and thirty."""
SEEDS = 40
KEYS = ["strategy", "approval_median_s", "delay_s"]


def gate_points(base: Params) -> list[Params]:
    cas = experiment_params(base, "cas")
    return [
        replace(cas, write_gate=True, approval_strategy=s, approval_median_s=m)
        for s in STRATEGIES
        for m in MEDIANS_S
    ]


COUNTS = [
    "edits",
    "rejected",
    "second_approvals",
    "approvals",
    "declined",
    "would_overwrite",
    "succeeded",
    "approval_wait_s",
]


def gate_runs(base: Params, seeds: list[int], workers: int | None, progress: bool) -> pd.DataFrame:
    """Every gated edit of every grid point and seed, one row each."""
    return run_grid(gate_points(base), seeds, ("cas",), workers, progress).edits


def gate_rows(edits: pd.DataFrame) -> pd.DataFrame:
    """Per strategy × approval latency × edit delay × seed: the sums the table's shares are
    made of."""
    e = edits.assign(
        edits=1,
        rejected=edits["first_outcome"] == "conflict",
        second_approvals=edits["approvals"] >= 2,
        succeeded=edits["final_outcome"] == "ok",
    )
    return e.groupby([*KEYS, "seed"], as_index=False)[COUNTS].sum()


def gate_medians(edits: pd.DataFrame) -> pd.DataFrame:
    """The median end-to-end time of the edits that succeeded, pooled over seeds, per
    strategy × approval latency × delay (delay_s NaN: pooled over the ladder). A pooled
    median is no function of per-seed sums, so these rows are pooled ones: `make check`
    tests them against a fresh run, the sampled rerun cannot."""
    ok = edits[edits["final_outcome"] == "ok"]
    by_delay = ok.groupby(KEYS)["end_to_end_s"].median()
    pooled = ok.groupby(KEYS[:2])["end_to_end_s"].median()
    pooled = pooled.to_frame().assign(delay_s=np.nan).set_index("delay_s", append=True)
    out = pd.concat([by_delay.to_frame(), pooled["end_to_end_s"].to_frame()])
    return (out["end_to_end_s"] / 60).rename("end_to_end_min_median").reset_index()


def _summary(g: pd.DataFrame, median: float) -> dict[str, float]:
    n = g["edits"].sum()
    return {
        "edits": n,
        "first_try_rejected_share": g["rejected"].sum() / n,
        "second_approval_share": g["second_approvals"].sum() / n,
        "approvals_per_edit": g["approvals"].sum() / n,
        "declined_share": g["declined"].sum() / n,
        "would_overwrite_share": g["would_overwrite"].sum() / n,
        "succeeded_share": g["succeeded"].sum() / n,
        "approval_wait_min_per_edit": g["approval_wait_s"].sum() / n / 60,
        "end_to_end_min_median": median,
        "seeds": g["seed"].nunique(),
    }


def gate_table(base: Params, rows: pd.DataFrame, medians: pd.DataFrame) -> pd.DataFrame:
    """Per strategy × approval latency × edit delay, and pooled over the ladder ('all')."""
    med = {
        (s, m, "all" if np.isnan(d) else d): v
        for s, m, d, v in medians[[*KEYS, "end_to_end_min_median"]].itertuples(index=False)
    }
    records = [
        {"strategy": s, "approval_median_s": m, "delay_s": d, **_summary(g, med.get((s, m, d)))}
        for (s, m, d), g in rows.groupby(KEYS)
    ] + [
        {"strategy": s, "approval_median_s": m, **_summary(g, med.get((s, m, "all")))}
        for (s, m), g in rows.groupby(KEYS[:2])
    ]
    table = pd.DataFrame(records)
    table["delay_s"] = table["delay_s"].astype(object).where(table["delay_s"].notna(), "all")
    table = table[[*KEYS, *(c for c in table.columns if c not in KEYS)]]
    theory = {}
    for median in MEDIANS_S:
        p = replace(base, approval_median_s=median)
        per_delay = {d: p_human_save_before_gated_write(p, d) for d in base.edit_delays_s}
        theory.update({(median, d): v for d, v in per_delay.items()})
        theory[(median, "all")] = float(np.mean(list(per_delay.values())))
    table["human_save_in_window_theory"] = [
        theory[(m, d)] for m, d in zip(table["approval_median_s"], table["delay_s"], strict=True)
    ]
    return table


def figure(table: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(9, 3.8))
    ax1, ax2 = fig.subplots(1, 2)
    pooled = table[table["delay_s"] == "all"]
    colours = {"approve_then_write": "tab:red", "reread_after_approval": "tab:blue"}
    for strategy, g in pooled.groupby("strategy"):
        x = g["approval_median_s"] / 60
        kw = {"color": colours[strategy], "marker": "o", "label": strategy.replace("_", " ")}
        ax1.plot(x, 100 * g["first_try_rejected_share"], **kw)
        ax2.plot(x, 100 * g["second_approval_share"], **kw)
    for ax in (ax1, ax2):
        theory = pooled.drop_duplicates("approval_median_s")
        ax.plot(
            theory["approval_median_s"] / 60,
            100 * theory["human_save_in_window_theory"],
            "k--",
            lw=1,
            label="closed form: a human save in the window",
        )
        ax.set_xscale("log")
        ax.set_xlabel("median approval latency (min)")
        ax.grid(alpha=0.3)
    ax1.set_ylabel("% of edits")
    ax1.set_title("first write rejected by CAS")
    ax2.set_title("edits that needed a second approval")
    ax1.legend(fontsize=7)
    fig.suptitle("The write gate on the CAS day (ladder 5 s – 4 h pooled)", fontsize=10)
    fig.tight_layout()
    return fig


def recommendation(table: pd.DataFrame, median_s: float = 120.0) -> str:
    """One sentence at the default approval latency; the verdict and every number in it
    come from the table."""
    rows = table[(table["delay_s"] == "all") & (table["approval_median_s"] == median_s)]
    by = {r["strategy"]: r for _, r in rows.iterrows()}
    a, b = by["approve_then_write"], by["reread_after_approval"]
    pct = lambda x: f"{100 * x:.1f} %"  # noqa: E731
    wins_b = b["first_try_rejected_share"] < a["first_try_rejected_share"]
    win, lose = (b, a) if wins_b else (a, b)
    gap = b["second_approval_share"] - a["second_approval_share"]
    second = "about as many" if abs(gap) < 0.01 else ("more" if (gap > 0) == wins_b else "fewer")
    return (
        f"With a {median_s / 60:g}-minute median approval, {win['strategy'].replace('_', ' ')} "
        f"wins: CAS rejects {pct(win['first_try_rejected_share'])} of its first writes against "
        f"{pct(lose['first_try_rejected_share'])} for {lose['strategy'].replace('_', ' ')}, "
        f"with {second} second approvals ({pct(win['second_approval_share'])} of edits against "
        f"{pct(lose['second_approval_share'])}); keep CAS on either way, since "
        f"{pct(a['would_overwrite_share'])} of first writes approved with the citation's "
        "version would otherwise have overwritten a human's newer text."
    )
