"""The map's tables: pure functions of the map's per-seed rows, the break-even rows and the
edit logs given (read by the caller), written by `make reproduce` as results/map_*.csv."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from sim import exactmath
from sim.calibrate.logs import EditLog
from sim.params import Params
from sim.stats import Z95, detection_power, q95, units_for_power
from sim.studymap import forms, logs
from sim.studymap.forms import DAY_S, RELATIONS

Z_TOLERANCE = 3.5
"""A closed form that is exact for the model agrees at a point when it lies within 3.5
standard errors of the simulated mean over seeds (as tests/test_theory.py holds it: a
correct form fails about once in 2,000 points)."""
AGENT_FACTOR = 2.0
"""The agent-only form is approximate (``forms.day_cas``: the search's first hit, not the
question's target, and retries' later landings are left out), so it is held as a lower
bound within a factor: form − 3.5 SE ≤ simulated ≤ 2 × form + 3.5 SE."""
RATIO_TOLERANCE = 0.10
"""The break-even's form (``theory.expected_check_calls``) takes changes as independent of
citations and leaves unpublishing out; on three seeds a point it is held within 3.5 SE or
10 % of its value, and the table records how far it is."""
MAP_AGES_S = (60.0, 600.0, 3600.0, 8 * 3600.0, DAY_S, 7 * DAY_S, 30 * DAY_S)
"""The map's citation ages: a minute to a month."""
MAP_DELAYS_S = tuple(
    sorted({*np.round(np.geomspace(1, 30 * DAY_S, 41)).tolist(), 5.0, 600.0, 3600.0, 14400.0})
)
AGENT_INTENSITIES = (0.09, 0.9, 9.0)
"""The agent's edits per article per day: the write-up's agent (120 answers, each editing,
in 8 hours on 400 articles) is 0.9."""
MARGINS = {
    "stale_at_day_end": 0.05,
    "stale_first_citation": 0.05,
    "stale_other_citations": 0.05,
    "human_save_in_window": 0.05,
    "rejected_by_agent_edit": 0.5,
    "poll_over_reread_calls": RATIO_TOLERANCE,
}
"""Each point's equivalence margin, relative to its closed form: ±5 % for the exact forms,
half the form for the agent's (held as a lower bound within a factor 2), the break-even's
10 % tolerance; never below MARGIN_FLOOR absolute (a form of 10⁻⁵ has no 5 % to detect)."""
MARGIN_FLOOR = 0.005
POWER = 0.8
"""The power each point should have to detect a gap of its margin at |z| > Z_TOLERANCE."""
QUESTIONS = (10, 40, 120, 400)
"""Questions a day of the break-even map (citations held grow with them)."""


def per_article_day(base: Params, n_saves: float) -> float:
    """A simulated day's saves as edits per article per 24 h."""
    return n_saves / base.n_articles * DAY_S / base.day_s


def _summary(share: pd.Series, seed: pd.Series, trials: float, form: float) -> dict[str, float]:
    """Mean over seeds and its 95 % interval; the standard error is at least the binomial
    one of the form over every trial (a rare event seen on no seed has no spread of its
    own): Student's t on the seeds' own spread, the normal quantile on that known floor."""
    per_seed = share.groupby(seed.to_numpy()).sum()
    n = len(per_seed)
    mean = float(per_seed.mean())
    spread = float(per_seed.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    floor = math.sqrt(max(form * (1 - form), 0.0) / trials)
    se = max(spread, floor)
    q = q95(n) if n > 1 and spread >= floor else Z95  # t on an estimated spread, else known
    return {
        "seeds": n,
        "simulated": mean,
        "se": se,
        "ci_lo": mean - q * se,
        "ci_hi": mean + q * se,
    }


def agreement(
    base: Params, stale: pd.DataFrame, cas: pd.DataFrame, break_even: pd.DataFrame
) -> pd.DataFrame:
    """Every grid point: the simulated mean over seeds with its 95 % interval, the closed
    form, z and whether the form is within its tolerance; for the exact forms on the same
    ranking, the chance given the articles cited or edited and when (``_given``)."""
    rows = []
    for (relation, n_saves), g in stale.groupby(["relation", "n_saves"], sort=False):
        p = replace(base, n_saves=int(n_saves))
        at = _Point(relation, base, p, math.nan, g["seed"], g["citations"].sum())
        rows.append(
            at.row(
                "stale_at_day_end", g["stale"] / g["citations"], forms.day_end_stale(p, relation)
            )
            | _given(g["stale"], g["expected_stale"], g["expected_stale_var"], g["citations"])
        )
    delays = tuple(sorted(cas["delay_s"].unique()))
    for (relation, n_saves), g in cas.groupby(["relation", "n_saves"], sort=False):
        p = replace(base, n_saves=int(n_saves))
        form = forms.day_cas(p, relation, delays)
        for delay, d in g.groupby("delay_s"):
            at = _Point(relation, base, p, delay, d["seed"], d["edits"].sum())
            rows.append(
                at.row(
                    "human_save_in_window",
                    d["human_save_in_window"] / d["edits"],
                    form[delay]["human"],
                )
                | _given(
                    d["human_save_in_window"],
                    d["expected_human"],
                    d["expected_human_var"],
                    d["edits"],
                )
            )
            if "agent" in form[delay]:
                rows.append(
                    at.row(
                        "rejected_by_agent_edit",
                        d["rejected_by_agent_edit"] / d["edits"],
                        form[delay]["agent"],
                    )
                )
    for (n_saves, questions), g in break_even.groupby(["n_saves", "n_questions"]):
        p = replace(base, n_saves=int(n_saves), n_questions=int(questions))
        at = _Point("same", base, p, math.nan, g["seed"], math.inf)
        ratio = g["poll_method_calls"] / g["reread_calls"]
        rows.append(at.row("poll_over_reread_calls", ratio, forms.check_calls_ratio(p)["ratio"]))
    return pd.DataFrame(rows)


def by_citation(base: Params, stale: pd.DataFrame) -> pd.DataFrame:
    """Every staleness point's stale share of answers' first citations (the search's top
    hit) and of their other citations (its later hits), each against its own form
    (``forms.day_end_stale_by_citation``) and, on the same ranking, against the chance of a
    save given the articles actually cited and when (``_given``): where the stale form's
    gap to the simulation lies."""
    rows = []
    for (relation, n_saves), g in stale.groupby(["relation", "n_saves"], sort=False):
        p = replace(base, n_saves=int(n_saves))
        form = forms.day_end_stale_by_citation(p, relation)
        first = g["first_citations"]
        other = g["citations"] - first
        at = _Point(relation, base, p, math.nan, g["seed"], first.sum())
        rows.append(
            at.row("stale_first_citation", g["first_stale"] / first, form["first"])
            | _given(
                g["first_stale"],
                g["first_expected_stale"],
                g["first_expected_stale_var"],
                first,
            )
        )
        at = _Point(relation, base, p, math.nan, g["seed"], other.sum())
        stale_other = g["stale"] - g["first_stale"]
        rows.append(
            at.row("stale_other_citations", stale_other / other, form["other"])
            | _given(
                stale_other,
                g["expected_stale"] - g["first_expected_stale"],
                g["expected_stale_var"] - g["first_expected_stale_var"],
                other,
            )
        )
    return pd.DataFrame(rows)


def _given(
    events: pd.Series, chance: pd.Series, variance: pd.Series, trials: pd.Series
) -> dict[str, float]:
    """The mean over seeds of the chance given the articles cited or edited, the standard
    error of the seeds' mean paired difference (simulated − that chance), and its z (NaN
    where the chance was not computed). The error is at least the one the chances
    themselves give (Σ p(1 − p) over each seed's trials): a rare event seen on no seed
    leaves differences with almost no spread of their own."""
    if chance.isna().any():
        return {"given_cited": math.nan, "given_se": math.nan, "given_cited_z": math.nan}
    diff = (events - chance) / trials
    floor = math.sqrt(float((variance / (trials * trials)).sum())) / len(diff)
    se = max(float(diff.std(ddof=1)) / math.sqrt(len(diff)), floor)
    return {
        "given_cited": float((chance / trials).mean()),
        "given_se": se,
        "given_cited_z": float(diff.mean()) / se if se > 0 else math.nan,
    }


@dataclass(frozen=True)
class _Point:
    """A grid point of the agreement table: its relation, params, delay, seeds and trials
    (citations or edits over all seeds; inf for a ratio of counts)."""

    relation: str
    base: Params
    p: Params
    delay: float
    seed: pd.Series
    trials: float

    def row(self, quantity: str, share: pd.Series, form: float) -> dict[str, object]:
        return _row(quantity, self, share, form)


def _row(quantity: str, at: _Point, share: pd.Series, form: float) -> dict[str, object]:
    s = _summary(share.reset_index(drop=True), at.seed.reset_index(drop=True), at.trials, form)
    z = (
        (s["simulated"] - form) / s["se"]
        if s["se"] > 0
        else (0.0 if s["simulated"] == form else math.inf)
    )
    if quantity == "rejected_by_agent_edit":
        within = (
            form - Z_TOLERANCE * s["se"]
            <= s["simulated"]
            <= AGENT_FACTOR * form + Z_TOLERANCE * s["se"]
        )
    elif quantity == "poll_over_reread_calls":
        within = abs(z) <= Z_TOLERANCE or abs(s["simulated"] - form) <= RATIO_TOLERANCE * form
    else:
        within = abs(z) <= Z_TOLERANCE
    margin = max(MARGINS[quantity] * abs(form), MARGIN_FLOOR)
    return {
        "quantity": quantity,
        "relation": at.relation,
        "n_saves": at.p.n_saves,
        "n_questions": at.p.n_questions,
        "edits_per_article_day": per_article_day(at.base, at.p.n_saves),
        "delay_s": at.delay,
        "trials_per_seed": at.trials / s["seeds"],
        **{k: v for k, v in s.items() if k != "se"},
        "closed_form": form,
        "form_z": z,
        "closed_form_in_ci": bool(s["ci_lo"] <= form <= s["ci_hi"]),
        "within_tolerance": bool(within),
        "se": s["se"],
        "margin_rel": MARGINS[quantity],
        "margin": margin,
        "power": detection_power(margin, s["se"], Z_TOLERANCE),
        "seeds_for_80_power": units_for_power(int(s["seeds"]), margin, s["se"], Z_TOLERANCE, POWER),
    }


def stale_at(stale: pd.DataFrame, relation: str, rate: float, age: float) -> float:
    """The map's stale share at one intensity, age and question relation."""
    g = stale[(stale["relation"] == relation) & (stale["age_s"] == age)]
    hit = g[(g["edits_per_article_day"] / rate - 1).abs() < 1e-9]
    return float(hit["stale_at_age"].iloc[0])


def rate_axis(log_rates: list[float], top: float) -> np.ndarray:
    """Edits per article per day from the decade below the quietest log to the decade above
    ``top`` (the busiest grid point): at least four decades."""
    eighths = np.arange(
        8 * math.floor(math.log10(min(log_rates))), 8 * math.ceil(math.log10(top)) + 1
    )
    # 10^(k/8) the same on every CPU (sim.exactmath), each decade itself exact
    steps = exactmath.exp(eighths * (math.log(10.0) / 8))
    return np.array(
        [float(f"1e{k // 8}") if k % 8 == 0 else s for k, s in zip(eighths, steps, strict=True)]
    )


def stale_map(
    rates: Sequence[float] | np.ndarray, ages_s: tuple[float, ...] = MAP_AGES_S
) -> pd.DataFrame:
    """The stale share of citations by intensity, age and relation (steady rates)."""
    rows = [
        {"relation": relation, "age_s": age, "edits_per_article_day": r,
         "stale_at_age": float(forms.stale_share(r, age, relation))}
        for relation in RELATIONS for age in ages_s for r in rates
    ]  # fmt: skip
    return pd.DataFrame(rows)


def cas_map(intensities: list[float]) -> pd.DataFrame:
    """CAS rejection by delay: a human's save at each edit intensity, the agent's own edits
    alone at each of its intensities (question popularity, the same ranking)."""
    delays = np.asarray(MAP_DELAYS_S)
    rows = []
    for r in intensities:
        for d, v in zip(delays, forms.human_rejection(r, delays), strict=True):
            rows.append(
                {
                    "rejected_by": "human",
                    "edits_per_article_day": r,
                    "delay_s": d,
                    "rejected_share": float(v),
                }
            )
    for a in AGENT_INTENSITIES:
        for d, v in zip(delays, forms.agent_rejection(a, delays), strict=True):
            rows.append(
                {
                    "rejected_by": "agent",
                    "edits_per_article_day": a,
                    "delay_s": d,
                    "rejected_share": float(v),
                }
            )
    return pd.DataFrame(rows)


BREAK_EVEN_PAGES = (10.0, 100.0, 1000.0, math.inf)
"""Events a poll call takes in the break-even's settings: the server's 100 (the map's), a
tenth and ten times it, and one call a check whatever the events (inf)."""


def break_even_map(base: Params, page: float = 100.0) -> pd.DataFrame:
    """Poll's calls over re-read's per hourly check by saves per check and questions a day
    (citations held), closed form, a poll call taking `page` events and the saves spread
    over articles as `base.save_popularity` says; the saves per check where it reaches 1."""
    saves = np.unique(np.round(np.geomspace(1, 160_000, 49)).astype(int))
    checks = base.day_s / base.check_interval_s
    rows = []
    for q in QUESTIONS:
        for n in saves:
            c = forms.check_calls_ratio(replace(base, n_saves=int(n), n_questions=q), page)
            rows.append(
                {
                    "n_questions": q,
                    "n_saves": int(n),
                    "saves_per_check": n / checks,
                    "citations_held": c["reread_calls_per_check"],
                    "calls_ratio": c["ratio"],
                }
            )
    return pd.DataFrame(rows)


def break_even_points(table: pd.DataFrame) -> pd.DataFrame:
    """Per questions a day: saves per check where poll's calls reach re-read's (log-log
    interpolation on the map's fine grid; NaN past it)."""
    rows = []
    for q, g in table.groupby("n_questions"):
        x, y = (
            exactmath.log(g["saves_per_check"].to_numpy()),
            exactmath.log(g["calls_ratio"].to_numpy()),
        )
        at = math.nan
        for i in range(len(x) - 1):
            if y[i] < 0 <= y[i + 1]:
                at = math.exp(x[i] - y[i] * (x[i + 1] - x[i]) / (y[i + 1] - y[i]))
                break
        rows.append(
            {
                "n_questions": q,
                "citations_held": float(g["citations_held"].mean()),
                "saves_per_check_at_break_even": at,
            }
        )
    return pd.DataFrame(rows)


def break_even_settings(base: Params) -> pd.DataFrame:
    """The break-even (saves per check where poll's calls reach re-read's) by the events a
    poll call takes (0: one call a check, whatever the events) and how the saves spread
    over articles (as the questions' Zipf popularity, or evenly), per questions a day."""
    parts = []
    for popularity in ("zipf", "even"):
        for page in BREAK_EVEN_PAGES:
            at = replace(base, save_popularity=popularity)
            points = break_even_points(break_even_map(at, page))
            parts.append(
                points.assign(
                    save_popularity=popularity, poll_page_events=0 if math.isinf(page) else page
                )
            )
    cols = ["save_popularity", "poll_page_events", "n_questions", "citations_held"]
    return pd.concat(parts, ignore_index=True)[[*cols, "saves_per_check_at_break_even"]]


def logs_table(panel: dict[str, EditLog]) -> pd.DataFrame:
    """Each log measured from its own rows (``studymap.logs.measure``) with its traits."""
    parts = []
    for name, log in panel.items():
        traits = logs.traits(log)
        kept = ("within_hour_share", "within_hour_poisson", "bulk_save_share", "saves_per_hour")
        parts.append(logs.measure(log).assign(log=name, **{k: traits[k] for k in kept}))
    out = pd.concat(parts, ignore_index=True)
    return out[["log", *[c for c in out.columns if c != "log"]]]
