"""REPORT.md: every number in it comes from the tables of the same run."""

from __future__ import annotations

import re

import pandas as pd

from sim.pages import md
from sim.params import Params, param_docs
from sim.report import breakeven, realshape_section
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
from sim.stats import seeds_for_half_width
from sim.study.realshape import Setting
from sim.studymap.report import text as map_text

FIXED_ASSUMPTIONS = (
    "The delay ladder, what a save drawn for an unpublished article does, when questions and "
    "saves come, how the control's saves are spread, which citation is edited, whether the "
    "agent's edits may meet each other, which successes are replayed and whether humans save "
    "after the day are parameters (Appendix B); the defaults follow the "
    "write-up's text.",
    "All articles are published at the start of the day.",
    "Search is SQLite FTS5 bm25 over title (weight 4) and body (weight 1); the query's words "
    "are OR-ed after dropping English stopwords. A question's query names its target "
    "article's task, so the target ranks first; the second citation is whatever ranks second.",
    "The agent reads the top hits and keeps, per citation, the article's updated_at, title and "
    "the event-log head it saw at the read (`event_sequence`, returned by the read).",
    "Checks take no simulated time, so each is judged against ground truth at the same instant. "
    "The poll method starts from the smallest event_sequence among the held citations, pages "
    "100 events at a time, and re-reads only cited articles named in those events.",
    "The title-only method searches each kept title (limit `title_check_limit`) and flags the "
    "citation when no hit carries exactly that title.",
    "Delayed edits append a note to the content the agent read; on a conflict the agent "
    "re-reads, appends the note to the current content and retries with the new version. "
    "A first-try success is replayed once with the same key (`replays`). Edits due after the "
    "day's end still happen; by default human saves have stopped by then "
    "(`humans_after_day_end`).",
    "A rejection (conflict) is caused by a human when a human saved the article after the read, "
    "otherwise by another of the agent's delayed edits.",
)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


_md = md


def _value(row: pd.Series, column: str) -> str:
    v = row[column]
    if row["key"] in ("poll_calls_per_check_max", "title_caught_body", "cas_replay_new_events"):
        return f"{v:g}"
    if row["key"] in ("ids_equal_truth", "cas_retries_all_succeeded"):
        return "yes" if v == 1 else f"{_pct(v)} of seeds"
    return _pct(v)


_COUNT = re.compile(
    r"(reproduced|not reproduced|undecided) under (\d+) of (\d+) (readings|other ladders)"
)


def _readings_cell(text: str) -> str:
    """'reproduced under 3 of 6 readings, not reproduced under …; reproduced under 8 of 8
    other ladders' as '3 of 6 readings reproduced; 8 of 8 ladders reproduced'."""
    counts = [
        f"{k} of {n} {kind.replace('other ', '')}: {verdict}"
        for verdict, k, n, kind in _COUNT.findall(text)
    ]
    return "; ".join(counts) or ("—" if not text else "see note")


def audit_table(comparison: pd.DataFrame) -> tuple[str, str]:
    """The audit table (each cell a value or a verdict) and its numbered notes (the reasons,
    the readings that differ, the verdict on other seeds)."""
    rows: list[dict[str, object]] = []
    notes: list[str] = []
    for _, r in comparison.iterrows():
        ci = "" if r["seeds"] == 0 else f" ({_value(r, 'ci_lo')} – {_value(r, 'ci_hi')})"
        z = "" if pd.isna(r["z"]) or r["seeds"] == 0 else f"{r['z']:+.2f}"
        if z and r["borderline"]:
            z += " (borderline)"
        note = []
        if r["verdict_at_150_seeds"] and r["verdict_at_150_seeds"] != r["alone"]:
            note.append(f"{r['verdict_at_150_seeds']} on seeds 1–150.")
        if r["band"]:
            note.append(f"The write-up's words are read as {r['band']}.")
        if r["reason"]:
            note.append(r["reason"])
        readings = r.get("readings", "") or ""
        if readings and _readings_cell(readings) != readings:
            note.append(f"Across the open choices: {readings}.")
        mark = ""
        if note:
            notes.append(f"{len(notes) + 1}. **{r['figure']}**: " + " ".join(note))
            mark = f" [{len(notes)}]"
        rows.append(
            {
                "figure": r["figure"],
                "write-up": r["reported"],
                "ours, mean (95 % CI)": f"{_value(r, 'mean')}{ci}",
                "seeds": int(r["seeds"]) or "analytic",
                "closed form": "" if pd.isna(r["closed_form"]) else _pct(r["closed_form"]),
                "z": z,
                "verdict": f"{r['verdict']}{mark}",
                "readings": _readings_cell(readings),
            }
        )
    return _md(pd.DataFrame(rows)), "\n".join(notes)


def seeds_needed_table(comparison: pd.DataFrame, half_width: float = 0.01) -> str:
    """Seeds each share figure needs for a ±half_width 95 % interval, and seeds used."""
    rows = []
    for _, r in comparison[
        comparison["key"].str.contains("share") & (comparison["seeds"] > 0)
    ].iterrows():
        need = seeds_for_half_width(r["sd"], half_width)
        rows.append(
            {
                "figure": r["figure"],
                "per-seed SD": _pct(r["sd"]),
                "seeds needed": need,
                "seeds used": int(r["seeds"]),
                "95 % CI half-width": f"±{100 * (r['ci_hi'] - r['ci_lo']) / 2:.2f} points",
            }
        )
    return _md(pd.DataFrame(rows))


def _parity(r: pd.Series, ratio: str) -> str:
    """Where a ratio reaches 1 on the break-even grid, as the grid brackets it."""
    return breakeven.bracket(r[f"{ratio}_parity_above"], r[f"{ratio}_parity_at_most"])


def break_even_text(crossings: pd.DataFrame, seeds: int) -> str:
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
    return (
        "Polling costs ⌈E / 100⌉ pages for the E events of an interval plus one read per "
        "changed cited article; re-reading costs one read per distinct cited article. From "
        f"a sweep of human saves per day × questions per day (`break_even.csv`, {seeds} seeds "
        "per point), the number of saves per check interval at which polling stops being "
        "cheaper, as the grid's points bracket it (they are a factor of 3–4 apart, so no "
        "value between two is claimed):\n\n"
        + _md(pd.DataFrame(rows))
        + "\n\nIn characters polling loses sooner than in calls, since every event in a page "
        "costs characters while a whole page is one call. Few held citations and busy editors "
        "favour re-reading; many citations and a quiet KB favour polling.\n\n"
        "![break-even of polling](break_even.png)"
    )


def _cost_finding(t: dict[str, pd.DataFrame]) -> str:
    """§ 2's finding: the hourly check's calls a day under the write-up's definition (every
    seed of the staleness run), and § 6's client's (the exposure runs) that the first page
    quotes, so the two pairs of numbers are read as one answer."""
    p = t["per_seed"]
    poll, reread = p["poll_method_calls"].mean(), p["reread_calls"].mean()
    text = (
        "**Polling the event log finds exactly what re-reading every cited article finds, for "
        f"{reread / poll:.1f} times fewer calls: {poll:,.0f} against {reread:,.0f} a day of "
        f"hourly checks ({int(p['poll_method_calls'].notna().sum())} seeds), every held "
        "citation checked at every check as the write-up does"
    )
    if "exposure" in t:
        ex = t["exposure"].set_index(["method", "interval_min"])
        c_poll, c_reread = ex.loc[("poll", 60.0)], ex.loc[("reread", 60.0)]
        text += (
            f"; a client that keeps its cursor (§ 6, the first page's figures) makes "
            f"{c_poll['calls_per_day']:,.0f} against {c_reread['calls_per_day']:,.0f}"
        )
    return text + ".**"


def break_even_finding(crossings: pd.DataFrame) -> str:
    """The break-even in calls and characters at the grid's fewest and most questions, as
    the grid brackets it."""
    lo, hi = crossings.iloc[0], crossings.iloc[-1]
    return (
        f"**Polling costs fewer calls than re-reading until the saves per hourly check reach "
        f"{_parity(lo, 'calls')} with {int(lo['n_questions'])} questions a day, and "
        f"{_parity(hi, 'calls')} with {int(hi['n_questions'])}; in characters it stops being "
        f"cheaper {_parity(lo, 'chars')} and {_parity(hi, 'chars')} (the break-even grid's "
        "points either side).**"
    )


def gate_finding(table: pd.DataFrame) -> str:
    g = table[(table["delay_s"] == "all") & (table["approval_median_s"] == 120.0)]
    a, b = (g[g["strategy"] == s].iloc[0] for s in ("approve_then_write", "reread_after_approval"))
    return (
        f"**With a recorded approval for every write, sending the citation's version once "
        f"approved succeeds on {_pct(a['succeeded_share'])} of edits, as re-reading after the "
        f"approval does ({_pct(b['succeeded_share'])}), for {a['agent_calls_per_edit']:.2f} "
        f"agent calls an edit against {b['agent_calls_per_edit']:.2f}.**"
    )


def exposure_finding(table: pd.DataFrame) -> str:
    at = table.set_index(["method", "interval_min"])
    p, r, push = at.loc[("poll", 60.0)], at.loc[("reread", 60.0)], at.loc[("push", 0.0)]
    return (
        f"**Checked hourly, a change to a cited article goes unnoticed "
        f"{p['mean_unnoticed_min']:.1f} min on average whether the agent re-reads "
        f"({r['calls_per_day']:,.0f} calls a day) or polls with the cursor kept "
        f"({p['calls_per_day']:,.0f}); push notices at once for "
        f"{push['messages_per_day']:,.0f} messages a day.**"
    )


def gate_text(base: Params, table: pd.DataFrame, conditions: pd.DataFrame, n_seeds: int) -> str:
    """The write gate section: setting, what the runs show, the pooled table, the
    conditions where the strategies may differ, the figure."""
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
        **{c: (lambda col: lambda d: d[col].map(_pct))(c) for c in shares},
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
        edits_differing=conditions["edits_differing_share"].map(_pct),
        succeeded=conditions["succeeded_share"].map(_pct),
        gave_up=conditions["gave_up_share"].map(_pct),
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
    n_cond = int(conditions["seeds"].iloc[0])
    return f"""The write-up closes by advising a recorded approval for every write call, never
widened to a session. Here the CAS day runs with that gate on (`write_gate`): each agent
write needs an approval of exactly its arguments, recorded in the KB and used up by the
write in the same transaction; a reviewer decides after a lognormal latency (shape
σ = {base.approval_sigma:g}) and declines {_pct(base.approval_decline_share)} of requests. Two
strategies: *approve then write* sends the citation's version once approved (a rejection
means re-read, re-apply and a new approval); *re-read after approval* re-reads first and,
when the article changed during the wait, re-applies the change, which is another call
and needs another approval. Each asks at most {base.max_edit_attempts} approvals per edit.
{n_seeds} seeds per latency, the delay ladder pooled (per-delay rows in `gate.csv`).

What a first write with the citation's version meets is counted at the first approval's
decision, for the edits whose first approval was granted (*first writes sent*; a declined
edit writes nothing), and split by cause from ground truth: a human's save on a still
published article, only the agent's own other edits, or an unpublished article. The
closed forms are the chance of a human save on a still-published article, and of an
unpublish, between the read and a write one delay and one approval latency later
(`theory.p_gated_write_meets`); there is none for the agent's own edits.

{recommendation(table, conditions)}

{_md(pooled)}

Where the two might differ, both run at the default median on seeds 1–{n_cond}
(`gate_conditions.csv`; `approval_reviewer` and `tool_latency_s` in Appendix E).
*edits differing*: the share of edits, matched by seed and answer, whose outcome,
approvals or waits differ between the strategies.

{_md(cond)}

![the write gate against CAS](gate.png)"""


def exposure_section(
    base: Params, t: dict[str, pd.DataFrame], seeds: dict[str, int], advice: str
) -> str:
    if "exposure" not in t:
        return ""
    return section_text(
        t["exposure"],
        t["exposure_crossings"],
        advice,
        seeds["exposure"],
        base.stop_checking_known_stale,
    )


def realshape_text(
    t: dict[str, pd.DataFrame], seeds: dict[str, int], setting: Setting | None
) -> str:
    if "realshape" not in t or setting is None:
        return ""
    return (
        "## Appendix C. On a real help centre's edits\n\n"
        + realshape_section.section_text(
            t["realshape"], t["realshape_moves"], seeds["realshape"], setting, t["realshape_paired"]
        )
        + "\n\n"
        + calibration_text(t)
    )


def render(
    base: Params,
    seeds: dict[str, int],
    t: dict[str, pd.DataFrame],
    advice: str = "",
    realshape_setting: Setting | None = None,
    first_page: str = "",
) -> str:
    """REPORT.md: the designer's page, the six chapters, then the appendices (the audit
    against the write-up, the open choices, the real shape, seed counts, assumptions)."""
    comparison, staleness, cost = t["comparison"], t["staleness"], t["check_cost"]
    cas = t["cas_by_delay"]
    pooled = staleness[staleness["seed"] == "pooled"].set_index("save_popularity")
    z, e = pooled.loc["zipf"], pooled.loc["even"]
    cost_rows = cost[cost["save_popularity"] == "zipf"].assign(
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
    cas_rows = cas.assign(
        delay=cas["delay_s"].map(lambda d: f"{d:g} s"),
        rejected=cas["rejected_seeds_1_5"].astype(str)
        + " of "
        + cas["edits_seeds_1_5"].astype(str),
        share_all_seeds=[
            f"{_pct(m)} ({_pct(lo)} – {_pct(hi)})"
            for m, lo, hi in zip(
                cas["rejected_share_all_seeds_mean"],
                cas["rejected_share_all_seeds_ci_lo"],
                cas["rejected_share_all_seeds_ci_hi"],
                strict=True,
            )
        ],
        human_save_all_seeds=cas["human_save_in_window_share_all_seeds"].map(_pct),
        closed_form_human_save=cas["human_save_in_window_theory"].map(_pct),
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
    docs = param_docs()
    params = "\n".join(f"- `{k}` = `{v}`: {docs.get(k, '')}" for k, v in base.as_dict().items())
    fixed = "\n".join(f"- {a}" for a in FIXED_ASSUMPTIONS)
    table, notes = audit_table(comparison)
    by_key = comparison.set_index("key")
    stale_all, title_all = by_key.loc["zipf_stale_share"], by_key.loc["title_caught_share"]
    poll, reread = (cost_rows.set_index("method").loc[m] for m in ("poll", "reread"))
    c1h = cas.set_index("delay_s")
    first, last = c1h.iloc[0], c1h.iloc[-1]
    h1 = c1h.loc[3600.0] if 3600.0 in c1h.index else c1h.iloc[len(c1h) // 2]
    own_1h = h1["rejected_by_agent_edit_seeds_1_5"] / max(1, h1["rejected_seeds_1_5"])
    return f"""# Stale citations, re-read versus poll, and CAS by delay

Generated by `make reproduce` from the per-seed rows in `seeds/`; do not edit by hand.
Seeds 1–5 are the write-up's setting; means and 95 % confidence intervals are over seeds
1–{seeds["staleness"]} for the staleness runs and 1–{seeds["cas"]} for the CAS runs.

{first_page}

## 1. How fast citations go stale

**{_pct(stale_all["mean"])} of citations are stale or gone by the day's end (seeds
1–{int(stale_all["seeds"])}; {_pct(z["stale_share"])} on the write-up's five), and a title-only
check catches {_pct(title_all["mean"])} of them.**

Seeds 1–5 pooled, at the end of the day. Zipf: {int(z["stale"]):,} of {int(z["citations"]):,}
citations stale or gone ({_pct(z["stale_share"])}): {int(z["stale_body"])} body edits,
{int(z["stale_title"])} title changes, {int(z["gone"])} unpublished;
{int(z["answers_with_stale"])} of {int(z["answers"])} answers
({_pct(z["answers_with_stale_share"])}) hold at least one. Even control:
{int(e["stale"]):,} of {int(e["citations"]):,} ({_pct(e["stale_share"])}); answers
{int(e["answers_with_stale"])} of {int(e["answers"])} ({_pct(e["answers_with_stale_share"])}).
The title-only check caught {int(z["title_caught"])} of {int(z["stale"])}
({_pct(z["title_caught_share"])}) on the Zipf day: {int(z["title_caught_title"])} title
changes, {int(z["title_caught_gone"])} unpublished, {int(z["title_caught_body"])} body edits;
it missed {int(z["title_missed_body"])} body edits. "Changed" is not "wrong": an edit may
touch a paragraph the answer did not use.

![stale share over the day](stale_over_day.png)

## 2. The cost of catching staleness

{_cost_finding(t)}

The write-up's five seeds pooled, Zipf day, {int(cost_rows["checks"].iloc[0])} hourly checks in
all: polling {int(poll["calls"]):,} calls against re-reading {int(reread["calls"]):,},
counted from the call log (`check_cost.csv`; the even control is there too). This is the
write-up's definition: every held citation checked at every check, the poll starting from
the oldest held citation's event sequence. § 6 costs the same day as a client would run it
(the poll's cursor kept between checks, known-stale articles no longer checked), which is
why its calls a day are fewer.
Characters are those a client
receives: each result's text plus its structured content, as the server's call log counts
them. Both id-based methods equalled the ground truth at every check.

{_md(cost_rows)}

![cost of the check methods](check_cost.png)

## 3. CAS edits with the citation's version, by delay

**Rejections climb from {_pct(first["rejected_share_all_seeds_mean"])} at
{first.name:g} s to {_pct(last["rejected_share_all_seeds_mean"])} at {last.name / 3600:g} h;
{_pct(own_1h)} of those at 1 h on seeds 1–5 are the agent's own other edits of the same
article, not a human's.**

Seeds 1–5 pooled per delay (the ladder is assigned round-robin by answer); the share
column is over all seeds with its 95 % CI. The last two columns are the share of edits
whose article a human saved or unpublished between the read and the edit, simulated
over all seeds and in closed form (`sim/theory.py`). The whole curve is in
`cas_curve.csv`. Only first-try successes are sent again (the write-up's 409 replays are
600 − 19 − 172); every replay returned the first result and appended nothing.

{_md(cas_rows)}

{cas_analysis_text(comparison, t.get("sensitivity"))}

![CAS rejection by delay](cas_by_delay.png)

## 4. When polling stops being cheaper

{break_even_finding(t["break_even_crossings"])}

{break_even_text(t["break_even_crossings"], seeds["break_even"])}

## 5. Waiting for approval

{gate_finding(t["gate"]) if "gate" in t else ""}

{gate_text(base, t["gate"], t["gate_conditions"], seeds["gate"]) if "gate" in t else ""}

## 6. How long staleness goes unnoticed

{exposure_finding(t["exposure"]) if "exposure" in t else ""}

{exposure_section(base, t, seeds, advice)}

{map_text(base, t) if "map_agreement" in t else ""}

## Appendix A. The write-up's figures against this model

A figure is *reproduced* when the write-up's value, or for a verbal figure the band its
wording allows, meets the central 95 % range that a five-seed run of this model reaches
(mean ± 1.96 · SD / √5). z is the distance from our mean to the write-up's figure (or to
the band) in five-seed standard errors, so a figure is reproduced exactly when
|z| ≤ 1.96; *borderline* marks 1.64 < |z| ≤ 1.96, and *undecided* an interval of our
mean that reaches across that threshold. *Readings* judges the figure alone, at the
headline's strength, under every reading of what the write-up leaves open that can move
it and on every delay ladder the text allows (Appendix B); the notes name them.

{table}

Notes:

{notes}

{multiple_testing_text(comparison)}

{control_outlier_text(comparison, t["sensitivity"]) if "sensitivity" in t else ""}

## Appendix B. Which open choices matter

{open_choices_text(t["sensitivity"]) if "sensitivity" in t else ""}

### The delay ladder

{ladder_text(t["sensitivity"], seeds["cas"]) if "sensitivity" in t else ""}

{realshape_text(t, seeds, realshape_setting)}

## Appendix D. How many seeds

Seeds needed for a ±1 percentage-point 95 % interval, from the per-seed spread of this
run (normal approximation), against the seeds used.

{seeds_needed_table(comparison)}

## Appendix E. Assumptions

Parameters (`sim/params.py`, defaults used here):

{params}

Fixed choices of the model:

{fixed}
"""
