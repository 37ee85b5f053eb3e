"""The map's human-save form weights each delay's reads by when they come: the answers take
the ladder's delays round-robin in time order (sim.model.day), so the 4-hour rung reads
later in the day than the 5-second one and more of its window is cut by the day's end. A
uniform read put that rung's form 1–2 % above the simulation's own schedule."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim import rng, theory
from sim.model.schedule import draw_schedule
from sim.params import Params
from sim.studymap import forms

SEEDS = 300


def _expected_on_schedules(p: Params, delay: float) -> tuple[float, float]:
    """Mean over seeds of each edit's exact chance of a human save in its window, given the
    day's own draws (read time, target, unpublishes; a gone target's stand-in a random
    published article), for the answers the day gives this delay; with its standard error."""
    ladder, d = p.edit_delays_s, p.day_s
    lam = theory.save_rates_per_s(p)
    picks = np.random.default_rng(7)
    per_seed = []
    for seed in range(1, SEEDS + 1):
        s = draw_schedule(p, rng.streams(seed))
        n = s.day_saves
        gone_at = np.full(p.n_articles, np.inf)
        unpublish = s.save_kinds[:n] == 2
        np.minimum.at(gone_at, s.save_targets[:n][unpublish], s.save_s[:n][unpublish])
        answers = np.arange(ladder.index(delay), len(s.question_s), len(ladder))
        values = []
        for t, a in zip(s.question_s[answers], s.question_targets[answers], strict=True):
            if gone_at[a] <= t:
                a = picks.choice(np.flatnonzero(gone_at > t))
            values.append(-np.expm1(-lam[s.question_rank[a]] * min(delay, d - t)))
        per_seed.append(np.mean(values))
    return float(np.mean(per_seed)), float(np.std(per_seed, ddof=1) / np.sqrt(SEEDS))


def test_the_four_hour_rungs_form_is_the_schedules_expectation() -> None:
    p = replace(Params(), n_saves=3000)
    mean, se = _expected_on_schedules(p, 14400.0)
    form = forms.day_cas(p, "same", p.edit_delays_s)[14400.0]["human"]
    assert abs(form - mean) < 3 * se, (form, mean, se)
    uniform_read = 0.706704  # the form before: reads uniform over the day, 5 SE too high
    assert uniform_read - mean > 4 * se


def test_later_rungs_read_later() -> None:
    p = Params()
    x = np.linspace(0.0, 1.0, len(forms._read_density(p, 5.0)))
    means = [np.trapezoid(x * forms._read_density(p, d), x) for d in p.edit_delays_s]
    assert np.all(np.diff(means) > 0)
    assert np.allclose(np.diff(means), 1 / (p.n_questions + 1), rtol=0.01)  # one rank apart
    off = forms._read_density(p, 7.0)
    assert np.allclose(off, 1.0)
