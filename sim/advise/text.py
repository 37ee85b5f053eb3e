"""What `advise --edit-log` and `advise --db` say of the days run to a precision
(``sim.advise.sampled``): each figure with its days and interval, what more days would
take, and how two processes' choices differ, by how much and whether beyond noise. Some
310 lines: each line's wording and its interval rule are kept together."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from sim.advise import LABELS, Costs
from sim.advise.agent import Agent
from sim.advise.sampled import (
    MIN_DAYS_CHANGED,
    Precision,
    Sample,
    choice,
    day_costs,
    more_days,
    options,
)
from sim.params import Params
from sim.server.reads import count
from sim.stats import Interval, mean_interval


def what(c: pd.Series) -> str:
    when = "on every change" if c["method"] == "push" else f"every {c['interval_min']:g} min"
    return f"{LABELS[c['method']]}, {when}"


def days_line(table: pd.DataFrame) -> str:
    """What the simulated days so far are, where they made no pick of their own."""
    days = int(table["days"].max()) if len(table) else 0
    changed = int(table["changed"].max()) if len(table) else 0
    what_days = f"{count(days, 'day')}, {count(changed, 'changed cited article')}"
    if changed == 0:
        return f"The simulated days so far ({what_days}): no cited article changed."
    return (
        f"The simulated days so far ({what_days}): too few for a pick of their own (an "
        f"interval needs {MIN_DAYS_CHANGED} days with a change)."
    )


def option_line(label: str, table: pd.DataFrame, target_min: float) -> str:
    c = choice(table, target_min)
    days = int(table["days"].max()) if len(table) else 0
    changed = int(table["changed"].max()) if len(table) else 0
    head = f"{label} ({count(days, 'day')}, {count(changed, 'changed cited article')}"
    cost_days = int((table if c is None else c)["cost_days"].min()) if len(table) else 0
    head += ")" if cost_days == days else f"; its cost over the first {count(cost_days, 'day')})"
    if changed == 0:
        return f"{head}: no cited article changed, so no unnoticed time was measured."
    if c is None:
        return f"{head}: no option is known to meet the target."
    periodic = table[table["method"] != "push"]
    if c["method"] == "push" and periodic["unnoticed_hi"].isna().all():
        best = periodic.loc[periodic["cost"].idxmin()] if len(periodic) else None
        guess = (
            ""
            if best is None or math.isnan(best["unnoticed_min"])
            else f" (so far the cheapest periodic option, {what(best)}, leaves a change "
            f"unnoticed {best['unnoticed_min']:.1f} min)"
        )
        return (
            f"{head}: push, as no periodic option has an interval yet (too few days with a "
            f"change){guess}; run more days (--max-days)."
        )
    unnoticed = (
        "0 min (noticed as it happens)"
        if c["method"] == "push"
        else f"{ci(c['unnoticed_min'], c['unnoticed_lo'], c['unnoticed_hi'], '.1f')} min"
    )
    return (
        f"{head}: {what(c)}; a change unnoticed {unnoticed} on average; cost "
        f"{ci(c['cost'], c['cost_lo'], c['cost_hi'], ',.0f')} a day."
    )


def periodic_line(table: pd.DataFrame) -> str:
    """Every interval of the poll (cursor kept), each with its interval: what the choice
    was made among (re-read notices at the same checks and costs more; JSON has all)."""
    poll = table[table["method"] == "poll"].sort_values("interval_min")
    if poll.empty or poll["changed"].max() == 0:
        return ""
    parts = [
        f"{r['interval_min']:g} min: "
        f"{_brief(r['unnoticed_min'], r['unnoticed_lo'], r['unnoticed_hi'])} min, "
        f"cost {r['cost']:,.0f}"
        for _, r in poll.iterrows()
    ]
    return (
        "  Poll (cursor kept), unnoticed (95 % CI) and cost a day by interval: "
        + "; ".join(parts)
        + "."
    )


def _brief(mean: float, lo: float, hi: float) -> str:
    if math.isnan(lo) or lo == hi:
        return f"{mean:.1f} (not enough days)"
    return f"{mean:.1f} ({max(0.0, lo):.1f}–{hi:.1f})"


def ci(mean: float, lo: float, hi: float, fmt: str, days: int | None = None) -> str:
    """A figure and its 95 % interval; none where the days give none (NaN: `days` of them
    where known) or one of no width (every day alike: too few days to show a spread); its
    half-width where the interval is narrower than the digits shown."""
    if math.isnan(lo) and days is not None:
        return f"{mean:{fmt}} (not enough days for an interval: {days} of {MIN_DAYS_CHANGED})"
    if math.isnan(lo) or lo == hi:
        return f"{mean:{fmt}} (not enough days for an interval)"
    if f"{lo:{fmt}}" == f"{hi:{fmt}}":  # narrower than the digits shown
        return f"{mean:{fmt}} (95 % CI ±{(hi - lo) / 2:.2g})"
    return f"{mean:{fmt}} (95 % CI {lo:{fmt}} to {hi:{fmt}})"


def needed_lines(
    samples: dict[str, Sample],
    want: Precision,
    target_min: float | None = None,
    costs: Costs | None = None,
) -> list[str]:
    """For a process short of the precision: the days its rate of changes says it needs
    (and, given the target, the days the chosen option's half-width needs by the
    square-root law)."""
    out = []
    for name, s in samples.items():
        r = s.exposure
        changed = r[r["method"] == "push"].groupby("seed")["changed"].sum()  # equal per method
        days, total = s.days, float(changed.sum())
        with_change = int((changed > 0).sum())
        if total >= want.min_changed and with_change >= MIN_DAYS_CHANGED:
            more = 0
            if target_min is not None and costs is not None:
                more = more_days(options(s, costs), target_min, want, days)
            if more > 0:
                out.append(
                    f"The {name} process: its choice's interval is wider than the "
                    f"±{want.half_width_min:g} min asked for; about {days + more} days would "
                    f"narrow it so (the square-root law; --max-days)."
                )
            continue
        if total == 0:
            out.append(
                f"The {name} process: no cited article changed in {count(days, 'day')}; many "
                "more days "
                "are needed (--max-days), or advise on more saves a day."
            )
            continue
        need = max(
            math.ceil(want.min_changed * days / total),
            math.ceil(MIN_DAYS_CHANGED * days / max(with_change, 1)),
        )
        out.append(
            f"The {name} process: {count(int(total), 'changed cited article')} on "
            f"{with_change} of {count(days, 'day')}; an interval of its own needs "
            f"{want.min_changed} changed cited articles on {MIN_DAYS_CHANGED} days with a "
            f"change, roughly {need} days at this rate (an estimate from "
            f"{count(with_change, 'day')} with a change: a quiet KB may need more; "
            f"--max-days {need})."
        )
    return out


def paired_cost_difference(
    sample: Sample, costs: Costs, a: pd.Series, b: pd.Series
) -> Interval | None:
    """Cost a day of option b minus option a on the same days of one process."""
    r = day_costs(sample.costed, costs)

    def of(o: pd.Series) -> pd.Series:
        at = r[(r["method"] == o["method"]) & (r["interval_s"] == o["interval_min"] * 60)]
        return at.set_index("seed")["cost"]

    joined = pd.concat([of(a), of(b)], axis=1, join="inner")
    if joined.empty:
        return None
    return mean_interval((joined.iloc[:, 1] - joined.iloc[:, 0]).to_numpy())


def comparison_lines(
    samples: dict[str, Sample], costs: Costs, target_min: float, main: str, other: str
) -> list[str]:
    """How the `other` process's choice fares on the `main` process, by how much the two
    choices differ and whether beyond noise."""
    tables = {n: options(s, costs) for n, s in samples.items()}
    for name, t in tables.items():
        if t[t["method"] != "push"]["unnoticed_hi"].isna().all():
            return [
                f"The two choices cannot be compared yet: too few days with a change on the "
                f"{name} process for an interval."
            ]
    a, b = choice(tables[main], target_min), choice(tables[other], target_min)
    if a is None or b is None:
        return ["The two choices cannot be compared: one process has no choice."]
    if a["method"] == b["method"] and (
        a["method"] == "push" or a["interval_min"] == b["interval_min"]
    ):
        return ["The two processes lead to the same choice."]
    t = tables[main]
    at = t[(t["method"] == b["method"]) & (t["interval_min"] == b["interval_min"])].iloc[0]
    diff = paired_cost_difference(samples[main], costs, a, b)
    lines = [f"The choices differ: {what(a)} ({main}) against {what(b)} ({other})."]
    if b["method"] != "push":
        verdict = (
            "misses the target beyond noise"
            if at["unnoticed_lo"] > target_min
            else "meets the target beyond noise"
            if at["unnoticed_hi"] <= target_min
            else "is within noise of the target"
        )
        lines.append(
            f"On the {main} process the {other} choice leaves a change unnoticed "
            f"{ci(at['unnoticed_min'], at['unnoticed_lo'], at['unnoticed_hi'], '.1f')} min "
            f"(target {target_min:g}): it {verdict}."
        )
    if diff is not None and not math.isnan(diff.lo):
        beyond = "beyond noise" if diff.lo > 0 or diff.hi < 0 else "within noise"
        lines.append(
            f"Its cost a day minus the {main} choice's, on the same {diff.n} days: "
            f"{ci(diff.mean, diff.lo, diff.hi, ',.0f')} ({beyond}; below 0, it is cheaper)."
        )
    return lines


def assumptions(
    params: Params,
    costs: Costs,
    target: float,
    want: Precision,
    saves: str,
    agent: Agent,
) -> list[str]:
    """Every assumption the advice rests on, each with the flag that changes it."""
    if params.corpus_queries:
        asked = (
            f"the lines of {Path(params.corpus_queries).name} whose best search hit the article "
            "is, in turn (an article no line hits: its title and headings); the log's "
            "frequencies do not weight the draw"
        )
    else:
        asked = "its title and then each of its headings, in turn (a title finds its article)"
    return [
        "Assumptions (the flag that changes each):",
        f"  day: {params.day_s / 3600:g} working hours (--day-hours)",
        f"  human saves: {saves} (--saves-per-day; --edit-log, --edit-shape)",
        f"  questions: {params.n_questions:,} a day (--questions-per-day), each about an "
        f"article drawn by popularity, Zipf s = {params.zipf_s:g} over the articles "
        f"(--zipf), asked as {asked} (--queries FILE)",
        agent.described(params.max_edit_attempts),
        f"  costs: a call or notification {costs.per_call:g}, 1,000 characters of results "
        f"{costs.per_1k_chars:g} (--cost-per-call, --cost-per-1k-chars); tokens at "
        f"{costs.chars_per_token:g} characters a token (--chars-per-token)",
        f"  target: a change to a cited article unnoticed {target:g} min or less on average "
        f"(--max-unnoticed-min); days run until the pick's interval is ±{want.half_width_min:g} "
        f"min and {want.min_changed:,} cited articles changed, at most {want.max_days:,} days "
        "(--half-width, --min-changed, --max-days); counted in days, not seconds, so the pick "
        "is the same on any machine",
    ]


def options_table(table: pd.DataFrame, pick: pd.Series | None, exact: bool = False) -> list[str]:
    """Every option (method × interval) with its calls, characters, tokens, unnoticed time
    and cost a day, the pick marked; `exact`: closed forms' figures, with no interval."""
    cols = [
        "method",
        "every",
        "calls/day",
        "notif./day",
        "chars/day",
        "tokens/day",
        "unnoticed min" if exact else "unnoticed min (95 % CI)",
        "cost/day",
        "",
    ]
    rows = [cols]
    for _, r in table.sort_values(["method", "interval_min"]).iterrows():
        picked = (
            pick is not None
            and r["method"] == pick["method"]
            and r["interval_min"] == pick["interval_min"]
        )
        unnoticed = (
            "0 (at once)"
            if r["method"] == "push"
            else "not measured"
            if math.isnan(r["unnoticed_min"])
            else f"{r['unnoticed_min']:.1f}"
            if exact
            else _brief(r["unnoticed_min"], r["unnoticed_lo"], r["unnoticed_hi"])
        )
        rows.append(
            [
                LABELS[r["method"]],
                "change" if r["method"] == "push" else f"{r['interval_min']:g} min",
                f"{r['calls']:,.1f}",
                f"{r['notifications']:,.1f}",
                f"{r['chars']:,.0f}",
                f"{r['tokens']:,.0f}",
                unnoticed,
                f"{r['cost']:,.1f}",
                "<- pick" if picked else "",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
