"""The calibration's part of the report: what the real log's edit process looks like, and
whether the fitted process (and the write-up's) reproduces a stretch of the log it never saw.

Every number comes from the calibration's tables (`calibration_*.csv`), which
``sim.calibrate.panel.calibration_outputs`` makes from the packaged log (the fit) and
the panel of logs (the held-out and transfer tests: ``sim.report.calibration_panel``).
The words are templates/calibration_text.md.j2's and calibration_burst_gap.md.j2's.
"""

from __future__ import annotations

import pandas as pd

from sim.pages import md
from sim.report.calibration_panel import panel_text
from sim.report.render import num_sized, render


def _fit_rows(fit: pd.DataFrame) -> pd.DataFrame:
    fit = fit[~fit["quantity"].str.startswith("hour ")]  # the 24 hours: in the CSV and figure
    return pd.DataFrame(
        {
            "quantity": fit["quantity"],
            "estimate": [num_sized(x) for x in fit["estimate"]],
            "95 % CI": [
                f"{num_sized(lo)} – {num_sized(hi)}"
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
                {
                    "figure": FIGURES[f],
                    "unit": unit,
                    **{k: scale * r[f"diff_{k}"] for k in ("mean", "ci_lo", "ci_hi")},
                }
            )
    if not moves:
        return ""
    return render(
        "calibration_burst_gap.md.j2",
        factor=stretched[0].split(", ")[1],
        stretched=b.loc[stretched[0]].to_dict(),
        log=b.loc["log"].to_dict(),
        seeds=int(arm["seeds"].max()),
        moves=moves,
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
    fits_badly = [
        name
        for name, r in (("Zipf", zipf), (chosen["family"].replace("_", "–"), chosen))
        if r["p_value"] < 0.05
    ]
    burst_rows = pd.DataFrame(
        {
            "process": burst["source"],
            "coefficient": burst["coefficient"],
            "estimate": [num_sized(x) for x in burst["estimate"]],
            "95 % range": [
                f"{num_sized(lo)} – {num_sized(hi)}"
                for lo, hi in zip(burst["ci_low"], burst["ci_high"], strict=True)
            ],
        }
    )
    return render(
        "calibration_text.md.j2",
        fit_table=md(_fit_rows(fit)),
        s=s.to_dict(),
        zipf=zipf.to_dict(),
        chosen=chosen.to_dict(),
        law=chosen["family"].replace("_", "–"),
        rejected=fits_badly,
        both_rejected=len(set(fits_badly)) > 1,
        missed=missed,
        burst_gap=burst_gap_bound(burst, t.get("realshape")) if missed else "",
        burst_table=md(burst_rows),
        panel=panel_text(t),
    )
