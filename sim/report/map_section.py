"""REPORT.md's § 7, the map: each answer as a function of what decides it, the closed form's
agreement with the simulated grid, and the real help centres measured from their own rows.
The map's tables (`sim/studymap/`) give every number; this module picks the ones the
sentences quote and lays out the section's tables; the words are in
templates/map_section.md.j2."""

from __future__ import annotations

import math

import pandas as pd

from sim.pages import md
from sim.params import HOUR_S, Params
from sim.report import atlas
from sim.report.render import render
from sim.studymap.bias import explained, form_gap, read_order_span
from sim.studymap.figures import age_label, pct
from sim.studymap.forms import DAY_S
from sim.studymap.report import writeup_rate
from sim.studymap.tables import (
    AGENT_FACTOR,
    MARGIN_FLOOR,
    MARGINS,
    POWER,
    RATIO_TOLERANCE,
    Z_TOLERANCE,
    stale_at,
)

TABLE_RATES = (0.001, 0.01, 0.1, 1.0, 10.0)
"""Intensities shown in the section's stale table (beside the write-up's and the logs')."""


def stale_table(stale: pd.DataFrame, rate: float, log_rates: dict[str, float]) -> str:
    """Ages × intensities (questions on the edits' ranking; independent in brackets)."""
    rates = {f"{r:g}": r for r in TABLE_RATES if r in set(stale["edits_per_article_day"])}
    rates[f"write-up {rate:.3g}"] = rate
    rates |= {f"{name} {r:.2g}": r for name, r in log_rates.items()}
    order = sorted(rates.items(), key=lambda kv: kv[1])
    rows = []
    for age in sorted(stale["age_s"].unique()):
        row = {"citation age": age_label(age)}
        for label, r in order:
            same, independent = (stale_at(stale, x, r, age) for x in ("same", "independent"))
            row[label] = f"{pct(same)} ({pct(independent)})"
        rows.append(row)
    return md(pd.DataFrame(rows))


def break_even_settings_table(settings: pd.DataFrame) -> str:
    """Saves per check at the break-even: questions a day × events a poll call and spread."""
    cells = settings.assign(
        setting=[
            ("one call a check" if p == 0 else f"{p:,.0f} events a call")
            + (", even saves" if sp == "even" else ", Zipf saves")
            for sp, p in zip(settings["save_popularity"], settings["poll_page_events"], strict=True)
        ],
        at=[
            f"{x:,.0f}" if math.isfinite(x) else "past the map"
            for x in settings["saves_per_check_at_break_even"]
        ],
    )
    wide = cells.pivot_table(
        index=["n_questions", "citations_held"],
        columns="setting",
        values="at",
        aggfunc="first",
        sort=False,
    )
    wide = wide[list(dict.fromkeys(cells["setting"]))].reset_index()
    wide.insert(
        0,
        "questions a day (articles held)",
        [
            f"{q:g} ({h:.0f})"
            for q, h in zip(wide["n_questions"], wide["citations_held"], strict=True)
        ],
    )
    return md(wide.drop(columns=["n_questions", "citations_held"]))


def _even_lower(settings: pd.DataFrame) -> str:
    """At how many of the settings' points even saves give a lower break-even than Zipf's."""
    at = settings.pivot_table(
        index=["poll_page_events", "n_questions"],
        columns="save_popularity",
        values="saves_per_check_at_break_even",
    )
    lower = int((at["even"] < at["zipf"]).sum())
    return f"{lower} of the {len(at)} points" if lower < len(at) else f"all {len(at)} points"


def agreement_table(a: pd.DataFrame) -> str:
    def delay(d: float) -> str:
        return "day's end" if math.isnan(d) else age_label(d)

    # a share lies in [0, 1], a ratio of calls above 0: the interval shown is clipped there
    # (at a point where no seed saw an event, the SE is the form's binomial one, symmetric)
    tops = [math.inf if q == "poll_over_reread_calls" else 1.0 for q in a["quantity"]]
    shown = pd.DataFrame(
        {
            "quantity": a["quantity"].str.replace("_", " "),
            "questions vs edits": a["relation"],
            "saves / questions a day": [
                f"{s:g} / {q:g}" for s, q in zip(a["n_saves"], a["n_questions"], strict=True)
            ],
            "edits per article per day": a["edits_per_article_day"].map(lambda x: f"{x:.3g}"),
            "at": a["delay_s"].map(delay),
            "seeds": a["seeds"],
            "simulated (95 % CI)": [
                f"{v:.4f} ({max(0.0, lo):.4f} – {min(top, hi):.4f})"
                for v, lo, hi, top in zip(a["simulated"], a["ci_lo"], a["ci_hi"], tops, strict=True)
            ],
            "closed form": a["closed_form"].map(lambda x: f"{x:.4f}"),
            "z": a["form_z"].map(lambda x: f"{x:+.1f}" if math.isfinite(x) else "–"),
            "within": a["within_tolerance"].map({True: "yes", False: "**no**"}),
            "margin": a["margin"].map(lambda x: f"±{x:.4f}"),
            "power": a["power"].map(lambda x: f"{100 * x:.0f} %"),
            "seeds for 80 %": a["seeds_for_80_power"],
        }
    )
    return md(shown)


def logs_table(logs: pd.DataFrame) -> str:
    ages = (3600.0, DAY_S, 7 * DAY_S, 30 * DAY_S)
    rows = []
    for name, g in logs.groupby("log", sort=False):
        pop = g[g["draw"] == "popularity"].set_index("age_s")
        uni = g[g["draw"] == "uniform"].set_index("age_s")
        row = {
            "log": name,
            "edits per article per day": f"{g['edits_per_article_day'].iloc[0]:.3g}",
        }
        for age in ages:
            p = pop.loc[age]
            row[f"stale at {age_label(age)}"] = (
                f"{pct(p['measured'])} ({pct(p['measured_ci_lo'])} – {pct(p['measured_ci_hi'])});"
                f" pooled {pct(p['pooled'])}; uniform {pct(uni.loc[age, 'measured'])};"
                f" Poisson at its rates {pct(p['poisson_own_rates'])};"
                f" write-up's popularity {pct(p['model_writeup_shape'])}"
            )
        rows.append(row)
    return md(pd.DataFrame(rows))


def cas_logs_table(logs: pd.DataFrame) -> str:
    delays = sorted(d for d in logs["age_s"].unique() if d <= 8 * 3600.0)
    rows = []
    for name, g in logs[logs["draw"] == "popularity"].groupby("log", sort=False):
        g = g.set_index("age_s")
        rows.append({"log": name, **{age_label(d): pct(g.loc[d, "measured"]) for d in delays}})
    return md(pd.DataFrame(rows))


def _span(values: pd.Series) -> dict[str, float]:
    return {"lo": float(values.min()), "hi": float(values.max())}


def disagreement(logs: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Where the logs' own rows leave the model, and why: each ratio's and trait's span over
    the logs."""
    month = logs[(logs["draw"] == "popularity") & (logs["age_s"] == 30 * DAY_S)]
    flat = logs[(logs["draw"] == "uniform") & (logs["age_s"] == 30 * DAY_S)]
    traits = logs.drop_duplicates("log")
    return {
        "own": _span(month["measured"] / month["poisson_own_rates"]),
        "shape": _span(month["model_writeup_shape"] / month["measured"]),
        "uniform": _span(flat["model_writeup_shape"] / flat["measured"].to_numpy()),
        "within_hour": _span(traits["within_hour_share"]),
        "within_hour_poisson": _span(traits["within_hour_poisson"]),
        "bulk": _span(traits["bulk_save_share"]),
    }


def _breaks(points: pd.DataFrame) -> list[dict[str, float | None]]:
    """Each break-even point: questions, articles held and saves per check (None past the map)."""
    return [
        {
            "questions": r["n_questions"],
            "held": r["citations_held"],
            "saves": s if math.isfinite(s := r["saves_per_check_at_break_even"]) else None,
        }
        for _, r in points.iterrows()
    ]


def _power_seeds(a: pd.DataFrame) -> dict[str, object]:
    """What 80 % power at every point would take: the most seeds any point needs, against
    the seeds the grid runs, per kind of point (the grid's and the break-even's), and the
    hungriest grid point's share and trials a seed."""
    grid = a[a["quantity"] != "poll_over_reread_calls"]
    poll = a[a["quantity"] == "poll_over_reread_calls"]
    worst = grid.loc[grid["seeds_for_80_power"].idxmax()]
    return {
        "grid": (int(grid["seeds_for_80_power"].max()), int(grid["seeds"].max())),
        "poll": (int(poll["seeds_for_80_power"].max()), int(poll["seeds"].max())),
        "worst_share": float(worst["simulated"]),
        "worst_trials": float(worst["trials_per_seed"]),
        "worst_margin_events": float(worst["margin"] * worst["trials_per_seed"]),
    }


def _given(a: pd.DataFrame, quantity: str) -> dict[str, object]:
    """``quantity``'s points held to the chance given the articles cited or edited: how
    many, how many within Z_TOLERANCE paired SEs, the span of their z, and the pooled gap
    from the form split into the articles' part and the change's (``bias.explained``)."""
    z = a.loc[a["quantity"] == quantity, "given_cited_z"].dropna()
    return {
        "points": len(z),
        "within": int((z.abs() <= Z_TOLERANCE).sum()),
        "z": _span(z),
        "split": explained(a, quantity),
    }


def text(base: Params, t: dict[str, pd.DataFrame]) -> str:
    """The section's Markdown, from the map's tables (templates/map_section.md.j2)."""
    rate = writeup_rate(base)
    stale, a, logs = t["map_stale"], t["map_agreement"], t["map_logs"]
    cas = t["map_cas"]
    traits = logs.drop_duplicates("log").set_index("log")
    log_rates = dict(traits["edits_per_article_day"])
    agent = a[a["quantity"] == "rejected_by_agent_edit"]
    exact = a[~a["quantity"].isin(["rejected_by_agent_edit", "poll_over_reread_calls"])]
    poll = a[a["quantity"] == "poll_over_reread_calls"]
    sim_rates = a[a["quantity"] == "stale_at_day_end"]["edits_per_article_day"]
    human_1h = cas[(cas["rejected_by"] == "human") & (cas["delay_s"] == 3600.0)]
    human_1h = human_1h.set_index("edits_per_article_day")["rejected_share"]
    agent_1h = cas[(cas["rejected_by"] == "agent") & (cas["delay_s"] == 3600.0)]

    def count(rows: pd.DataFrame, column: str) -> tuple[int, int]:
        return int(rows[column].sum()), len(rows)

    day_cas = t["cas_by_delay"].set_index("delay_s") if "cas_by_delay" in t else None
    human_day = t["comparison"].set_index("key") if "comparison" in t else None

    drop_lo, drop_hi = read_order_span(base)
    return render(
        "map_section.md.j2",
        read_order={"lo": 100 * drop_lo, "hi": 100 * drop_hi},
        share=pct,
        rate=rate,
        day={
            "saves": base.n_saves,
            "articles": base.n_articles,
            "hours": base.day_s / HOUR_S,
            "form_1h": None
            if day_cas is None
            else day_cas.loc[HOUR_S, "human_save_in_window_theory"],
            "human_1h": None
            if human_day is None
            else human_day.loc["cas_human_reject_share_3600s", "mean"],
        },
        atlas=atlas.page_values(t) if "atlas_sites" in t else None,
        times_less=_span(pd.Series([rate / r for r in log_rates.values()])),
        rates=_span(stale["edits_per_article_day"]),
        stale_table=stale_table(stale, rate, log_rates),
        sim_rates=_span(sim_rates),
        ra=_span(sim_rates * base.day_s / DAY_S),
        month=_span(pd.Series(log_rates) * 30),
        human_1h={
            "first": (human_1h.index[0], human_1h.iloc[0]),
            "writeup": human_1h[rate],
            "last": (human_1h.index[-1], human_1h.iloc[-1]),
        },
        log_1h=_span(logs[(logs["draw"] == "popularity") & (logs["age_s"] == 3600.0)]["measured"]),
        agent_1h=_span(agent_1h["rejected_share"]),
        agent_rates=_span(agent_1h["edits_per_article_day"]),
        breaks=_breaks(t["map_break_even_points"]),
        poll_over=((poll["closed_form"] - poll["simulated"]) / poll["simulated"]).max(),
        per_hour=_span(traits["saves_per_hour"]),
        settings_table=break_even_settings_table(t["map_break_even_settings"]),
        even_lower=_even_lower(t["map_break_even_settings"]),
        seeds=int(a["seeds"].max()),
        z_tolerance=Z_TOLERANCE,
        ratio_tolerance=RATIO_TOLERANCE,
        agent_factor=AGENT_FACTOR,
        exact=count(exact, "within_tolerance"),
        exact_in_ci=int(exact["closed_form_in_ci"].sum()),
        poll=count(poll, "within_tolerance"),
        agent=count(agent, "within_tolerance"),
        agent_gap=_span((agent["simulated"] / agent["closed_form"])[agent["delay_s"] >= 3600.0]),
        stale_z=_span(a[a["quantity"] == "stale_at_day_end"]["form_z"]),
        margins=MARGINS,
        margin_floor=MARGIN_FLOOR,
        power=POWER,
        powered=(int((a["power"] >= POWER).sum()), len(a)),
        power_seeds=_power_seeds(a),
        most_vrf=float(t["variance_reduction"]["vrf"].max()) if "variance_reduction" in t else None,
        gaps=form_gap(a).set_index("quantity").to_dict("index"),
        given={
            "first": _given(t["map_stale_by_citation"], "stale_first_citation"),
            "other": _given(t["map_stale_by_citation"], "stale_other_citations"),
            "human": _given(a, "human_save_in_window"),
        },
        agreement_table=agreement_table(a),
        cas_logs_table=cas_logs_table(logs),
        logs_table=logs_table(logs),
        interval=logs["interval"].iloc[0],
        gap=disagreement(logs),
    )
