"""The calibration's part of the report: what the real log's edit process looks like, and
whether the fitted process (and the write-up's) reproduces a stretch of the log it never saw.

Every number comes from the calibration's tables (`calibration_*.csv`), which
``sim.calibrate.panel.calibration_outputs`` makes from the packaged log (the fit) and
the panel of logs (the held-out and transfer tests: ``sim.report.calibration_panel``).
"""

from __future__ import annotations

import pandas as pd

from sim.pages import md
from sim.report.calibration_panel import panel_text


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
"""The answers' figures whose move under the log's burstiness is given."""


def burst_gap_bound(burst: pd.DataFrame, realshape: pd.DataFrame | None) -> str:
    """What the gap between the log's B and the calibrated process's does to the answers,
    from the panel's burst arm (the calibrated shape with its sessions stretched, compared
    seed by seed with the calibrated shape): a run, not an assumption."""
    if realshape is None or "diff_ci_lo" not in realshape:
        return ""
    from sim.study.realshape import BURST_ARM, FIGURES, SHARED_LOG, SHARES

    arm = realshape[realshape["arm"] == BURST_ARM]
    b = burst[burst["coefficient"] == "B"].set_index("source")
    stretched = [p for p in b.index if p.startswith("calibrated, sessions ×")]
    if arm.empty or not stretched:
        return ""
    if "log" in arm:
        arm = arm[arm["log"] == SHARED_LOG]
    arm = arm.set_index("figure")
    moves = []
    for f in BOUND_FIGURES:
        if f in arm.index:
            r = arm.loc[f]
            scale, unit = (100, " pt") if f in SHARES else (1, " calls a day")
            moves.append(
                f"{FIGURES[f]} {scale * r['diff_mean']:+.1f}{unit} "
                f"({scale * r['diff_ci_lo']:+.1f} – {scale * r['diff_ci_hi']:+.1f})"
            )
    if not moves:
        return ""
    s, log = b.loc[stretched[0]], b.loc["log"]
    seeds = int(arm["seeds"].max())
    return (
        f" The real-shape panel runs that gap instead of bounding it: with its editing"
        f" sessions' re-saves stretched by a factor fitted to the log's B"
        f" ({stretched[0].split(', ')[1]}), the calibrated process generates B"
        f" {_num(s['estimate'])} ({_num(s['ci_low'])} –"
        f" {_num(s['ci_high'])} over the runs above) against the log's"
        f" {_num(log['estimate'])} ({_num(log['ci_low'])} – {_num(log['ci_high'])}). Against"
        f" the calibrated shape on this log, seed by seed ({seeds} seeds), that arm moves"
        f" {'; '.join(moves)} (95 % intervals; the other logs and the moves at equal day"
        f" volume: Appendix C, What the fit's misses do)."
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
each hour of the day is in the CSV and the figure; burstiness B and memory M are defined
below the table):

{md(_fit_rows(fit))}

Edit popularity: a discrete Zipf law fitted by maximum likelihood has s = {_num(s["estimate"])}
({_num(s["ci_low"])} – {_num(s["ci_high"])}), Kolmogorov–Smirnov distance
{zipf["ks_distance"]:.3f} (p = {zipf["p_value"]:.3f} by simulation from the fit); the process
uses the {chosen["family"].replace("_", "–")} law
(AIC {chosen["aic"]:,.0f} against Zipf's {zipf["aic"]:,.0f}; KS p = {chosen["p_value"]:.3f}),
`calibration_gof.csv`{"; " + law_verdict if law_verdict else ""}. Burstiness B and memory M
(Goh and Barabási) of an article's re-save gaps, in the log and in runs of each process over
the log's span (`calibration_burstiness.csv`). B is the gaps' spread against their mean,
(SD − mean) / (SD + mean): 0 for saves at random, towards 1 for bursts, −1 for a clock; M
is the correlation of each gap with the next, above 0 when long gaps follow long ones; both
per article, averaged over the articles with at least 10 gaps:

{md(burst_rows)}

Here {burst_verdict}.{burst_gap_bound(burst, t.get("realshape")) if missed else ""}

{panel_text(t)}

![the log against the two processes](calibration.png)
"""
