"""The held-out validation on every log of the panel, with each log's own drift over the
split, and the transfer test across it: a shape fitted on one log predicting another.

Transfer: the shape fitted on log A's first two thirds generates log B's last third -- B's
volume (fitted on B's first two thirds, as B's own held-out runs have it), B's article
count, B's window and week offset -- and B's real statistics are compared with the runs'
95 % ranges, the criterion of the held-out test. Only the calibrated process is
transferred: the write-up's takes nothing from a log but its volume, so its runs at B's
volume are B's own held-out runs. The diagonal (A = B) is the held-out test itself, the
same runs on the same seeds. Cost: runs × logs × (logs − 1) new runs of a last third
(200 × 3 × 2 = 1,200 at the study's size; the diagonal reuses the held-out runs), each a
few milliseconds, so a cell gets as many runs as the held-out test: no fewer are needed.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, PANEL, initial_imports, read_log
from sim.calibrate.validate import (
    Split,
    burstiness_table,
    compare,
    gof_table,
    held_out_rows,
    replicate,
    split_log,
)


def panel_tables(
    panel: dict[str, Path] | None = None, reps: int = 200, seed: int = 1, gof_sims: int = 200
) -> dict[str, pd.DataFrame]:
    """validation (every log's held-out rows, with its drift p-values), transfer (log ×
    target, the calibrated process) and imports (each log's initial imports left out of
    its fit's mix and profile), the first column of each the log's name."""
    logs = panel or PANEL
    splits = {name: split_log(read_log(path), seed, gof_sims) for name, path in logs.items()}
    validation = pd.concat(
        [held_out_rows(sp, reps, seed).assign(log=name) for name, sp in splits.items()],
        ignore_index=True,
    )
    return {
        "validation": _log_first(validation),
        "transfer": transfer(splits, validation, reps, seed),
        "imports": imports(splits),
    }


def transfer(
    splits: dict[str, Split], validation: pd.DataFrame, reps: int, seed: int
) -> pd.DataFrame:
    """Rows per fitted log × target log × statistic (the calibrated process)."""
    own = validation[validation["process"] == "calibrated"]
    rows = []
    for name, sp in splits.items():
        for target, tp in splits.items():
            if target == name:
                got = own[own["log"] == name].drop(columns=["process", "real_train"])
                got = got.drop(columns=["drift_p", "permutations", "log"]).to_dict("records")
            else:
                [rep] = replicate(
                    sp.fit,
                    tp.log.n_articles,
                    tp.span_s,
                    tp.start_s,
                    reps,
                    seed,
                    saves_per_day=tp.fit.shape.log_saves_per_day,
                    processes=("calibrated",),
                )
                got = compare(tp.real, rep)
            volume = {"target_saves_per_day": tp.fit.shape.log_saves_per_day, "runs": reps}
            rows += [{"log": name, "target": target} | r | volume for r in got]
    return pd.DataFrame(rows)


def imports(splits: dict[str, Split]) -> pd.DataFrame:
    """Each log's initial imports, which its fit (`python -m sim calibrate`, the real-shape
    panel's shapes) leaves out of the mix and the profile; the held-out fit of its first two
    thirds applies the same rule to that part."""
    rows = [
        {
            "log": name,
            "publish": imp.publish,
            "time": f"{pd.Timestamp(imp.epoch_s, unit='s'):%Y-%m-%dT%H:%M:%SZ}",
            "articles_added": imp.added,
            "saves_left_out": imp.saves,
        }
        for name, sp in splits.items()
        for imp in initial_imports(sp.log)
    ]
    columns = ["log", "publish", "time", "articles_added", "saves_left_out"]
    return pd.DataFrame(rows, columns=columns)


def _log_first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["log", *[c for c in frame.columns if c != "log"]]]


def calibration_outputs(
    log_path: str | Path | None = None,
    reps: int = 200,
    boot: int = 200,
    seed: int = 1,
    panel: dict[str, Path] | None = None,
) -> dict[str, pd.DataFrame]:
    """What `make reproduce` commits of the calibration: tables (fit, gof, burstiness of a
    log, default the bundled help-centre log; the validation, transfer and imports of every
    log of the panel). Its figure is drawn with the other figures, from the fit's point
    estimates (``sim.results.figtable``), not here: the rows' run would only throw it away."""
    log = read_log(log_path or BUNDLED)
    f = fit(log, boot=boot, gof_sims=boot, seed=seed)
    return {
        "fit": f.table,
        "gof": gof_table(f),
        "burstiness": burstiness_table(log, f, max(2, reps // 4), seed),
        **panel_tables(panel, reps, seed, gof_sims=boot),
    }
