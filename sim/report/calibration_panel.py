"""The calibration's tests on the panel of real logs, for the report: the held-out test of
each log beside the log's own drift over the split (so a miss reads as the model's or the
log's), the transfer test log × log, the initial imports the fits left out, and what volume
all this validates.

Every number comes from `calibration_validation.csv`, `calibration_transfer.csv` and
`calibration_imports.csv` (``sim.calibrate.panel`` makes them); the words are
templates/calibration_panel_text.md.j2's.
"""

from __future__ import annotations

import pandas as pd

from sim.calibrate.drift import DRIFT_LEVEL
from sim.calibrate.stats import STATISTICS
from sim.pages import md
from sim.params import Params
from sim.report.render import num_sized, render
from sim.stats import holm_rejected

CALIBRATED, WRITEUP = "calibrated", "write-up (volume only)"


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
            "real (first two thirds)": num_sized(first["real_train"]),
            "real (last third)": num_sized(first["real"]),
            "drift p": _p(first["drift_p"]) + (" (drifts)" if (log, statistic) in drifts else ""),
        }
        for _, r in g.iterrows():
            if r["process"] == CALIBRATED:
                where = verdict(bool(r["inside"]), (log, statistic) in drifts)
            else:
                where = "inside" if r["inside"] else "**outside**"
            row[r["process"]] = (
                f"{num_sized(r['generated_mean'])} ({num_sized(r['generated_lo'])} – "
                f"{num_sized(r['generated_hi'])}): {where}"
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


def _largest_miss(validation: pd.DataFrame) -> tuple[int, dict[str, object] | None]:
    """The calibrated misses no drift explains, and the one with the largest change of its
    log: 'no drift shown' is the model's miss only as far as the test has power."""
    cal = validation[validation["process"] == CALIBRATED]
    misses = cal[~cal["inside"].astype(bool) & ~_drifts(cal, drifting(validation))]
    if not len(misses):
        return 0, None
    change = (misses["real"] - misses["real_train"]).abs() / misses["real_train"].abs()
    r = misses.loc[change.fillna(-1).idxmax()]
    return len(misses), {**r.to_dict(), "p": _p(r["drift_p"])}


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


def panel_text(t: dict[str, pd.DataFrame]) -> str:
    """The held-out test per log with the drift test, the transfer matrix, the imports and
    the scope, as Markdown (templates/calibration_panel_text.md.j2)."""
    from sim.calibrate.logs import IMPORT_MIN, IMPORT_SHARE

    validation, transfer = t["calibration_validation"], t["calibration_transfer"]
    imports, logs = t["calibration_imports"], list(dict.fromkeys(validation["log"]))
    unexplained, largest = _largest_miss(validation)
    off = transfer[transfer["log"] != transfer["target"]]
    inside = off.groupby(["log", "target"])["inside"].sum()
    own = transfer[transfer["log"] == transfer["target"]]
    own_inside = own.groupby("log")["inside"].sum()
    own = own.drop_duplicates("log")
    base = Params()
    per_day = own["target_saves_per_day"]
    return render(
        "calibration_panel_text.md.j2",
        runs=int(transfer["runs"].iloc[0]),
        permutations=int(validation["permutations"].iloc[0]),
        n_statistics=len(STATISTICS),
        drift_level=DRIFT_LEVEL,
        tally_table=md(tally(validation)),
        validation_table=md(validation_rows(validation)),
        unexplained=unexplained,
        largest_miss=largest,
        transfer_table=md(transfer_matrix(transfer)) if len(off) else "",
        transfer={
            "lo": int(inside.min()) if len(off) else 0,
            "hi": int(inside.max()) if len(off) else 0,
            "own_lo": int(own_inside.min()),
            "own_hi": int(own_inside.max()),
        },
        import_share=IMPORT_SHARE,
        import_min=IMPORT_MIN,
        imports=[r.to_dict() for _, r in imports.iterrows()],
        no_imports=[log for log in logs if log not in set(imports["log"])],
        own_volumes=[r.to_dict() for _, r in own.iterrows()],
        study_saves=base.n_saves,
        day_hours=base.day_s / 3600,
        times_lo=base.n_saves / per_day.max(),
        times_hi=base.n_saves / per_day.min(),
    )
