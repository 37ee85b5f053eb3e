"""The calibration's part of the report: what the real log's edit process looks like, and
whether the fitted process (and the write-up's) reproduces a stretch of the log it never saw.

Every number comes from the calibration's tables (`calibration_*.csv`), which
``sim.calibrate.validate.calibration_outputs`` makes from the packaged log (the fit) and
the panel of logs (the held-out and transfer tests: ``sim.report.calibration_panel``).
"""

from __future__ import annotations

import pandas as pd

from sim.report.calibration_panel import panel_text
from sim.report.markdown import md


def _num(x: float) -> str:
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def _fit_rows(fit: pd.DataFrame) -> pd.DataFrame:
    fit = fit[~fit["quantity"].str.startswith("hour ")]  # the 24 hours: in the CSV and figure
    return pd.DataFrame(
        {
            "quantity": fit["quantity"],
            "estimate": [_num(x) for x in fit["estimate"]],
            "95 % CI": [
                f"{_num(lo)} – {_num(hi)}"
                for lo, hi in zip(fit["ci_low"], fit["ci_high"], strict=True)
            ],
            "bootstrap resamples": fit["resampled"],
        }
    )


BOUND_FIGURES = ("stale_share", "title_caught_share", "poll_calls", "cas_reject_3600s")
"""The answers' figures whose move the burst gap's bound is given for."""


def burst_gap_bound(burst: pd.DataFrame, realshape: pd.DataFrame | None) -> str:
    """What the gap between the log's B and the calibrated process's could do to the
    conclusions, bounded by the ablation's + bursts arm: that arm takes B from the write-up's
    level to the calibrated one's, and the rest of the gap is a fraction of that step."""
    if realshape is None or "diff_ci_lo" not in realshape:
        return ""
    from sim.report.realshape import FIGURES, SHARED_LOG, SHARES

    b = burst[burst["coefficient"] == "B"].set_index("source")["estimate"]
    step = b["calibrated"] - b["write-up (volume only)"]
    gap = b["log"] - b["calibrated"]
    if not step > 0 or not gap > 0:
        return ""
    arm = realshape[realshape["arm"] == "+bursts"]
    if "log" in arm:
        arm = arm[arm["log"] == SHARED_LOG]
    arm = arm.set_index("figure")
    scale = gap / step
    bounds = []
    for f in BOUND_FIGURES:
        if f in arm.index:
            r = arm.loc[f]
            far = max(abs(r["diff_ci_lo"]), abs(r["diff_ci_hi"])) * scale
            value, unit = (100 * far, "pt") if f in SHARES else (far, "calls a day")
            bounds.append(f"{FIGURES[f]} {value:.1f} {unit}")
    if not bounds:
        return ""
    return (
        " What the rest of the gap could do: the ablation's *+ bursts* arm (Appendix C)"
        " switches the fitted bursts on alone; with them B is"
        f" {_num(b['calibrated'])} against the write-up's {_num(b['write-up (volume only)'])},"
        f" and the log's {_num(b['log'])} lies another {scale:.2f} of that step beyond. If a"
        " figure's move grows in proportion to B (an assumption, not a run), closing"
        " the gap moves it by at most the far end of that arm's 95 % interval times"
        f" {scale:.2f}: {'; '.join(bounds)}."
    )


def calibration_text(t: dict[str, pd.DataFrame]) -> str:
    """The subsection: the fit with its intervals, the goodness of fit, the burst
    coefficients, and the held-out and transfer tests on the panel."""
    if "calibration_fit" not in t:
        return ""
    fit, gof = t["calibration_fit"], t["calibration_gof"]
    burst = t["calibration_burstiness"]
    chosen = gof[gof["chosen"].astype(bool)].iloc[0]
    zipf = gof[gof["family"] == "zipf"].iloc[0]
    s = fit[fit["quantity"] == "zipf s"].iloc[0]
    log_b = burst[(burst["source"] == "log") & (burst["coefficient"] == "B")].iloc[0]
    log_m = burst[(burst["source"] == "log") & (burst["coefficient"] == "M")].iloc[0]
    cal = burst[burst["source"] == "calibrated"].set_index("coefficient")
    missed = [
        name
        for name, real in (("B", log_b["estimate"]), ("M", log_m["estimate"]))
        if not cal.loc[name, "ci_low"] <= real <= cal.loc[name, "ci_high"]
    ]
    burst_verdict = (
        "the calibrated process's range holds the log's B and M"
        if not missed
        else f"the calibrated process's range does not hold the log's {' and '.join(missed)}: "
        "its bursts are milder and less correlated than the log's, though far closer than "
        "the write-up's process"
    )
    fits_badly = [
        name
        for name, r in (("Zipf", zipf), (chosen["family"].replace("_", "–"), chosen))
        if r["p_value"] < 0.05
    ]
    law_verdict = (
        f"both laws are rejected at 5 % ({', '.join(fits_badly)}), so the popularity law is "
        "the better of two imperfect fits"
        if len(set(fits_badly)) > 1
        else ""
    )
    burst_rows = pd.DataFrame(
        {
            "process": burst["source"],
            "coefficient": burst["coefficient"],
            "estimate": [_num(x) for x in burst["estimate"]],
            "95 % range": [
                f"{_num(lo)} – {_num(hi)}"
                for lo, hi in zip(burst["ci_low"], burst["ci_high"], strict=True)
            ],
        }
    )
    return f"""### The calibration: the real log's edit process

`python -m sim calibrate` fits the packaged log (`calibration_fit.csv`; 95 % bootstrap
intervals, resampling whole articles, publishes or sittings as the table says; the share of
each hour of the day is in the CSV and the figure):

{md(_fit_rows(fit))}

Edit popularity: a discrete Zipf law fitted by maximum likelihood has s = {_num(s["estimate"])}
({_num(s["ci_low"])} – {_num(s["ci_high"])}), Kolmogorov–Smirnov distance
{zipf["ks_distance"]:.3f} (p = {zipf["p_value"]:.3f} by simulation from the fit); the process
uses the {chosen["family"].replace("_", "–")} law
(AIC {chosen["aic"]:,.0f} against Zipf's {zipf["aic"]:,.0f}; KS p = {chosen["p_value"]:.3f}),
`calibration_gof.csv`{"; " + law_verdict if law_verdict else ""}. Burstiness B and memory M
(Goh and Barabási) of an article's re-save gaps, in the log and in runs of each process over
the log's span (`calibration_burstiness.csv`):

{md(burst_rows)}

Here {burst_verdict}.{burst_gap_bound(burst, t.get("realshape")) if missed else ""}

{panel_text(t)}

![the log against the two processes](calibration.png)
"""
