"""The write gate's runs: the CAS day with every agent write gated on an approval, over
both strategies × approval latencies, and a smaller grid of conditions where the strategies
can differ (tools that take time, one reviewer working a queue or approving in bulk); every
gated edit as a row, the per-seed sums, the pooled medians, the edits paired across the
strategies; and the closed forms the table sets beside them (``theory.p_gated_write_meets``).
``sim.report.gate`` makes the tables, the figure and the recommendation from those rows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim.params import ApprovalReviewer, ApprovalStrategy, Params
from sim.study.experiments import PointRuns, Request, experiment_params, frames_of
from sim.theory import p_gated_write_meets

STRATEGIES: tuple[ApprovalStrategy, ...] = ("approve_then_write", "reread_after_approval")
MEDIANS_S = (10.0, 60.0, 120.0, 600.0, 1800.0)
"""Median approval latencies swept: a glance, a minute, the default two, ten and thirty."""
SEEDS = 40
CONDITIONS: tuple[tuple[float, ApprovalReviewer], ...] = (
    (0.0, "independent"),
    (10.0, "independent"),
    (60.0, "independent"),
    (0.0, "queue"),
    (0.0, "batch"),
    (10.0, "queue"),
    (10.0, "batch"),
)
"""(tool latency s, reviewer) at the default 2-minute median: where the strategies may
differ. The first is the main grid's default point."""
CONDITION_SEEDS = 20
KEYS = ["strategy", "approval_median_s", "delay_s"]
CONDITION_KEYS = ["tool_latency_s", "approval_reviewer", "strategy"]


def gate_points(base: Params, medians_s: tuple[float, ...] = MEDIANS_S) -> list[Params]:
    cas = replace(experiment_params(base, "cas"), write_gate=True)
    return [
        replace(cas, approval_strategy=s, approval_median_s=m)
        for s in STRATEGIES
        for m in medians_s
    ]


Condition = tuple[float, ApprovalReviewer]


def condition_points(
    base: Params, conditions: tuple[Condition, ...] = CONDITIONS[1:]
) -> list[Params]:
    cas = replace(experiment_params(base, "cas"), write_gate=True)
    return [
        replace(cas, approval_strategy=s, tool_latency_s=lat, approval_reviewer=rev)
        for lat, rev in conditions
        for s in STRATEGIES
    ]


def gate_requests(
    base: Params,
    seeds: list[int],
    medians_s: tuple[float, ...] = MEDIANS_S,
    conditions: tuple[Condition, ...] = CONDITIONS[1:],
) -> list[Request]:
    """The latency grid (at ``medians_s``) on `seeds`, the conditions grid (at
    ``conditions``, beside the main grid's default point) on those of them
    numbered up to CONDITION_SEEDS: by number, not place, so a seed's rows depend on the
    seed alone (a rerun of seed 32 by itself gives its committed rows, without the
    conditions grid)."""
    return [
        Request(tuple(gate_points(base, medians_s)), tuple(seeds), ("cas",), ("edits",)),
        Request(
            tuple(condition_points(base, conditions)),
            tuple(s for s in seeds if s <= CONDITION_SEEDS),
            ("cas",),
            ("edits",),
        ),
    ]


def gate_edits(requests: list[Request], runs: list[PointRuns]) -> pd.DataFrame:
    """Every gated edit of every grid point and seed, one row each (columns tool_latency_s
    and approval_reviewer tell the grids apart)."""
    return pd.concat(
        [
            frames_of(seed_runs).edits.assign(
                tool_latency_s=p.tool_latency_s, approval_reviewer=p.approval_reviewer
            )
            for r, point_runs in zip(requests, runs, strict=True)
            for p, seed_runs in zip(r.points, point_runs, strict=True)
        ],
        ignore_index=True,
    )


ROW_KEYS = ["tool_latency_s", "approval_reviewer", *KEYS]
COUNTS = [
    "edits",
    "first_writes_sent",
    "human_conflicts",
    "agent_conflicts",
    "gone_at_first_write",
    "rejected",
    "second_approvals",
    "approvals",
    "agent_calls",
    "agent_chars",
    "declined",
    "succeeded",
    "gave_up",
    "approval_wait_s",
]


def gate_rows(edits: pd.DataFrame) -> pd.DataFrame:
    """Per condition × strategy × approval latency × edit delay × seed: the sums the
    tables' shares are made of."""
    cause = edits["first_grant_cause"]
    e = edits.assign(
        edits=1,
        first_writes_sent=cause != "not_sent",
        human_conflicts=cause == "human",
        agent_conflicts=cause == "agent",
        gone_at_first_write=cause == "gone",
        rejected=edits["first_outcome"] == "conflict",
        second_approvals=edits["approvals"] >= 2,
        succeeded=edits["final_outcome"] == "ok",
        gave_up=edits["final_outcome"] == "gave_up",
    )
    return e.groupby([*ROW_KEYS, "seed"], as_index=False)[COUNTS].sum()


def gate_medians(edits: pd.DataFrame) -> pd.DataFrame:
    """The median end-to-end time of the edits that succeeded, pooled over seeds, per
    condition × strategy × approval latency × delay (delay_s NaN: pooled over the ladder;
    scope 'conditions': the conditions table's, on the conditions' seeds only). A pooled
    median is no function of per-seed sums, so these rows are pooled ones: `make check`
    tests them against a fresh run, the sampled rerun cannot."""
    ok = edits[edits["final_outcome"] == "ok"]
    by_delay = ok.groupby(ROW_KEYS)["end_to_end_s"].median()
    pooled = ok.groupby(ROW_KEYS[:-1])["end_to_end_s"].median()
    pooled = pooled.to_frame().assign(delay_s=np.nan).set_index("delay_s", append=True)
    seeds = ok.loc[ok["tool_latency_s"] > 0, "seed"].unique()
    cond = ok[ok["seed"].isin(seeds)].groupby(ROW_KEYS[:-1])["end_to_end_s"].median()
    cond = cond.to_frame().assign(delay_s=np.nan).set_index("delay_s", append=True)
    out = pd.concat(
        [
            by_delay.to_frame().assign(scope="all_seeds"),
            pooled[["end_to_end_s"]].assign(scope="all_seeds"),
            cond[["end_to_end_s"]].assign(scope="conditions"),
        ]
    )
    out["end_to_end_min_median"] = out.pop("end_to_end_s") / 60
    return out.reset_index()


def gate_pairs(edits: pd.DataFrame) -> pd.DataFrame:
    """Per condition × seed at the default median: the edits matched by answer across the
    two strategies, how many differ in outcome, approvals, declines or wait, and each
    strategy's successes among them."""
    e = edits[edits["approval_median_s"] == 120.0]
    cols = ["final_outcome", "approvals", "declined"]
    records = []
    for (lat, rev, seed), g in e.groupby(["tool_latency_s", "approval_reviewer", "seed"]):
        a = g[g["strategy"] == STRATEGIES[0]].set_index("answer")
        b = g[g["strategy"] == STRATEGIES[1]].set_index("answer")
        a, b = a.align(b, join="inner", axis=0)
        if not len(a):
            continue
        same = (a[cols] == b[cols]).all(axis=1) & np.isclose(
            a["approval_wait_s"], b["approval_wait_s"]
        )
        records.append(
            {
                "tool_latency_s": lat,
                "approval_reviewer": rev,
                "seed": seed,
                "matched": len(a),
                "differing": int((~same).sum()),
                "succeeded_a": int((a["final_outcome"] == "ok").sum()),
                "succeeded_b": int((b["final_outcome"] == "ok").sum()),
            }
        )
    return pd.DataFrame(records)


def closed_forms(base: Params) -> dict[tuple[float, object], dict[str, float]]:
    """Per approval latency and edit delay (and pooled over the ladder, 'all'): the chances
    a human saved (article still published) or unpublished the article in the read-to-write
    window."""
    theory: dict[tuple[float, object], dict[str, float]] = {}
    for median in MEDIANS_S:
        p = replace(base, approval_median_s=median)
        per_delay = {d: p_gated_write_meets(p, d) for d in base.edit_delays_s}
        theory.update({(median, d): v for d, v in per_delay.items()})
        theory[(median, "all")] = {
            k: float(np.mean([v[k] for v in per_delay.values()])) for k in ("human", "gone")
        }
    return theory
