"""Digests of everything a CPU's vector kernels could move, printed as JSON: run by
test_cpu_levels.py once under each CPU feature level numpy offers on the machine.

- the schedule draw (the write-up's day, its late/Poisson/two-peak variant, and the
  calibrated process with each feature alone and all together);
- the calibration fit of the bundled log with its bootstrap and goodness-of-fit sims;
- one seed of every experiment (the break-even grid on its smallest point) and every
  real-shape arm, as the per-seed rows files `make reproduce` writes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace

import numpy as np

from sim import rng, seedrows
from sim.calibrate.fit import fit
from sim.calibrate.generate import FEATURES
from sim.calibrate.logs import BUNDLED, read_log
from sim.environment import cpu_features
from sim.experiments import run_all
from sim.model.schedule import draw_schedule
from sim.params import Params
from sim.report import breakeven, realshape

SCHEDULE_FIELDS = (
    "question_rank",
    "question_w",
    "save_w",
    "question_s",
    "question_targets",
    "save_s",
    "save_targets",
    "save_kinds",
    "save_uniforms",
)


def _hash(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.hexdigest()[:16]


def schedules() -> dict[str, str]:
    shape = realshape.packaged_shape()
    late = replace(Params(), agent_edits=True, humans_after_day_end=True, arrivals="poisson")
    points = {
        "default": Params(),
        "late_poisson": late,
        "two_peaks": replace(late, day_profile="two_peaks"),
    }
    for features in [(f,) for f in FEATURES] + [tuple(FEATURES)]:
        points["calibrated_" + "+".join(features)] = replace(
            Params(), save_process="calibrated", edit_shape=shape, shape_features=features
        )
    out = {}
    for name, p in points.items():
        for seed in (1, 2):
            s = draw_schedule(p, rng.streams(seed))
            arrays = [np.ascontiguousarray(getattr(s, f)).tobytes() for f in SCHEDULE_FIELDS]
            out[f"{name}/{seed}"] = _hash(*arrays, str(s.day_saves).encode())
    return out


def calibration(boot: int) -> dict[str, str]:
    f = fit(read_log(BUNDLED), boot=boot, gof_sims=boot)
    return {
        "shape": _hash(f.shape.to_json().encode()),
        "table": _hash(f.table.to_csv(index=False).encode()),
    }


def days() -> dict[str, str]:
    base = Params()
    out = {}
    for e in seedrows.EXPERIMENTS:
        if e.name == "break_even":
            axes = {k: v[:1] for k, v in breakeven.AXES.items()}
            request = breakeven.break_even_request(base, axes, [1])
            rows = {
                "break_even": breakeven.break_even_rows(request, run_all([request], 1, False)[0])
            }
        elif e.name == "calibration":
            continue  # its fit is calibration() above
        else:
            rows = e.run(base, [1], 1, False)
        for part, frame in rows.items():
            out[part] = _hash(seedrows.to_csv(frame).encode())
    return out


def main() -> None:
    boot = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print(
        json.dumps(
            {
                "cpu": cpu_features(),
                "schedules": schedules(),
                "calibration": calibration(boot),
                "days": days(),
            }
        )
    )


if __name__ == "__main__":
    main()
