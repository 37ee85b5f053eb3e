"""Digests of everything a CPU's vector kernels could move, printed as JSON: run by
test_cpu_levels.py once under each CPU feature level numpy offers on the machine.

- the schedule draw (the write-up's day, its late/Poisson/two-peak variant, and the
  calibrated process with each feature alone and all together);
- the calibration fit of the bundled log with its bootstrap and goodness-of-fit sims;
- one seed of every experiment (the break-even grid on its smallest point, the map's on
  three of its points, the exposure day on two of its intervals; of a request with many
  points, the first, the middle and the last, the real-shape arms included: each
  feature's schedule is digested above), as the records its days give.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace

import numpy as np

from sim import rng
from sim.advise.choice import advised_choice
from sim.calibrate.fit import fit
from sim.calibrate.generate import FEATURES
from sim.calibrate.logs import BUNDLED, read_log
from sim.calibrate.shape import EditShape
from sim.environment import cpu_features
from sim.model.schedule import DaySchedule, draw_schedule
from sim.params import Params
from sim.results import seedrows
from sim.study import breakeven, realshape
from sim.study.experiments import Request, run_all
from sim.study.exposure import EXPOSURE_RECORDS
from sim.studymap import grid as map_grid

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


def schedules(shape: EditShape) -> dict[str, str]:
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
    points["trace"] = _trace_params()
    return {
        f"{name}/{seed}": schedule_digest(draw_schedule(p, rng.streams(seed), seed))
        for name, p in points.items()
        for seed in (1, 2, 100_001)
    }


def _trace_params() -> Params:
    """The shared help-centre log replayed on its own articles (sim.calibrate.trace)."""
    from sim.advise.tracedays import log_history
    from sim.calibrate.logs import BUNDLED

    t = log_history(BUNDLED)
    return replace(
        Params(), n_articles=t.n_articles, save_process="trace", save_trace=t, n_saves=1.0
    )


def schedule_digest(s: DaySchedule) -> str:
    """A day's schedule: its draws and weights, byte for byte (test_calibrated_process holds
    the default days' digests to those drawn before the calibrated process existed)."""
    arrays = [np.ascontiguousarray(getattr(s, f)).tobytes() for f in SCHEDULE_FIELDS]
    return _hash(*arrays, str(s.day_saves).encode())


def calibration(boot: int) -> tuple[dict[str, str], EditShape]:
    """The fit's digests, and its shape (which the schedules and the real-shape arms use:
    the packaged fit's 200 goodness-of-fit simulations would cost seconds a level)."""
    f = fit(read_log(BUNDLED), boot=boot, gof_sims=boot)
    digests = {
        "shape": _hash(f.shape.to_json().encode()),
        "table": _hash(f.table.to_csv(index=False).encode()),
    }
    return digests, f.shape


SMALL = Params(n_articles=60, n_questions=20, n_saves=40)
"""The day the probe runs: every code path of the study's, at a sixth of its size. Every
kind of record each experiment gives is still there (a day at a third of the size gave
none that this one lacks), and its arrays of articles, questions and saves are longer than
the widest vector (8 doubles), so numpy's vector loops run on them as at full size; the
schedules above are digested at the default size, the map's days at its own save counts.
A sixth, not a third, took 40 % off the days' CPU at each level."""


MAP_SAVES: map_grid.Saves = {"same": (3, 300), "independent": (300,)}
"""The map's points the probe runs: its quietest, and a busy one of each relation (the
grid's 3,000-save day takes the same paths as its 300-save one, for a fifth of a level's
CPU)."""


EXPOSURE_DAY = replace(SMALL, push=True, sweep_intervals_s=(240.0, 3600.0))
"""The exposure day (push and the swept methods beside the hourly checker) on two of its
intervals, which share the hour's checks: the sweep's other intervals take the same paths,
the 1-minute one for half a level's CPU."""


def _sample(points: tuple[Params, ...]) -> tuple[Params, ...]:
    return points if len(points) <= 3 else (points[0], points[len(points) // 2], points[-1])


def days(shape: EditShape) -> dict[str, str]:
    """Seed 1 of each experiment's requests (of a request with many points, the first, the
    middle and the last; the real-shape arms on ``shape``; the map and the exposure day
    cut as above), as the records its days give."""
    out = {}
    for e in seedrows.EXPERIMENTS:
        if e.name == "break_even":
            axes = {k: v[:1] for k, v in breakeven.AXES.items()}
            requests = [breakeven.break_even_request(SMALL, axes, [1])]
        elif e.name == "realshape":
            requests = [realshape.realshape_request(SMALL, advised_choice(SMALL), shape, [1])]
        elif e.name == "map":
            requests = [map_grid.request(SMALL, [1], MAP_SAVES)]
        elif e.name == "exposure":
            requests = [Request((EXPOSURE_DAY,), (1,), ("staleness",), EXPOSURE_RECORDS)]
        else:
            plan = e.plan(SMALL, [1])
            requests = list(plan.requests[:1] + plan.requests[1:][-1:])
        for i, r in enumerate(requests):
            r = replace(r, points=_sample(r.points))
            [runs] = run_all([r], 1, False)
            out[f"{e.name}/{i}"] = _hash(json.dumps(runs, sort_keys=True, default=repr).encode())
    return out


def probe(boot: int) -> dict:
    """Every digest, and the CPU features numpy found, as the JSON the script prints."""
    fitted, shape = calibration(boot)
    found = {
        "cpu": cpu_features(),
        "schedules": schedules(shape),
        "calibration": fitted,
        "days": days(shape),
    }
    return json.loads(json.dumps(found))


def main() -> None:
    print(json.dumps(probe(int(sys.argv[1]) if len(sys.argv) > 1 else 10)))


if __name__ == "__main__":
    main()
