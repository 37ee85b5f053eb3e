"""Every figure the write-up reports, beside ours, with a verdict.

The reported values (``sim.study.reported``) are the write-up's, kept only to be
compared with: nothing in the model reads them. A figure is *reproduced* when it (or,
for a verbal figure, the band its wording allows) meets the central 95 % range that a
five-seed run of our model reaches, estimated from all seeds (``verdicts.py``);
*infeasible as reported* when it contradicts another reported figure whatever the
model. Each verdict carries z, a borderline flag and the verdict on the first 150
seeds, so a reader sees whether it hangs on the seed count. The mean and its interval
are the plain ones: what control variates would give is measured beside them
(``variance.py``).

The reasons' words are templates/comparison_reasons.md.j2.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from sim.params import Params
from sim.popularity import top_share
from sim.report.render import environment
from sim.report.verdicts import judge
from sim.stats import normal_interval
from sim.study.reported import RATIOS, REPORTED, Reported, closed_forms, control_form

HALF_SEEDS = 150
"""The verdicts are also taken on seeds 1..150, to show which hang on the seed count."""


def gone_counted_as_rejection() -> Reported:
    """The all-delays rejection figure read with a first-try 'gone' counted as a rejection:
    the write-up's own counts under that reading, (172 + 19) of 600."""
    by = {r.key: r for r in REPORTED}
    rejected, edits = by["cas_reject_share"].counts or (0, 0)
    gone, gone_of = by["cas_gone_share"].counts or (0, 0)
    if edits != gone_of or edits == 0:
        raise ValueError("REPORTED: cas_reject_share and cas_gone_share need counts of one total")
    return replace(
        by["cas_reject_share"],
        value=(rejected + gone) / edits,
        as_written=f"{rejected + gone} of {edits} ({rejected} rejected + {gone} gone)",
        counts=(rejected + gone, edits),
    )


def holm_family() -> tuple[str, ...]:
    """The figures Holm's correction runs over: shares the model produces, each an
    independent claim of the write-up (not an input, not arithmetic of other tests) and
    not contradicted by the write-up's own other figures."""
    by_key = {r.key: r for r in REPORTED}
    return tuple(
        r.key
        for r in REPORTED
        if r.rule == "share" and not r.untested and not _infeasible(r.key, by_key)
    )


def pooled(first5: pd.DataFrame, key: str) -> float:
    if key in RATIOS:
        num, den = RATIOS[key]
        return float(first5[num].sum() / first5[den].sum())
    if key == "poll_calls_per_check_max":
        return float(first5[key].max())
    if key in ("title_caught_body", "cas_replay_new_events"):
        return float(first5[key].sum())
    return float(first5[key].astype(float).mean())


def _infeasible(key: str, by_key: dict[str, Reported]) -> str:
    """A reason when the figure contradicts the write-up's own other figures, else ''."""
    if key not in ("zipf_answers_with_stale_share", "control_answers_with_stale_share"):
        return ""
    return str(_reasons().infeasible(key, 2 * by_key["zipf_stale_share"].value))


LADDER_LABELS = {5: "5 s", 600: "10 min", 3600: "1 h", 14400: "4 h"}


def _reason(key: str, mean: float, reported: float, base: Params, df: pd.DataFrame) -> str:
    """Why a figure is not reproduced: the values its reason names."""
    v: dict[str, object] = {"mean": mean, "higher": mean > reported}
    case = key
    if key == "cas_reject_share" and base.edit_delays_s == tuple(map(float, LADDER_LABELS)):
        v["rates"] = [
            (df[f"cas_reject_share_{d}s"].mean(), label) for d, label in LADDER_LABELS.items()
        ]
    elif key == "cas_human_reject_share_3600s":
        v["every"] = df["cas_reject_share_3600s"].mean()
    elif key == "control_stale_share":
        v["n_saves"] = base.n_saves
        v["per_article"] = base.n_saves / base.n_articles
        v["theory"] = control_form(base)
    elif key == "cas_replay_share":
        v["first_ok"] = 1 - df["cas_reject_share"].mean() - df["cas_gone_share"].mean()
    else:
        case = "other"
    return str(_reasons().not_reproduced(case, v))


def _reasons() -> Any:
    """The reasons' words: templates/comparison_reasons.md.j2's macros."""
    return environment().get_template("comparison_reasons.md.j2").module


def comparison_table(per_seed: pd.DataFrame, base: Params, first5_seeds: list[int]) -> pd.DataFrame:
    df = per_seed
    first5 = df[df["seed"].isin(first5_seeds)]
    by_key = {r.key: r for r in REPORTED}
    forms = closed_forms(base)
    rows = []
    for r in REPORTED:
        values = df[r.key].dropna().astype(float).to_numpy()
        i = normal_interval(values)
        lo5, hi5 = i.range_of(len(first5_seeds))
        ours5 = pooled(first5, r.key)
        judged = judge(r.bounds, values) if r.rule == "share" else {}
        reason = _infeasible(r.key, by_key)
        if r.rule == "share":
            ok = judged["verdict"] == "reproduced"
            early = df[df["seed"] <= HALF_SEEDS][r.key].dropna().astype(float).to_numpy()
            at_150 = judge(r.bounds, early)["verdict"] if len(early) < len(values) else ""
        else:
            ok = {
                "zero": bool(np.all(values == 0)),
                "all": bool(np.all(values == 1)),
                "one": bool(np.all(values <= 1)),
            }[r.rule]
            at_150 = ""
        if reason:
            verdict = "infeasible as reported"
        elif judged.get("verdict") == "undecided":
            verdict = "undecided"
            reason = str(_reasons().undecided())
        else:
            verdict = "reproduced" if ok else "not reproduced"
            reason = "" if ok else _reason(r.key, i.mean, r.value, base, df)
        rows.append(
            {
                "key": r.key,
                "figure": r.figure,
                "reported": r.as_written,
                "reported_value": r.value,
                "band": r.band_text,
                "seeds_1_5": ours5,
                "mean": i.mean,
                "ci_lo": i.lo,
                "ci_hi": i.hi,
                "five_seed_lo": lo5,
                "five_seed_hi": hi5,
                "seeds": i.n,
                "sd": i.sd,
                "z": judged.get("z", np.nan),
                "borderline": bool(judged.get("borderline", False)),
                "alone": judged.get("verdict", ""),
                "verdict_at_150_seeds": at_150,
                "closed_form": forms.get(r.key, np.nan),
                "verdict": verdict,
                "reason": reason,
            }
        )
    analytic = top_share(base.n_articles, base.zipf_s)
    rows.insert(
        0,
        {
            "key": "top10_share_analytic",
            "figure": "top 10 articles' Zipf weight (analytic)",
            "reported": "36.7 %",
            "reported_value": 0.367,
            "seeds_1_5": analytic,
            "mean": analytic,
            "ci_lo": analytic,
            "ci_hi": analytic,
            "five_seed_lo": analytic,
            "five_seed_hi": analytic,
            "band": "",
            "seeds": 0,
            "sd": 0.0,
            "z": 0.0,
            "borderline": False,
            "alone": "",
            "verdict_at_150_seeds": "",
            "closed_form": analytic,
            "verdict": "reproduced" if round(analytic, 3) == 0.367 else "not reproduced",
            "reason": "",
        },
    )
    return pd.DataFrame(rows)
