"""Control variates on the figures table's intervals (results/variance_reduction.csv).

Each seed's day counts its questions and human saves on the ten most popular articles,
whose expectations ``Params`` fixes exactly (``sim.study.reported.control_means``). A
figure measured on the same days moves with them, so regressing its per-seed values on
their deviations narrows its interval at no cost in bias (Nelson 1990; Law & Kelton,
ch. 11; Glasserman § 4.1). The controlled interval is taken only where it is narrower than
the plain one, so no committed interval gets wider. Common random numbers are already in
the rows: every arm and experiment of a seed draws the same questions and saves from the
same streams (``sim.model.schedule``). Antithetic pairs were measured apart
(``sim.study.antithetic``, results/variance/antithetic.csv) and gain no figure surely.
The figures table keeps the plain mean and interval: these controls narrow an interval by
at most a few tenths of a point, and a controlled mean would give a figure a second value
beside the one the per-delay and readings tables quote from the same days.
"""

from __future__ import annotations

import math

import pandas as pd

from sim.pages import md
from sim.params import Params
from sim.popularity import top_share
from sim.report.render import render
from sim.stats import Interval, control_variate_interval, normal_interval
from sim.study import antithetic
from sim.study.reported import RATIOS, REPORTED, control_means


def _controls(key: str, base: Params, per_seed: pd.DataFrame) -> dict[str, float]:
    """The controls of a figure: every known-mean count on its rows but its own numerator
    (whose expectation would hand back the closed form, not a measurement)."""
    own = RATIOS.get(key, ("", ""))[0]
    return {c: m for c, m in control_means(base).items() if c != own and c in per_seed}


def intervals(per_seed: pd.DataFrame, base: Params, key: str) -> tuple[Interval, Interval, str]:
    """A figure's plain interval (as the table had it), its controlled one and the controls
    used ('' where there is nothing to control: no spread, no controls)."""
    controls = _controls(key, base, per_seed)
    d = per_seed[[key, *controls]].dropna()
    y = d[key].astype(float).to_numpy()
    plain = normal_interval(y)
    if not controls or plain.sd == 0 or len(y) <= len(controls) + 2:
        return plain, plain, ""
    c = d[list(controls)].astype(float).to_numpy()
    return plain, control_variate_interval(y, c, list(controls.values())), " + ".join(controls)


def variance_table(per_seed: pd.DataFrame, base: Params) -> pd.DataFrame:
    """Every committed figure interval: plain and controlled half-widths, the variance
    reduction factor (plain variance over the controls' residual variance) and which of the
    two is the narrower (the figures table shows the plain one)."""
    rows = []
    for r in REPORTED:
        if r.key not in per_seed:
            continue
        plain, controlled, used = intervals(per_seed, base, r.key)
        narrower = used and controlled.hi - controlled.lo < plain.hi - plain.lo
        vrf = (plain.sd / controlled.sd) ** 2 if used and controlled.sd > 0 else math.nan
        rows.append(
            {
                "key": r.key,
                "figure": r.figure,
                "seeds": plain.n,
                "controls": used,
                "plain_mean": plain.mean,
                "plain_half_width": (plain.hi - plain.lo) / 2,
                "controlled_mean": controlled.mean if used else math.nan,
                "controlled_half_width": (controlled.hi - controlled.lo) / 2 if used else math.nan,
                "vrf": vrf,
                "narrower": "controlled" if narrower else "plain",
            }
        )
    return pd.DataFrame(rows)


def variance_text(table: pd.DataFrame, base: Params) -> str:
    """Appendix A's note and table: the method, the controls, each figure's half-widths
    before and after and its VRF (templates/variance_note.md.j2)."""
    spread = table[table["controls"] != ""]
    used = spread[spread["narrower"] == "controlled"]
    shown = pd.DataFrame(
        {
            "figure": spread["figure"],
            "seeds": spread["seeds"],
            "controls": spread["controls"].str.replace("_", " "),
            "plain ± (points)": spread["plain_half_width"].map(lambda x: f"{100 * x:.2f}"),
            "controlled ± (points)": spread["controlled_half_width"].map(
                lambda x: f"{100 * x:.2f}"
            ),
            "VRF": spread["vrf"].map(lambda x: f"{x:.2f}"),
            "narrower": spread["narrower"],
        }
    )
    return render(
        "variance_note.md.j2",
        top=top_share(base.n_articles, base.zipf_s),
        rows=spread.to_dict("records"),
        controlled=len(used),
        vrf_lo=f"{used['vrf'].min():.2f}" if len(used) else "–",
        vrf_hi=f"{used['vrf'].max():.2f}" if len(used) else "–",
        most=f"{100 * (used['plain_half_width'] - used['controlled_half_width']).max():.2f}"
        if len(used)
        else "–",
        table=md(shown),
        pairs=antithetic.PAIRS,
    )
