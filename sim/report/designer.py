"""REPORT.md's first page: the three answers for a designer of KB tools, from the rows.

Each answer is a number with its 95 % interval over seeds, what moves it most (the open
choice of the write-up, and the real edit shape's feature, with the largest seed-paired
shift) and what to do. Every number is computed here from the per-seed rows and the
tables of the same run; nothing is typed in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sim.report import breakeven, picks
from sim.report.sensitivity import READING_WORDS
from sim.report.stats import Interval, interval, ratio_interval

WRITEUP_TITLE = (
    "How Claude can tell that a citation from the osFoundry knowledge base has gone "
    "stale, rebuilt in Python"
)
"""The write-up's title, in English (the original is a Korean blog post)."""
SERVER = "osFoundry MCP server"

HOUR_S = 3600.0
METHOD_WORDS = {
    "poll": "poll with the cursor kept",
    "push": "push",
    "reread": "re-read every cited article",
}
CHOICE_LABELS = READING_WORDS
"""Plain words for the readings that top a headline figure (others print as `choice = v`)."""


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _pct_ci(i: Interval) -> str:
    return f"{_pct(i.mean)} ({_pct(i.lo)} – {_pct(i.hi)})"


def _num_ci(i: Interval, digits: int = 0) -> str:
    return f"{i.mean:,.{digits}f} ({i.lo:,.{digits}f} – {i.hi:,.{digits}f})"


def _pt(x: float) -> str:
    return f"{100 * x:+.1f}"


def _calls(x: float) -> str:
    return f"{x:+.1f}"


def _comparison_interval(comparison: pd.DataFrame, key: str) -> Interval:
    r = comparison.set_index("key").loc[key]
    return Interval(r["mean"], r["ci_lo"], r["ci_hi"], r["sd"], int(r["seeds"]))


PAGE_READINGS = ("zipf_stale_share", "cas_reject_share_3600s")
"""The figures this page names a reading's move for: one family for Holm's correction."""
PAGE_PANEL = ("stale_share", "poll_calls", "cas_reject_3600s")
"""The figures this page names a real log's move for: one family for Holm's correction."""


def reading_family(sensitivity: pd.DataFrame) -> pd.DataFrame:
    """Every reading × figure cell this page picks a largest move from, with Holm's adjusted
    p over them all (the delay ladders are Appendix B's, not picked from here)."""
    s = sensitivity[
        sensitivity["figure"].isin(PAGE_READINGS)
        & (sensitivity["choice"] != "default")
        & (sensitivity["choice"] != "edit_delays_s")
        & sensitivity["can_move"].astype(bool)
        & sensitivity["shift_from_default"].notna()
    ]
    return picks.with_holm(s, "shift_p")


def top_reading(sensitivity: pd.DataFrame, figure: str) -> dict[str, Any]:
    """The reading of an open choice that shifts a figure most among those Holm's correction
    over the page's family keeps, with its paired CI (``label`` None where none is kept)."""
    family = reading_family(sensitivity)
    named = picks.ranked(family[family["figure"] == figure], "shift_from_default")
    if named.empty:
        cells = family[family["figure"] == figure]
        return {"label": None, "none": picks.none_named(family, cells, "reading of an open choice")}
    r = named.iloc[0]
    label = f"{r['choice']} = {r['reading']}"
    return {
        "label": label,
        "choice": r["choice"],
        "reading": str(r["reading"]),
        "words": CHOICE_LABELS.get(label, f"`{label}`"),
        "shift": r["shift_from_default"],
        "lo": r["shift_ci_lo"],
        "hi": r["shift_ci_hi"],
        "seeds": int(r["shift_seeds"]),
        "p_holm": r["p_holm"],
        "family": len(family),
    }


def _move(row: pd.Series) -> dict[str, Any]:
    from sim.report.realshape_section import LABELS

    return {
        "log": row.get("log"),
        "arm": LABELS.get(row["arm"], row["arm"]),
        "reference": LABELS.get(row["reference"], row["reference"]),
        "diff": row["diff_mean"],
        "lo": row["diff_ci_lo"],
        "hi": row["diff_ci_hi"],
        "seeds": int(row["diff_seeds"]),
        "p_holm": row["p_holm"],
    }


def panel_family(realshape: pd.DataFrame) -> pd.DataFrame:
    """Every panel move this page picks a largest from (on each log, each arm of one measured
    feature and each arm of an assumed question relation, on each of PAGE_PANEL's figures),
    with Holm's adjusted p over them all."""
    from sim.report.realshape import ABLATION, BRACKETS
    from sim.report.realshape_seeds import BY_NAME

    r = realshape[realshape["figure"].isin(PAGE_PANEL) & realshape["diff_mean"].notna()]
    feature = r["arm"].isin(ABLATION + BRACKETS)
    assumed = r["arm"].map(lambda a: BY_NAME[a].relation != "same")
    return picks.with_holm(r[feature | assumed].assign(assumed=assumed), "diff_p")


def top_real_move(realshape: pd.DataFrame | None, figure: str) -> dict[str, Any] | None:
    """The whole real shape's move of a figure on each log, and the arms that move it most
    against their reference arms among those Holm's correction over the page's family keeps:
    among the arms that switch on one feature of the edits a log measures (the ablation's
    and the brackets'), the top and the next (to say when the two are within noise); apart,
    among those that change how questions relate to edits (an assumption no edit log
    measures)."""
    if realshape is None or "diff_mean" not in realshape:
        return None
    family = panel_family(realshape)
    mine = family[family["figure"] == figure]
    if mine.empty:
        return None
    features, assumptions = mine[~mine["assumed"]], mine[mine["assumed"]]

    def named(cells: pd.DataFrame) -> list[dict[str, Any]]:
        return [_move(r) for _, r in picks.ranked(cells, "diff_mean").iterrows()]

    return {
        "feature": named(features)[:2],
        "assumption": next(iter(named(assumptions)), None),
        "calibrated": realshape[
            (realshape["figure"] == figure) & (realshape["arm"] == "calibrated")
        ],
        "family": family,
        "features": features,
        "assumptions": assumptions,
    }


def _reading(m: dict[str, Any] | None, unit: str = "points", at: str = "") -> str:
    """The reading that moves a figure most, or why none is named."""
    if m is None:
        return "of the settings the write-up leaves open, none was run"
    if m["label"] is None:
        return f"{m['none']}"
    return (
        f"of the settings the write-up leaves open, reading it as *{m['words']}* instead: "
        f"{_pt(m['shift'])} {unit} ({_pt(m['lo'])} – {_pt(m['hi'])}, {m['seeds']} paired "
        f"seeds){at} (Holm-adjusted p {picks.p_text(m['p_holm'])} over the {m['family']} "
        "reading × figure moves this page picks from)"
    )


def _arm_move(m: dict[str, Any], fmt: Any, unit: str) -> str:
    where = ""
    if isinstance(m.get("log"), str):  # Appendix C tabulates each arm on the shared log only
        from sim.report.realshape import SHARED_LOG

        where = f" on {m['log']}'s log" + ("" if m["log"] == SHARED_LOG else " (`realshape.csv`)")
    return (
        f"*{m['arm']}* against *{m['reference']}*{where}, {fmt(m['diff'])} {unit} "
        f"({fmt(m['lo'])} – {fmt(m['hi'])}, {m['seeds']} seeds; Holm-adjusted p "
        f"{picks.p_text(m['p_holm'])})"
    )


def _real(m: dict[str, Any] | None, what: str, fmt: Any = _pt, unit: str = "points") -> str:
    """The whole real shape's move of a figure on each log, the arm of one measured feature
    that moves it most (and the next, when within noise), and apart the arm of an assumed
    question relation that does."""
    if m is None:
        return ""
    whole = ", ".join(
        f"{fmt(c['diff_mean'])} ({fmt(c['diff_ci_lo'])} – {fmt(c['diff_ci_hi'])})"
        + (f" on {c['log']}'s log" if "log" in c else "")
        for _, c in m["calibrated"].iterrows()
    )
    parts = []
    if whole:
        parts.append(
            f"the whole real shape moves {what}, in {unit}, by {whole} against the write-up's"
            " process"
        )
    feature, assumed = (m["feature"] or [None])[0], m["assumption"]
    n = len(m["family"])
    if feature is not None:
        top = (
            f"of the logs' single features, the largest move that Holm's correction over the "
            f"{n} panel moves this page picks from keeps is {_arm_move(feature, fmt, unit)}"
        )
        if len(m["feature"]) > 1:
            nxt = m["feature"][1]
            if abs(nxt["diff"]) >= min(abs(feature["lo"]), abs(feature["hi"])):
                top += f", within noise of {_arm_move(nxt, fmt, unit)}"
        parts.append(top)
    else:
        parts.append(picks.none_named(m["family"], m["features"], "single feature of the logs"))
    if assumed is not None:
        than = (
            ""
            if feature is None
            else (" more" if abs(assumed["diff"]) > abs(feature["diff"]) else " less")
        )
        parts.append(
            "an assumption no edit log measures, how questions relate to edits, moves it"
            f"{than}: {_arm_move(assumed, fmt, unit)}"
        )
    else:
        parts.append(picks.none_named(m["family"], m["assumptions"], "question relation"))
    return f"On the real logs (Appendix C) {'; '.join(parts)}." if parts else ""


def _changed_within(cas_edits: pd.DataFrame) -> dict[float, Interval]:
    """Per delay: the share of cited articles a human saved or unpublished between the read
    and that delay later, over seeds (the CAS run's edits measure it from ground truth)."""
    e = cas_edits[cas_edits["experiment"] == "cas"]
    return {
        d: interval((g["human_save_in_window"] / g["edits"]).to_numpy())
        for d, g in e.groupby("delay_s")
    }


def _mean_interval(values: pd.Series) -> Interval:
    """Mean over a few seeds, with Student's t quantile."""
    v = values.to_numpy(dtype=float)
    return ratio_interval(v, np.ones_like(v))


def _exposure_at(rows: pd.DataFrame, method: str, interval_s: float) -> dict[str, Interval]:
    r = rows[(rows["method"] == method) & (rows["interval_s"] == interval_s)]
    return {
        "calls": _mean_interval(r["calls"]),
        "messages": _mean_interval(r["calls"] + r["notifications"]),
        "unnoticed_min": ratio_interval(r["unnoticed_s"].to_numpy() / 60, r["changed"].to_numpy()),
    }


def _margin(ex: pd.DataFrame, choice: Any, target_min: float) -> str:
    """Whether the advised pick meets its target with margin in simulation (its interval's
    upper end below the target) and, when not, the longest interval that does."""
    if choice["interval_min"] <= 0:
        return ""
    at = _exposure_at(ex, choice["method"], 60 * choice["interval_min"])["unnoticed_min"]
    if at.hi <= target_min:
        return f"; its 95 % interval, {at.lo:.1f} – {at.hi:.1f} min, stays under the target"
    text = (
        f". Its 95 % interval, {at.lo:.1f} – {at.hi:.1f} min, reaches across the target: "
        "the pick meets it on average, not with margin"
    )
    shorter = sorted(
        {s for s in ex.loc[ex["method"] == choice["method"], "interval_s"] if s > 0}, reverse=True
    )
    for s in shorter:
        i = _exposure_at(ex, choice["method"], s)["unnoticed_min"]
        if i.hi <= target_min:
            calls = _exposure_at(ex, choice["method"], s)["calls"]
            return (
                text + f"; every {s / 60:g} min meets it with margin ({i.mean:.1f} min, "
                f"{i.lo:.1f} – {i.hi:.1f}) at {calls.mean:,.0f} calls a day"
            )
    return text


def _panel_words(realshape: pd.DataFrame | None) -> str:
    """The real logs the first page's real-shape moves come from, in words."""
    from sim.report.realshape import SHARED_LOG

    if realshape is None or "log" not in realshape:
        return "a real help centre's log"
    logs = list(dict.fromkeys(realshape["log"]))
    return (
        f"{len(logs)} real help centres' logs ({', '.join(logs)}; the first, {SHARED_LOG}'s, is "
        "the one every arm is tabulated on): *calibrated shape* is the process fitted to a "
        "log, *calibrated, every feature off* keeps only its volume, *+ real X* switches one "
        "feature on; by default questions follow the edits' popularity ranking"
    )


def _human_part(sens: pd.DataFrame | None, read: dict[str, Any] | None) -> str:
    """How much of a reading's move at 1 h is in rejections by humans' saves."""
    if sens is None or read is None or read["label"] is None:
        return ""
    r = sens[
        (sens["choice"] == read["choice"])
        & (sens["reading"].astype(str) == read["reading"])
        & (sens["figure"] == "cas_human_reject_share_3600s")
    ]
    if r.empty or not bool(r["can_move"].iloc[0]):
        return ""
    h = r.iloc[0]
    return (
        f", of which {_pt(h['shift_from_default'])} ({_pt(h['shift_ci_lo'])} – "
        f"{_pt(h['shift_ci_hi'])}) in rejections by humans' newer saves"
    )


def _delay(d: float) -> str:
    return f"{d:g} s" if d < 60 else f"{d / 60:g} min" if d < HOUR_S else f"{d / HOUR_S:g} h"


def page(
    t: dict[str, pd.DataFrame],
    rows: dict[str, pd.DataFrame],
    advice: dict[str, Any] | None,
    target_min: float,
) -> str:
    """The first page of REPORT.md."""
    comparison, sens = t["comparison"], t.get("sensitivity")
    realshape = t.get("realshape")
    stale = _comparison_interval(comparison, "zipf_stale_share")
    answers = _comparison_interval(comparison, "zipf_answers_with_stale_share")
    title = _comparison_interval(comparison, "title_caught_share")
    within = _changed_within(rows["cas_edits"])
    st_read = top_reading(sens, "zipf_stale_share") if sens is not None else None
    st_real = top_real_move(realshape, "stale_share")

    ex = rows["exposure"]
    n_ex = ex["seed"].nunique()
    reread = _exposure_at(ex, "reread", HOUR_S)
    poll = _exposure_at(ex, "poll", HOUR_S)
    push = _exposure_at(ex, "push", 0.0)
    title_calls = _exposure_at(ex, "title_only", HOUR_S)["calls"]
    title_never = ratio_interval(
        ex.loc[ex["method"] == "title_only", "never"].to_numpy(),
        ex.loc[ex["method"] == "title_only", "changed"].to_numpy(),
    )
    crossing = t["break_even_crossings"].set_index("n_questions")
    q = int(crossing.index[len(crossing) // 2])
    saves_even = breakeven.bracket(
        crossing.loc[q, "calls_parity_above"], crossing.loc[q, "calls_parity_at_most"]
    )
    grid_seeds = int(t["break_even"]["seeds"].min())
    poll_real = top_real_move(realshape, "poll_calls")

    h = _comparison_interval(comparison, "cas_reject_share_3600s")
    human = _comparison_interval(comparison, "cas_human_reject_share_3600s")
    head = rows["cas_headline"]
    own_share = (head["cas_reject_share_3600s"] - head["cas_human_reject_share_3600s"]).to_numpy()
    own = interval(own_share)
    own_of = ratio_interval(own_share, head["cas_reject_share_3600s"].to_numpy())
    cas = t["cas_by_delay"].set_index("delay_s")
    curve = ", ".join(
        f"{_pct(r['rejected_share_all_seeds_mean'])} at {_delay(d)}" for d, r in cas.iterrows()
    )
    cas_read = top_reading(sens, "cas_reject_share_3600s") if sens is not None else None
    cas_real = top_real_move(realshape, "cas_reject_3600s")
    fast = min(within)
    ten = 600.0 if 600.0 in within else fast

    if advice is not None and advice.get("choice") is not None:
        c = advice["choice"]
        every = f"every {c['interval_min']:g} min" if c["interval_min"] > 0 else "on every change"
        method = METHOD_WORDS.get(c["method"], c["method"])
        pick = (
            f"`python -m sim advise` picks **{method} "
            f"{every}** for the write-up's day and a {target_min:g}-minute target; in "
            f"simulation ({advice['seeds']} seeds) that leaves a change unnoticed "
            f"{c['sim_mean_unnoticed_min']:.1f} min on average at {c['sim_calls']:,.0f} calls "
            "a day (§ 6)" + _margin(ex, c, target_min)
        )
    else:
        pick = "`python -m sim advise` picks the interval for your rates (§ 6)"

    n_cas = int(cas["seeds"].iloc[0])
    return f"""## The answers on one page

An AI assistant answers from a knowledge base (KB) it reaches over MCP through four tools
(search, read, edit, poll the event log), mirrored from the public `tools/list` of the
{SERVER}, and cites each article as `{{knowledge_base_id, article_id, updated_at}}`;
`updated_at` is also the version a compare-and-swap (CAS) edit must send. The setting is
that of a Korean blog post that rebuilt those tools in Python, *{WRITEUP_TITLE}* (here
"the write-up"): 400 articles, 300 human saves and 120 questions (two citations each) in
an 8-hour day, article popularity Zipf(0.9). Every number below is a mean over seeds with
its 95 % interval, computed by `make reproduce` from the per-seed rows in `seeds/`; a
*stale* citation's article was saved after the read, a *gone* one's unpublished; moves are
in percentage points. Each answer then says what moves it most: a setting the write-up
leaves open (Appendix B: each run instead of this page's default, seed by seed), and the
day's saves drawn from edit processes fitted to {_panel_words(realshape)} (Appendix C).

### How fast do citations go stale?

**{_pct_ci(stale)} of citations are stale or gone by the day's end** ({stale.n} seeds);
{_pct_ci(answers)} of answers hold at least one. A cited article is changed or unpublished
by a human within {_delay(ten)} of the read in {_pct_ci(within[ten])}, within 1 h in
{_pct_ci(within[HOUR_S])}, within 4 h in {_pct_ci(within[4 * HOUR_S])} ({n_cas} seeds).

- *What moves it most:* {_reading(st_read)}.
  {_real(st_real, "the day-end share")}
- *What to do:* cite the version (`updated_at`) with every citation: a re-read compares it
  and a CAS edit sends it. A check that has only the title is not enough: by title alone
  it catches only {_pct_ci(title)} of the citations stale at the day's end ({title.n}
  seeds), never a body edit. The poll needs no version: it finds changes from the event
  log's sequence, past the cursor it keeps.

### What does catching it cost: re-read, poll or push?

**Checking once an hour, re-reading every cited article costs {_num_ci(reread["calls"])}
calls a day; polling the event log with the cursor kept costs {_num_ci(poll["calls"])}**
({n_ex} seeds). Re-read and poll each notice every change at the same check, on average
{_num_ci(poll["unnoticed_min"], 1)} min after it. Push (MCP resource subscriptions)
notices each change as it is committed, for {_num_ci(push["messages"])} messages a day
(notifications and the reads they prompt). The title-only check (a search per cited
title) never notices {_pct_ci(title_never)} of the changes to cited articles in these
{n_ex} seeds (every body edit keeps its title), and hourly it costs {_num_ci(title_calls)}
calls a day, {"more" if title_calls.mean > reread["calls"].mean else "fewer"} than
re-reading.

- *What moves it most:* the saves per check interval against the citations held: on the
  break-even grid's day of {q} questions (§ 4; this page's day has 120), polling costs as
  many calls as re-reading only once the saves per hourly check reach {saves_even} (the
  grid's points either side, {grid_seeds} seeds each). The open settings of the write-up
  were not run with the checker, so this page does not rank them against it.
  {_real(poll_real, "the hourly poll's cost", _calls, "calls a day")}
- *What to do:* poll with the cursor kept, or push where the host implements MCP resource
  subscriptions (`resources/subscribe`), at the interval the advisor picks for your rates:
  {pick}.

### How often is a CAS edit rejected, by delay?

**An edit sent with the citation's version 1 h after the read is rejected in
{_pct_ci(h)}** ({h.n} seeds); the curve runs {curve}. Of all edits sent at 1 h,
{_pct_ci(human)} meet a human's newer save and {_pct_ci(own)} meet only the agent's own
other delayed edits of the same article: together, those rejected.

- *What moves it most:* {_reading(cas_read, at=" at 1 h" + _human_part(sens, cas_read))}.
  {_real(cas_real, "the rejections at 1 h")}
- *What to do:* re-read right before an edit and send that version, not the citation's:
  at {_delay(fast)} a rejection is {_pct(cas.iloc[0]["rejected_share_all_seeds_mean"])}.
  Serialise the agent's own edits of one article: {100 * own_of.mean:.0f} %
  ({100 * own_of.lo:.0f} – {100 * own_of.hi:.0f} %) of the rejections at 1 h meet only the
  agent's own other delayed edits of the same article.

The rest of the report: §§ 1–6 give each answer in full; Appendix A audits every figure
of the write-up against this model (verdicts; z, our mean's distance from the write-up's
figure in five-seed standard errors; Holm's correction across figures; the readings of what
the write-up leaves open; delay ladders); B the open choices; C a real help centre's edits;
D seed counts; E the assumptions."""
