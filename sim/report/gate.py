"""Waiting for approval: the write gate against CAS, by edit delay and approval latency.

Each run is the CAS day with the gate on: every agent write needs a recorded approval of
exactly its arguments. Two strategies: write with the citation's version once approved,
or re-read after the approval and ask again if the article changed. With tools that
take no time they are one process (the re-read lands at the instant the other's write
would); a second, smaller grid runs them where they can differ: tool calls that take
time, one reviewer working through a queue, a reviewer approving in bulk. The closed
forms are the chances a human saved (article still published) or unpublished the
article in the read-to-write window (``theory.p_gated_write_meets``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import binomtest

from sim.params import Params
from sim.report.render import render
from sim.stats import holm, q95
from sim.study.gate import (
    CONDITION_KEYS,
    CONDITIONS,
    KEYS,
    ROW_KEYS,
    STRATEGIES,
    closed_forms,
)


def _summary(g: pd.DataFrame, median: float | None) -> dict[str, float]:
    n = g["edits"].sum()
    sent = g["first_writes_sent"].sum()
    return {
        "edits": n,
        "first_writes_sent": sent,
        "human_conflict_share_of_sent": g["human_conflicts"].sum() / sent,
        "agent_conflict_share_of_sent": g["agent_conflicts"].sum() / sent,
        "gone_share_of_sent": g["gone_at_first_write"].sum() / sent,
        "human_conflict_share_of_edits": g["human_conflicts"].sum() / n,
        "first_try_rejected_share": g["rejected"].sum() / n,
        "second_approval_share": g["second_approvals"].sum() / n,
        "approvals_per_edit": g["approvals"].sum() / n,
        "agent_calls_per_edit": g["agent_calls"].sum() / n,
        "agent_chars_per_edit": g["agent_chars"].sum() / n,
        "declined_share": g["declined"].sum() / n,
        "succeeded_share": g["succeeded"].sum() / n,
        "gave_up_share": g["gave_up"].sum() / n,
        "approval_wait_min_per_edit": g["approval_wait_s"].sum() / n / 60,
        "end_to_end_min_median": median,
        "seeds": g["seed"].nunique(),
    }


def _medians(medians: pd.DataFrame, scope: str = "all_seeds") -> dict[tuple[object, ...], float]:
    m = medians[medians["scope"] == scope]
    return {
        (*k[:-1], "all" if np.isnan(k[-1]) else k[-1]): v
        for *k, v in m[[*ROW_KEYS, "end_to_end_min_median"]].itertuples(index=False)
    }


def gate_table(base: Params, rows: pd.DataFrame, medians: pd.DataFrame) -> pd.DataFrame:
    """Per strategy × approval latency × edit delay, and pooled over the ladder ('all'),
    on the main grid (tools that take no time, a reviewer free for every request), with the
    closed forms for a human save (article still published) and an unpublish in the
    read-to-write window: shares of first writes sent."""
    main = (0.0, "independent")
    rows = rows[(rows["tool_latency_s"] == 0) & (rows["approval_reviewer"] == "independent")]
    med = _medians(medians)
    records = [
        {
            "strategy": s,
            "approval_median_s": m,
            "delay_s": d,
            **_summary(g, med.get((*main, s, m, d))),
        }
        for (s, m, d), g in rows.groupby(KEYS)
    ] + [
        {"strategy": s, "approval_median_s": m, **_summary(g, med.get((*main, s, m, "all")))}
        for (s, m), g in rows.groupby(KEYS[:2])
    ]
    table = pd.DataFrame(records)
    table["delay_s"] = table["delay_s"].astype(object).where(table["delay_s"].notna(), "all")
    table = table[[*KEYS, *(c for c in table.columns if c not in KEYS)]]
    theory = closed_forms(base)
    keys = list(zip(table["approval_median_s"], table["delay_s"], strict=True))
    table["human_conflict_theory"] = [theory[k]["human"] for k in keys]
    table["gone_theory"] = [theory[k]["gone"] for k in keys]
    return table


def _differs(p: pd.DataFrame) -> dict[str, float]:
    """The share of matched edits that differ, and the paired gap in successes (re-read
    after approval minus approve then write) over seeds with its 95 % CI half-width and
    the two-sided exact sign test's p on the seeds where the gap is not zero (1 when none
    is): a per-seed gap of a success or two is not normal, so the t interval alone misleads."""
    gap = (p["succeeded_b"] - p["succeeded_a"]) / p["matched"]
    half = q95(len(gap)) * gap.std(ddof=1) / np.sqrt(len(gap)) if len(gap) > 1 else np.nan
    up, down = int((gap > 0).sum()), int((gap < 0).sum())
    sign_p = binomtest(up, up + down, 0.5).pvalue if up + down else 1.0
    return {
        "edits_differing_share": float(p["differing"].sum() / p["matched"].sum()),
        "success_gap": float(gap.mean()),
        "success_gap_ci_half": float(half),
        "success_gap_sign_p": float(sign_p),
    }


def conditions_table(
    rows: pd.DataFrame, medians: pd.DataFrame, pairs: pd.DataFrame
) -> pd.DataFrame:
    """Both strategies at the default median under each condition, pooled over the ladder,
    on the conditions' seeds; with the share of matched edits that differ between them."""
    seeds = sorted(rows.loc[rows["tool_latency_s"] > 0, "seed"].unique())
    r = rows[rows["seed"].isin(seeds) & (rows["approval_median_s"] == 120.0)]
    pairs = pairs[pairs["seed"].isin(seeds)]
    med = _medians(medians, "conditions")
    records = []
    ran = set(zip(r["tool_latency_s"], r["approval_reviewer"], strict=True))
    for lat, rev in (c for c in CONDITIONS if c in ran):  # a quick run's subset: those it ran
        c = r[(r["tool_latency_s"] == lat) & (r["approval_reviewer"] == rev)]
        p = pairs[(pairs["tool_latency_s"] == lat) & (pairs["approval_reviewer"] == rev)]
        differs = _differs(p)
        for s in STRATEGIES:
            g = c[c["strategy"] == s]
            median = med.get((lat, rev, s, 120.0, "all"))
            records.append(
                {
                    "tool_latency_s": lat,
                    "approval_reviewer": rev,
                    "strategy": s,
                    **_summary(g, median),
                    **differs,
                }
            )
    return pd.DataFrame(records)


def figure(table: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(9, 3.8))
    ax1, ax2 = fig.subplots(1, 2)
    pooled = table[table["delay_s"] == "all"]
    colours = {"approve_then_write": "tab:red", "reread_after_approval": "tab:blue"}
    markers = {"approve_then_write": "o", "reread_after_approval": "x"}
    for strategy, g in pooled.groupby("strategy"):
        x = g["approval_median_s"] / 60
        kw = {"color": colours[strategy], "marker": markers[strategy]}
        name = strategy.replace("_", " ")
        ax1.plot(x, 100 * g["human_conflict_share_of_sent"], label=f"{name}: a human's save", **kw)
        ax1.plot(x, 100 * g["gone_share_of_sent"], ls=":", label=f"{name}: unpublished", **kw)
        ax2.plot(x, g["agent_calls_per_edit"], label=name, **kw)
    theory = pooled.drop_duplicates("approval_median_s")
    x = theory["approval_median_s"] / 60
    ax1.plot(x, 100 * theory["human_conflict_theory"], "k--", lw=1, label="closed form: human save")
    ax1.plot(x, 100 * theory["gone_theory"], "k:", lw=1, label="closed form: unpublished")
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("median approval latency (min)")
        ax.grid(alpha=0.3)
    ax1.set_ylabel("% of first writes sent")
    ax1.set_title("the approved version met, at the first write", fontsize=9)
    ax2.set_ylabel("agent tool calls per edit")
    ax2.set_title("what each strategy costs", fontsize=9)
    ax1.legend(fontsize=6)
    ax2.legend(fontsize=7)
    fig.suptitle(
        "Both strategies meet the same conflicts at every approval latency; re-reading after "
        "the approval costs more calls\n(the write gate on the CAS day, the delay ladder pooled)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def _condition(r: pd.Series) -> dict[str, object]:
    """A condition as the template names it: its reviewer and tool latency."""
    return {"latency": r["tool_latency_s"], "reviewer": r["approval_reviewer"]}


def recommendation(table: pd.DataFrame, conditions: pd.DataFrame, median_s: float = 120.0) -> str:
    """What the runs show about the two strategies and the choice that follows
    (templates/gate_recommendation.md.j2); every number from the tables. Where they are one
    process the cheaper one is chosen; where they differ, the one with more successes (the
    other's extra successes beside its extra calls are stated)."""
    rows = table[(table["delay_s"] == "all") & (table["approval_median_s"] == median_s)]
    a, b = (rows[rows["strategy"] == s].iloc[0] for s in STRATEGIES)
    c = conditions.set_index(CONDITION_KEYS)
    others = conditions[
        (conditions["tool_latency_s"] > 0) | (conditions["approval_reviewer"] != "independent")
    ]
    same = others[others["edits_differing_share"] == 0].drop_duplicates(CONDITION_KEYS[:2])
    differ = conditions[conditions["edits_differing_share"] > 0].drop_duplicates(CONDITION_KEYS[:2])

    differing = []
    adjusted = holm(list(differ["success_gap_sign_p"]))
    for (_, r), p_holm in zip(differ.iterrows(), adjusted, strict=True):
        key = (r["tool_latency_s"], r["approval_reviewer"])
        differing.append(
            {
                "latency": key[0],
                "reviewer": key[1],
                "x": c.loc[(*key, STRATEGIES[0])],
                "y": c.loc[(*key, STRATEGIES[1])],
                "edits_differing_share": r["edits_differing_share"],
                "success_gap": r["success_gap"],
                "success_gap_ci_half": r["success_gap_ci_half"],
                "p": r["success_gap_sign_p"],
                "p_holm": p_holm,
            }
        )
    significant = [d for d in differing if d["p_holm"] < 0.05]
    return render(
        "gate_recommendation.md.j2",
        median_s=median_s,
        a=a,
        b=b,
        same=[_condition(r) for _, r in same.iterrows()],
        differ=differing,
        better=[d for d in significant if d["success_gap"] > 0],
        poorer=[d for d in significant if d["success_gap"] < 0],
    )
