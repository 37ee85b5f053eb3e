"""The calibration's part of the report: what the real log's edit process looks like, and
whether the fitted process (and the write-up's) reproduces a stretch of the log it never saw.

Every number comes from the calibration's tables (`calibration_*.csv`), which
``sim.calibrate.validate.calibration_outputs`` makes from the packaged log.
"""

from __future__ import annotations

import pandas as pd

from sim.params import Params
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


def _validation_rows(validation: pd.DataFrame) -> pd.DataFrame:
    wide = []
    for statistic, g in validation.groupby("statistic", sort=False):
        row = {"statistic": statistic}
        if "real_train" in g:
            row["real (first two thirds)"] = _num(g["real_train"].iloc[0])
        row["real (last third)"] = _num(g["real"].iloc[0])
        for _, r in g.iterrows():
            where = "inside" if r["inside"] else "**outside**"
            row[r["process"]] = (
                f"{_num(r['generated_mean'])} ({_num(r['generated_lo'])} – "
                f"{_num(r['generated_hi'])}): {where}"
            )
        wide.append(row)
    return pd.DataFrame(wide)


def _validation_scope(fit: pd.DataFrame) -> str:
    """What the held-out test does and does not validate, with the two volumes."""
    per_day = fit.loc[fit["quantity"] == "saves per day", "estimate"]
    base = Params()
    volume = (
        f"about {per_day.iloc[0]:.1f} saves a day, while the study's day holds "
        f"{base.n_saves} saves in {base.day_s / 3600:g} hours"
        if len(per_day)
        else "its own volume, not the study's"
    )
    return (
        "What this validates: the fitted process, run forward in time on data it was not "
        f"fitted to, at the log's own volume ({volume}). The statistics compared are those "
        "the fit is built to reproduce, so the test shows the fit holds out of sample in "
        "time; it does not show that the process holds at the study's volume (where bursts "
        "and bulk publishes land on a far busier day) or for statistics it was not fitted to."
    )


def calibration_text(t: dict[str, pd.DataFrame]) -> str:
    """The subsection: the fit with its intervals, the goodness of fit, the burst
    coefficients, and the held-out validation of both processes."""
    if "calibration_fit" not in t:
        return ""
    fit, gof = t["calibration_fit"], t["calibration_gof"]
    burst, validation = t["calibration_burstiness"], t["calibration_validation"]
    chosen = gof[gof["chosen"].astype(bool)].iloc[0]
    zipf = gof[gof["family"] == "zipf"].iloc[0]
    s = fit[fit["quantity"] == "zipf s"].iloc[0]
    inside = validation.groupby("process", sort=False)["inside"].agg(["sum", "size"])
    verdicts = "; ".join(
        f"{process}: inside on {int(r['sum'])} of {int(r['size'])}"
        for process, r in inside.iterrows()
    )
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

Here {burst_verdict}.

Held out: the process fitted on the log's first two thirds generates the last third's span
many times, and each statistic of the real last third is inside or outside the generated
runs' 95 % range (the runs hold every article the log has shown by its end; the first two
thirds' own figure beside it shows how far the log itself drifts over the split, which the
test also measures); the write-up's process gets the same test with only its volume fitted
(`calibration_validation.csv`; {verdicts}):

{md(_validation_rows(validation))}

{_validation_scope(fit)}

![the log against the two processes](calibration.png)
"""
