"""One pool for every experiment: a day two requests share is simulated once, and each
request gets what it would get alone, in the record types it asks for."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sim.params import Params
from sim.study import experiments
from sim.study.experiments import Request, frames_of, run_all, run_points

SMALL = Params(n_articles=60, n_questions=20, n_saves=40)


def test_requests_together_give_what_each_gives_alone(monkeypatch) -> None:
    other = replace(SMALL, zipf_s=0.5)
    a = Request((SMALL, other), (2, 1), ("staleness", "cas"))
    b = Request((SMALL,), (1, 3), ("staleness",), ("days", "citations"))
    simulated = []
    run_day = experiments.run_day
    monkeypatch.setattr(
        experiments,
        "run_day",
        lambda params, seed, opening: (
            simulated.append((params, seed)) or run_day(params, seed, opening)
        ),
    )
    together = run_all([a, b], workers=1, progress=False)
    # (SMALL, seed 1, staleness) is wanted by both and simulated once
    assert len(simulated) == len(set(simulated)) == 2 * 2 * 2 + 1
    assert experiments.distinct_days([a, b]) == len(simulated)  # what the bench reports
    for request, runs in zip((a, b), together, strict=True):
        alone = run_points(list(request.points), list(request.seeds), request.experiments, 1, False)
        for point_runs, frames in zip(runs, alone, strict=True):
            got = frames_of(point_runs)
            for name in request.records:
                pd.testing.assert_frame_equal(getattr(got, name), getattr(frames, name))


def test_a_day_makes_only_the_record_types_asked_of_it() -> None:
    [[runs]] = run_all(
        [Request((SMALL,), (1,), ("staleness",), ("days", "checks"))], workers=1, progress=False
    )
    assert set(runs[0]) == {"days", "checks"}
    frames = frames_of(runs)
    assert frames.saves.empty and not frames.checks.empty
