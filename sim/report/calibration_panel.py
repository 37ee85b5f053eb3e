"""The calibration's tests on the panel of real logs, for the report: the held-out test of
each log beside the log's own drift over the split (so a miss reads as the model's or the
log's), the transfer test log × log, the initial imports the fits left out, and what volume
all this validates.

Every number comes from `calibration_validation.csv`, `calibration_transfer.csv` and
`calibration_imports.csv` (``sim.calibrate.panel`` makes them).
"""

from __future__ import annotations

import pandas as pd

from sim.calibrate.drift import DRIFT_LEVEL
from sim.calibrate.stats import STATISTICS
from sim.params import Params
from sim.report.markdown import md
from sim.stats import holm_rejected

CALIBRATED, WRITEUP = "calibrated", "write-up (volume only)"


def num(x: float) -> str:
    if pd.isna(x):
        return "n/a"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def _p(p: float) -> str:
    return "n/a" if pd.isna(p) else f"{p:.3f}"


def verdict(inside: bool, drifts: bool) -> str:
    """A held-out miss is the log's when the log drifts over the split, else the model's."""
    if inside:
        return "inside"
    if drifts:
        return "**outside**; the log drifts"
    return "**outside**; no drift shown: the model's miss"


def drifting(validation: pd.DataFrame) -> set[tuple[str, str]]:
    """(log, statistic) pairs whose log drifts over the split: Holm's step-down over each
    log's statistics at DRIFT_LEVEL, so a stationary log shows drift in any of its eight
    with probability at most DRIFT_LEVEL (uncorrected, about 0.4 of them would)."""
    cal = validation[(validation["process"] == CALIBRATED) & validation["drift_p"].notna()]
    return {
        (log, statistic)
        for log, g in cal.groupby("log", sort=False)
        for statistic in holm_rejected(
            dict(zip(g["statistic"], g["drift_p"], strict=True)), DRIFT_LEVEL
        )
    }


def _drifts(rows: pd.DataFrame, pairs: set[tuple[str, str]]) -> pd.Series:
    """For each row, whether its (log, statistic) is among ``pairs``."""
    pairs_of = zip(rows["log"], rows["statistic"], strict=True)
    return pd.Series([pair in pairs for pair in pairs_of], index=rows.index, dtype=bool)


def validation_rows(validation: pd.DataFrame) -> pd.DataFrame:
    """One row per log and statistic: the real figures, the drift p, each process's range."""
    wide, drifts = [], drifting(validation)
    for (log, statistic), g in validation.groupby(["log", "statistic"], sort=False):
        first = g.iloc[0]
        row = {
            "log": log,
            "statistic": statistic,
            "real (first two thirds)": num(first["real_train"]),
            "real (last third)": num(first["real"]),
            "drift p": _p(first["drift_p"]) + (" (drifts)" if (log, statistic) in drifts else ""),
        }
        for _, r in g.iterrows():
            if r["process"] == CALIBRATED:
                where = verdict(bool(r["inside"]), (log, statistic) in drifts)
            else:
                where = "inside" if r["inside"] else "**outside**"
            row[r["process"]] = (
                f"{num(r['generated_mean'])} ({num(r['generated_lo'])} – "
                f"{num(r['generated_hi'])}): {where}"
            )
        wide.append(row)
    return pd.DataFrame(wide)


def tally(validation: pd.DataFrame) -> pd.DataFrame:
    """Per log: statistics inside for each process; the calibrated misses split by drift."""
    rows, drifting_pairs = [], drifting(validation)
    for log, g in validation.groupby("log", sort=False):
        cal, wu = g[g["process"] == CALIBRATED], g[g["process"] == WRITEUP]
        missed = cal[~cal["inside"].astype(bool)]
        drifts = _drifts(missed, drifting_pairs)
        stationary = int((~_drifts(cal, drifting_pairs) & cal["drift_p"].notna()).sum())
        rows.append(
            {
                "log": log,
                "calibrated inside": f"{int(cal['inside'].sum())} of {len(cal)}",
                "write-up's inside": f"{int(wu['inside'].sum())} of {len(wu)}",
                "statistics the log holds (no drift shown)": f"{stationary} of {len(cal)}",
                "calibrated misses where the log drifts": int(drifts.sum()),
                "calibrated misses with no drift shown": int((~drifts).sum()),
            }
        )
    return pd.DataFrame(rows)


def unexplained(validation: pd.DataFrame) -> str:
    """The calibrated misses no drift explains, and the largest change of the log among
    them: 'no drift shown' is the model's miss only as far as the test has power."""
    cal = validation[validation["process"] == CALIBRATED]
    misses = cal[~cal["inside"].astype(bool) & ~_drifts(cal, drifting(validation))]
    if not len(misses):
        return "Every miss of the calibrated process is on a statistic whose log drifts."
    change = (misses["real"] - misses["real_train"]).abs() / misses["real_train"].abs()
    r = misses.loc[change.fillna(-1).idxmax()]
    return (
        f"The {len(misses)} misses with no drift shown are the model's, as far as the test can "
        "tell, and it can miss a change carried by a few weeks' saves: the largest change of a log "
        f"among them is {r['log']}'s {r['statistic']}, {num(r['real_train'])} in the first two "
        f"thirds and {num(r['real'])} in the last (drift p = {_p(r['drift_p'])})."
    )


def transfer_matrix(transfer: pd.DataFrame) -> pd.DataFrame:
    """Fitted log (rows) × predicted log (columns): statistics inside, of 8."""
    logs = list(dict.fromkeys(transfer["log"]))
    rows = []
    for log in logs:
        row = {"shape fitted on ↓, predicting →": log}
        for target in logs:
            g = transfer[(transfer["log"] == log) & (transfer["target"] == target)]
            cell = f"{int(g['inside'].sum())} of {len(g)}"
            row[target] = f"{cell} (held out)" if log == target else cell
        rows.append(row)
    return pd.DataFrame(rows)


def _imports_text(imports: pd.DataFrame, logs: list[str]) -> str:
    from sim.calibrate.logs import IMPORT_MIN, IMPORT_SHARE

    rule = (
        f"a publish that adds at least {IMPORT_SHARE * 100:.0f} % of the log's articles, and"
        f" {IMPORT_MIN} or more, is an initial import (the help centre being filled, not"
        " edited): its saves are left out of the fitted mix and its sessions out of the hour"
        " and weekday profile; it still counts in the volume, the sessions and the bulk sizes"
    )
    found = [
        f"{r['log']}, publish {r['publish']} on {r['time'][:10]} ({r['articles_added']} articles"
        f" added, {r['saves_left_out']} saves left out)"
        for _, r in imports.iterrows()
    ]
    none = [log for log in logs if log not in set(imports["log"])]
    text = f"Initial imports (`calibration_imports.csv`; the rule: {rule}): "
    text += "; ".join(found) if found else "none in the panel"
    if found and none:
        text += f"; none in {', '.join(none)}"
    return text + "."


def volume_scope(transfer: pd.DataFrame) -> str:
    """Plainly: the process is validated at the logs' volumes, not at the study's."""
    base = Params()
    own = transfer[transfer["log"] == transfer["target"]].drop_duplicates("log")
    per_day = own["target_saves_per_day"]
    study = base.n_saves
    lo, hi = study / per_day.max(), study / per_day.min()
    volumes = ", ".join(f"{r['log']} {num(r['target_saves_per_day'])}" for _, r in own.iterrows())
    return (
        "**Not validated at the study's volume.** Every test above runs at a log's own volume "
        f"(saves a day fitted on its first two thirds: {volumes}); the study's day holds "
        f"{study} saves in {base.day_s / 3600:g} hours, {lo:,.0f} to {hi:,.0f} times as many "
        "saves a day. No log of the panel is that busy, so nothing here tests how the fitted "
        "bursts, sittings and bulk publishes behave on such a day; what is validated is the "
        "fitted process run forward in time at a log's own volume, on the statistics it is "
        "built to reproduce, and how far a shape carries from one help centre to another."
    )


def transfer_text(transfer: pd.DataFrame) -> str:
    """The transfer matrix with its range, or why there is none."""
    off = transfer[transfer["log"] != transfer["target"]]
    if not len(off):
        return "Transfer: the panel holds one log: nothing to transfer."
    inside = off.groupby(["log", "target"])["inside"].sum()
    own = transfer[transfer["log"] == transfer["target"]].groupby("log")["inside"].sum()
    n = len(STATISTICS)
    return f"""Transfer: the shape fitted on one log's first two thirds generates another log's
last third at that log's volume and article count, {int(transfer["runs"].iloc[0])} runs a
cell, judged by the same criterion (the calibrated process only: the write-up's takes
nothing from a log but its volume; `calibration_transfer.csv`). A shape reproduces
{int(inside.min())} to {int(inside.max())} of {n} statistics of another log, against
{int(own.min())} to {int(own.max())} of its own:

{md(transfer_matrix(transfer))}"""


def panel_text(t: dict[str, pd.DataFrame]) -> str:
    """The held-out test per log with the drift test, the transfer matrix, the imports and
    the scope, as Markdown."""
    validation, transfer = t["calibration_validation"], t["calibration_transfer"]
    logs = list(dict.fromkeys(validation["log"]))
    perms = int(validation["permutations"].iloc[0])
    runs = int(transfer["runs"].iloc[0])
    n = len(STATISTICS)
    return f"""Held out, on every log of the panel: the process fitted on a log's first two thirds
(by time) generates its last third {runs} times, at the volume fitted on the first two
thirds and with every article the log has shown by its end, and each statistic of the real
last third is inside or outside the runs' 95 % range; the write-up's process gets the same
test with only its volume fitted. A miss says the model failed only if the log itself held
still: beside each statistic, the log's own drift over the split, a two-sided permutation
test of (last third − first two thirds) whose null is "no drift", the log's weeks dealt at
random to the two periods in the same numbers ({perms:,} dealings; weeks, because a log's
saves come in sessions and bursts that a test on single saves would count as independent;
drift where Holm's step-down over each log's {n} statistics rejects "no drift" at
{DRIFT_LEVEL}, so a log that holds still is called drifting on any of them at most 1 time in
{1 / DRIFT_LEVEL:.0f}; the p-values shown are uncorrected)
(`calibration_validation.csv`):

{md(tally(validation))}

{md(validation_rows(validation))}

{unexplained(validation)}

{transfer_text(transfer)}

{_imports_text(t["calibration_imports"], logs)}

{volume_scope(transfer)}"""
