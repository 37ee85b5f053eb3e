"""REPORT.md's map section: each answer as a function of what decides it, the closed form's
agreement with the simulated grid, and the real help centres measured from their own rows.
Every number is read from the map's tables."""

from __future__ import annotations

import math

import pandas as pd

from sim.pages import md
from sim.studymap.figures import age_label, pct
from sim.studymap.forms import DAY_S
from sim.studymap.tables import AGENT_FACTOR, RATIO_TOLERANCE, Z_TOLERANCE

TABLE_RATES = (0.001, 0.01, 0.1, 1.0, 10.0)
"""Intensities shown in the section's stale table (beside the write-up's and the logs')."""


def stale_at(stale: pd.DataFrame, relation: str, rate: float, age: float) -> float:
    """The map's stale share at one intensity, age and question relation."""
    g = stale[(stale["relation"] == relation) & (stale["age_s"] == age)]
    hit = g[(g["edits_per_article_day"] / rate - 1).abs() < 1e-9]
    return float(hit["stale_at_age"].iloc[0])


def stale_table(stale: pd.DataFrame, writeup_rate: float, log_rates: dict[str, float]) -> str:
    """Ages × intensities (questions on the edits' ranking; independent in brackets)."""
    rates = {f"{r:g}": r for r in TABLE_RATES if r in set(stale["edits_per_article_day"])}
    rates[f"write-up {writeup_rate:.3g}"] = writeup_rate
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
                f" uniform {pct(uni.loc[age, 'measured'])};"
                f" Poisson at its rates {pct(p['poisson_own_rates'])};"
                f" write-up's popularity {pct(p['model_writeup_shape'])}"
            )
        rows.append(row)
    return md(pd.DataFrame(rows))


def cas_logs_table(logs: pd.DataFrame, cas: pd.DataFrame) -> str:
    delays = sorted(d for d in logs["age_s"].unique() if d <= 8 * 3600.0)
    rows = []
    for name, g in logs[logs["draw"] == "popularity"].groupby("log", sort=False):
        g = g.set_index("age_s")
        rows.append({"log": name, **{age_label(d): pct(g.loc[d, "measured"]) for d in delays}})
    return md(pd.DataFrame(rows))


def disagreement(logs: pd.DataFrame) -> str:
    """Where the logs' own rows leave the model, and why, from the numbers."""
    month = logs[(logs["draw"] == "popularity") & (logs["age_s"] == 30 * DAY_S)]
    ratio_own = month["measured"] / month["poisson_own_rates"]
    ratio_shape = month["model_writeup_shape"] / month["measured"]
    flat = logs[(logs["draw"] == "uniform") & (logs["age_s"] == 30 * DAY_S)]
    uniform = flat["model_writeup_shape"] / flat["measured"].to_numpy()
    traits = logs.drop_duplicates("log")
    return (
        f"Against Poisson saves at each log's own per-article rates, the measured month is "
        f"{ratio_own.min():.0%}–{ratio_own.max():.0%} of the prediction: real saves come in "
        f"bursts ({pct(traits['within_hour_share'].min())}–{pct(traits['within_hour_share'].max())}"
        f" of saves land within an hour of the same article's previous save, against "
        f"{pct(traits['within_hour_poisson'].min())}–{pct(traits['within_hour_poisson'].max())} for"
        f" Poisson saves at the same rates) and bulk publishes "
        f"({pct(traits['bulk_save_share'].min())}–{pct(traits['bulk_save_share'].max())} of saves"
        f" are in publishes touching 10 or more articles), and saves close together make one reader"
        f" stale once. The write-up's popularity (Zipf 0.9 on 400 articles, questions on the"
        f" edits' ranking) at each log's intensity predicts {ratio_shape.min():.1f}–"
        f"{ratio_shape.max():.1f}× the measured month for reads drawn by edit popularity: it"
        f" concentrates questions on its most-edited articles far more than the logs' own"
        f" popularity does; for reads drawn uniformly (the independent ranking) it gives"
        f" {uniform.min():.1f}–{uniform.max():.1f}×."
    )


def render(t: dict[str, pd.DataFrame], writeup_rate: float) -> str:
    """The section's Markdown."""
    stale, a, logs = t["map_stale"], t["map_agreement"], t["map_logs"]
    cas, points = t["map_cas"], t["map_break_even_points"]
    traits = logs.drop_duplicates("log").set_index("log")
    log_rates = dict(traits["edits_per_article_day"])
    per_hour = dict(traits["saves_per_hour"])
    exact = a[a["quantity"] != "rejected_by_agent_edit"]
    agent = a[a["quantity"] == "rejected_by_agent_edit"]
    lo_rate, hi_rate = stale["edits_per_article_day"].min(), stale["edits_per_article_day"].max()
    sim_rates = a[a["quantity"] == "stale_at_day_end"]["edits_per_article_day"]
    ra_lo, ra_hi = sim_rates.min() * 8 / 24, sim_rates.max() * 8 / 24
    month = {n: r * 30 for n, r in log_rates.items()}
    human_1h = cas[(cas["rejected_by"] == "human") & (cas["delay_s"] == 3600.0)]
    human_1h = human_1h.set_index("edits_per_article_day")["rejected_share"]
    agent_1h = cas[(cas["rejected_by"] == "agent") & (cas["delay_s"] == 3600.0)]
    agent_gap = (agent["simulated"] / agent["closed_form"])[agent["delay_s"] >= 3600.0]
    poll = a[a["quantity"] == "poll_over_reread_calls"]
    stale_z = a[a["quantity"] == "stale_at_day_end"]["form_z"]
    exact = exact[exact["quantity"] != "poll_over_reread_calls"]
    poll_over = ((poll["closed_form"] - poll["simulated"]) / poll["simulated"]).max()
    log_1h = logs[(logs["draw"] == "popularity") & (logs["age_s"] == 3600.0)]["measured"]
    times_less = [writeup_rate / r for r in log_rates.values()]
    breaks = "; ".join(
        f"{r['n_questions']:g} questions a day "
        f"({r['citations_held']:.0f} articles held per check): "
        + (
            f"{r['saves_per_check_at_break_even']:,.0f} saves per check"
            if math.isfinite(r["saves_per_check_at_break_even"])
            else "past the map"
        )
        for _, r in points.iterrows()
    )
    return f"""## 7. The map: your KB's answers

The first pages answer for the write-up's day, {writeup_rate:.3g} edits per article a day
(300 saves in 8 hours on 400 articles). The three real help centres' logs edit
{min(times_less):,.0f}–{max(times_less):,.0f} times less, and an assistant holds citations for
days. Each answer is a function of what decides it; the
closed forms (`sim/studymap/forms.py`, Poisson freshness after `sim/theory.py`) draw it from
{lo_rate:g} to {hi_rate:g} edits per article a day, the simulation holds them at a grid of
points, and the three real help centres are placed on it from their own rows.

**How fast citations go stale.** A citation of an article saved at rate λ is stale after age
a with probability 1 − e^(−λa); over the write-up's popularity it depends on the intensity r
and the age only through r·a. Solid on the figure: questions on the edits' ranking (the
write-up's); in brackets and dashed: an independent ranking.

{stale_table(stale, writeup_rate, log_rates)}

![stale share by intensity and age](map_stale.png)

*Citations held longer than the day.* The simulated day checks the form at
{sim_rates.min():.3g}–{sim_rates.max():.3g} edits per article a day and ages up to 8 h, r·a
from 0 to {ra_hi:.2g} expected saves per article (r·a ≥ {ra_lo:.2g} at a day's age, for
the quietest point); a month at the real logs' intensities is r·a =
{min(month.values()):.2g}–{max(month.values()):.2g}, inside that range, so the form at a
month is the form the grid checks, read at another r (`tests/test_studymap.py` holds the
day's form, without unpublishing, to the steady form averaged over the day's ages, and the
steady form to depend on r·a alone). What no simulated day can check is
that the rates hold for a month: the logs' own rows below do.

**CAS by delay.** A human's save rejects an edit sent d after the read exactly when the
first citation is stale at age d: at 1 h, {pct(human_1h.iloc[0])} at
{human_1h.index[0]:.3g} human edits per article a day, {pct(human_1h[writeup_rate])} at the
write-up's {writeup_rate:.3g}, {pct(human_1h.iloc[-1])} at {human_1h.index[-1]:.3g}; the real
logs' own rows give {pct(log_1h.min())}–{pct(log_1h.max())} (below).
The agent's own other edits of the same article reject {pct(agent_1h["rejected_share"].min())}
–{pct(agent_1h["rejected_share"].max())} at 1 h for {agent_1h["edits_per_article_day"].min():g}
–{agent_1h["edits_per_article_day"].max():g} agent edits per article a day (the write-up's
agent, editing the first citation of every answer, is 0.9); serialising its edits of one
article removes them.

![CAS rejection by delay](map_cas.png)

**Poll or re-read.** Polling costs fewer calls than re-reading every held citation up to:
{breaks} (closed form `theory.expected_check_calls`, the hourly checker, a poll call taking
at most 100 events, the server's page, and the saves following the questions' Zipf
popularity). At those settings, the ones simulated, the form overstates poll's calls by up
to {poll_over:.0%} at the grid's busiest points (it takes changes as independent of
citations and leaves unpublishing out), so there these are, within the simulation's noise,
lower bounds; in the other settings below nothing simulated says which way. The break-even
moves with the events a poll call takes and with how saves spread over articles (closed
form, saves per hourly check; not simulated):

{break_even_settings_table(t["map_break_even_settings"])}

A larger page, up to one call a check, raises it. Saves spread evenly over the articles
lower it at {_even_lower(t["map_break_even_settings"])} (past a few hundred saves a check,
saves piled onto the popular articles change fewer distinct held articles than saves spread
evenly); the first page's figures are the Zipf column at 100 events. The real logs save
{min(per_hour.values()):.2g}–{max(per_hour.values()):.2g} times an hour, where polling is
the cheaper at any number of questions in every setting.

![break-even map](map_break_even.png)

### The closed form against the simulation

Each point is the write-up's day with only its saves (and, for the break-even, questions)
changed and the staleness day run without its checkers, on seeds 1–{int(a["seeds"].max())}
(the break-even grid on its own seeds), run as `python -m sim sweep` runs a grid. An exact
form agrees when |z| ≤ {Z_TOLERANCE:g} (z: the difference in standard errors over seeds, at
least the binomial one of the form over all the point's citations or edits): the stale share
and the human's save in the delay at {int(exact["within_tolerance"].sum())} of {len(exact)}
points, the form inside the simulation's 95 % interval at
{int(exact["closed_form_in_ci"].sum())}. The break-even's ratio (3 seeds a point), within
{Z_TOLERANCE:g} SE or {RATIO_TOLERANCE:.0%}: {int(poll["within_tolerance"].sum())} of
{len(poll)}. The agent-only form is a lower bound
(the search's first hit, not always the question's target, concentrates edits on fewer
articles; a retry's later landing is left out), held as form − {Z_TOLERANCE:g} SE ≤ simulated ≤
{AGENT_FACTOR:g} × form + {Z_TOLERANCE:g} SE: {int(agent["within_tolerance"].sum())} of
{len(agent)}; from 1 h on the simulation runs {agent_gap.min():.2f}–{agent_gap.max():.2f}× the form.
The stale share's z run from {stale_z.min():+.1f} to {stale_z.max():+.1f}: the form sits a
little above the simulation at most points, as the search's first hit is not always the
question's target. The day's forms keep its boundaries (every article fresh at dawn, saves
stopping at the day's end), which the map's steady forms drop. In the table a share's interval
is shown clipped to 0–1 (where no seed saw an event, its error is the form's binomial one).

{agreement_table(a)}

### Real help centres, from their own rows

No model: a read at a random instant of each log's span, its article drawn by the log's own
edit popularity (or uniformly), stale when the log saves that article within the citation's
age; 95 % intervals from resampling eight time windows of the log
(`sim/studymap/logs.py`; `results/map_logs.csv`). The same measure at a delay is the CAS
rejection a human's save alone causes:

{cas_logs_table(logs, cas)}

{logs_table(logs)}

{disagreement(logs)}

Your own log gets the same table: `python -m sim calibrate LOG.csv` prints it.
"""
