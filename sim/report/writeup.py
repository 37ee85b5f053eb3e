"""REPORT.md: every number in it comes from the tables of the same run. This module builds
the tables and picks the rows the sentences quote; the words are in
templates/writeup_report.md.j2 (the page) and the writeup_*.md.j2 it includes (§ 4, § 5,
the fixed assumptions)."""

from __future__ import annotations

import pandas as pd

from sim.model import methods
from sim.pages import md
from sim.params import Params, param_docs
from sim.report import atlas, breakeven, map_section, realshape_section
from sim.report.audit import audit_table, seeds_needed_table
from sim.report.calibration import calibration_text
from sim.report.exposure import section_text
from sim.report.gate import recommendation
from sim.report.ladders import ladder_text
from sim.report.openchoices import (
    cas_analysis_text,
    control_outlier_text,
    multiple_testing_text,
    open_choices_text,
)
from sim.report.render import pct
from sim.report.render import render as render_template
from sim.report.variance import variance_text
from sim.study.realshape import Setting


def _parity(r: pd.Series, ratio: str) -> str:
    """Where a ratio reaches 1 on the break-even grid, as the grid brackets it."""
    return breakeven.bracket(r[f"{ratio}_parity_above"], r[f"{ratio}_parity_at_most"])


def _break_even(crossings: pd.DataFrame) -> dict[str, object]:
    """§ 4's values: the break-even at the grid's fewest and most questions, and the table."""
    rows = [
        {
            "questions per day": int(r["n_questions"]),
            "citations held at day end": f"{r['citations_held_at_end']:.0f}",
            "check every": f"{r['check_interval_s'] / 60:.0f} min",
            "saves per check where polling costs as many calls": _parity(r, "calls"),
            "… as many characters": _parity(r, "chars"),
        }
        for _, r in crossings.iterrows()
    ]
    low, high = (
        {
            "questions": int(r["n_questions"]),
            "calls": _parity(r, "calls"),
            "chars": _parity(r, "chars"),
        }
        for r in (crossings.iloc[0], crossings.iloc[-1])
    )
    return {"low": low, "high": high, "break_even_table": md(pd.DataFrame(rows))}


def gate_text(base: Params, table: pd.DataFrame, conditions: pd.DataFrame, n_seeds: int) -> str:
    """The write gate section (templates/writeup_gate.md.j2): the pooled table and the
    conditions where the strategies may differ, and the two strategies' pooled rows at the
    default median for its finding."""
    shares = (
        "human_conflict_share_of_sent",
        "human_conflict_theory",
        "agent_conflict_share_of_sent",
        "gone_share_of_sent",
        "gone_theory",
        "declined_share",
        "succeeded_share",
    )
    pooled = table[table["delay_s"] == "all"].assign(
        approval_median=lambda d: d["approval_median_s"].map(
            lambda m: f"{m:g} s" if m < 60 else f"{m / 60:g} min"
        ),
        **{c: (lambda col: lambda d: d[col].map(pct))(c) for c in shares},
        first_writes_sent=lambda d: d["first_writes_sent"].astype(int),
        approvals_per_edit=lambda d: d["approvals_per_edit"].round(2),
        agent_calls_per_edit=lambda d: d["agent_calls_per_edit"].round(2),
        agent_chars_per_edit=lambda d: d["agent_chars_per_edit"].round(0).astype(int),
        approval_wait_min_per_edit=lambda d: d["approval_wait_min_per_edit"].round(1),
    )[
        [
            "strategy",
            "approval_median",
            "first_writes_sent",
            *shares[:5],
            "approvals_per_edit",
            "agent_calls_per_edit",
            "agent_chars_per_edit",
            *shares[5:],
            "approval_wait_min_per_edit",
        ]
    ]
    cond = conditions.assign(
        tool_latency=conditions["tool_latency_s"].map(lambda x: f"{x:g} s"),
        edits_differing=conditions["edits_differing_share"].map(pct),
        succeeded=conditions["succeeded_share"].map(pct),
        gave_up=conditions["gave_up_share"].map(pct),
        approvals_per_edit=conditions["approvals_per_edit"].round(2),
        agent_calls_per_edit=conditions["agent_calls_per_edit"].round(2),
        agent_chars_per_edit=conditions["agent_chars_per_edit"].round(0).astype(int),
        approval_wait_min_per_edit=conditions["approval_wait_min_per_edit"].round(1),
    )[
        [
            "tool_latency",
            "approval_reviewer",
            "strategy",
            "edits_differing",
            "succeeded",
            "gave_up",
            "approvals_per_edit",
            "agent_calls_per_edit",
            "agent_chars_per_edit",
            "approval_wait_min_per_edit",
        ]
    ]
    g = table[(table["delay_s"] == "all") & (table["approval_median_s"] == 120.0)]
    a, b = (g[g["strategy"] == s].iloc[0] for s in ("approve_then_write", "reread_after_approval"))
    return render_template(
        "writeup_gate.md.j2",
        base=base,
        a=a.to_dict(),
        b=b.to_dict(),
        seeds=n_seeds,
        recommendation=recommendation(table, conditions),
        pooled_table=md(pooled),
        condition_seeds=int(conditions["seeds"].iloc[0]),
        conditions_table=md(cond),
    )


def _realshape(t: dict[str, pd.DataFrame], seeds: dict[str, int], setting: Setting | None) -> str:
    """Appendix C's body, empty without the real-shape tables."""
    if "realshape" not in t or setting is None:
        return ""
    own = None
    if "map_logs" in t:  # the logs' own saves a calendar day, beside the volume the arms ran at
        own = t["map_logs"].drop_duplicates("log").set_index("log")["saves_per_hour"] * 24
    return realshape_section.section_text(
        t["realshape"],
        t["realshape_moves"],
        seeds["realshape"],
        setting,
        t["realshape_paired"],
        own,
    )


def _cost_rows(cost: pd.DataFrame) -> pd.DataFrame:
    """§ 2's table: each check method's calls and characters on the Zipf day."""
    return cost[cost["save_popularity"] == "zipf"].assign(
        calls_per_check=lambda d: d["calls_per_check"].round(1),
        result_chars_per_check=lambda d: d["result_chars_per_check"].round(0).astype(int),
    )[
        [
            "method",
            "checks",
            "calls",
            "calls_per_check",
            "calls_per_check_max",
            "articles_reread",
            "result_chars",
            "result_chars_per_check",
            "caught_at_day_end",
            "missed_at_day_end",
            "false_alarms_at_day_end",
        ]
    ]


def _label(name: str) -> str:
    """A check method's label as every page shows it (the registry's)."""
    return methods.BY_NAME[name].label if name in methods.BY_NAME else name


def _cas_rows(cas: pd.DataFrame) -> pd.DataFrame:
    """§ 3's table: per delay, seeds 1–5's counts and every seed's shares."""
    return cas.assign(
        delay=cas["delay_s"].map(lambda d: f"{d:g} s"),
        rejected=cas["rejected_seeds_1_5"].astype(str)
        + " of "
        + cas["edits_seeds_1_5"].astype(str),
        share_all_seeds=[
            f"{pct(m)} ({pct(lo)} – {pct(hi)})"
            for m, lo, hi in zip(
                cas["rejected_share_all_seeds_mean"],
                cas["rejected_share_all_seeds_ci_lo"],
                cas["rejected_share_all_seeds_ci_hi"],
                strict=True,
            )
        ],
        human_save_all_seeds=cas["human_save_in_window_share_all_seeds"].map(pct),
        closed_form_human_save=cas["human_save_in_window_theory"].map(pct),
    )[
        [
            "delay",
            "rejected",
            "rejected_by_human_save_seeds_1_5",
            "rejected_by_agent_edit_seeds_1_5",
            "gone_seeds_1_5",
            "retries_seeds_1_5",
            "succeeded_seeds_1_5",
            "replays_matched_seeds_1_5",
            "replay_new_events_seeds_1_5",
            "share_all_seeds",
            "human_save_all_seeds",
            "closed_form_human_save",
        ]
    ]


EXPOSURE_POINTS = (("poll", 60.0), ("reread", 60.0), ("push", 0.0))
"""§ 6's rows that § 2 and § 6's findings quote: (method, check interval in minutes)."""


def render(
    base: Params,
    seeds: dict[str, int],
    t: dict[str, pd.DataFrame],
    advice: str = "",
    realshape_setting: Setting | None = None,
    first_page: str = "",
) -> str:
    """REPORT.md (templates/writeup_report.md.j2): the designer's page, the six chapters,
    then the appendices (the audit against the write-up, the open choices, the real shape,
    seed counts, assumptions); the tables built here, the other sections by their modules."""
    comparison, staleness, cas = t["comparison"], t["staleness"], t["cas_by_delay"]
    sensitivity = t.get("sensitivity")
    pooled = staleness[staleness["seed"] == "pooled"].set_index("save_popularity")
    cost_rows = _cost_rows(t["check_cost"])
    audit, notes = audit_table(comparison)
    by_key = comparison.set_index("key")
    c1h = cas.set_index("delay_s")
    h1 = c1h.loc[3600.0] if 3600.0 in c1h.index else c1h.iloc[len(c1h) // 2]
    per_seed = t["per_seed"]
    exposure = None  # § 6's client at the hourly check, and push
    if "exposure" in t:
        ex = t["exposure"].set_index(["method", "interval_min"])
        exposure = {m: ex.loc[(m, i)].to_dict() for m, i in EXPOSURE_POINTS}
    docs = param_docs()
    realshape = _realshape(t, seeds, realshape_setting)
    return render_template(
        "writeup_report.md.j2",
        seeds=seeds,
        first_page=first_page,
        stale_all=by_key.loc["zipf_stale_share"].to_dict(),
        title_all=by_key.loc["title_caught_share"].to_dict(),
        z=pooled.loc["zipf"].to_dict(),
        e=pooled.loc["even"].to_dict(),
        calls={
            "poll": per_seed["poll_method_calls"].mean(),
            "reread": per_seed["reread_calls"].mean(),
            "seeds": int(per_seed["poll_method_calls"].notna().sum()),
        },
        checks=int(cost_rows["checks"].iloc[0]),
        poll=cost_rows.set_index("method").loc["poll"].to_dict(),
        reread=cost_rows.set_index("method").loc["reread"].to_dict(),
        cost_table=md(cost_rows.assign(method=cost_rows["method"].map(_label))),
        exact=[m.label for m in methods.METHODS if m.exact and m.hourly],
        cas={
            "first_delay_s": c1h.index[0],
            "first_share": c1h.iloc[0]["rejected_share_all_seeds_mean"],
            "last_delay_s": c1h.index[-1],
            "last_share": c1h.iloc[-1]["rejected_share_all_seeds_mean"],
            "own_1h": h1["rejected_by_agent_edit_seeds_1_5"] / max(1, h1["rejected_seeds_1_5"]),
        },
        cas_table=md(_cas_rows(cas)),
        cas_analysis=cas_analysis_text(comparison, sensitivity),
        **_break_even(t["break_even_crossings"]),
        gate=gate_text(base, t["gate"], t["gate_conditions"], seeds["gate"]) if "gate" in t else "",
        exposure=exposure,
        exposure_section=section_text(
            t["exposure"],
            t["exposure_crossings"],
            advice,
            seeds["exposure"],
            base.stop_checking_known_stale,
        )
        if "exposure" in t
        else "",
        map=map_section.text(base, t) if "map_agreement" in t else "",
        atlas=atlas.section_text(t) if "atlas_heldout" in t else "",
        audit_table=audit,
        variance=variance_text(t["variance_reduction"], base) if "variance_reduction" in t else "",
        notes=notes,
        multiple_testing=multiple_testing_text(comparison),
        control_outlier=""
        if sensitivity is None
        else control_outlier_text(comparison, sensitivity),
        open_choices="" if sensitivity is None else open_choices_text(sensitivity),
        ladder="" if sensitivity is None else ladder_text(sensitivity, seeds["cas"]),
        realshape=realshape,
        calibration=calibration_text(t) if realshape else "",  # Appendix C's, after the shape
        seeds_needed=seeds_needed_table(comparison),
        params=[(k, v, docs.get(k, "")) for k, v in base.as_dict().items()],
    )
