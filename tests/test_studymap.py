"""The map (sim/studymap): its closed forms against the committed grid (and, under
`make check`, a fresh simulation on a few points), the
form's own identities (how it stands in for citations older than the day), and an edit
log's measurement on a tiny log whose answer is known exactly."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim import theory
from sim.calibrate.logs import CHANGES, EditLog
from sim.params import Params
from sim.study.experiments import run_all
from sim.studymap import forms, grid, logs, tables
from sim.studymap.forms import DAY_S

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_the_stale_share_depends_on_intensity_and_age_only_through_their_product() -> None:
    ages = np.array([60.0, 3600.0, DAY_S, 30 * DAY_S])
    for relation in forms.RELATIONS:
        a = forms.stale_share(0.01, ages, relation)
        b = forms.stale_share(0.1, ages / 10, relation)
        assert np.allclose(a, b, rtol=1e-12), relation


def test_the_day_form_is_the_steady_form_over_the_day_s_ages_without_unpublishing() -> None:
    """Without unpublishing the day's form is the steady form averaged over ages uniform on
    [0, D]: the day checks the very function the map draws at every r·a it reaches."""
    p = replace(Params(), save_mix=(0.9, 0.1, 0.0), n_saves=120)
    rate = tables.per_article_day(p, p.n_saves)
    ages = np.linspace(0.0, p.day_s, 4001)
    for relation in forms.RELATIONS:
        steady = np.trapezoid(forms.stale_share(rate, ages, relation), ages) / p.day_s
        assert forms.day_end_stale(p, relation) == pytest.approx(steady, abs=1e-6), relation
    assert forms.day_end_stale(p, "same") == pytest.approx(
        theory.stale_shares_at_day_end(p)["citations"], abs=1e-6
    )


def test_independent_questions_see_the_mean_article() -> None:
    lam = forms.edit_rates(2.25, 400, 0.9)
    want = 1 - np.exp(-lam * 3600.0).mean()
    assert forms.human_rejection(2.25, 3600.0, "independent") == pytest.approx(want, rel=1e-12)


def _small_grid() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two grid points, a quiet and a busy one on the same ranking, on four seeds."""
    base, picked = Params(), {"same": (30, 3000)}
    [runs] = run_all([grid.request(base, [1, 2, 3, 4], picked)], workers=1, progress=False)
    return grid.stale_rows(base, runs, picked), grid.cas_rows(base, runs, picked)


@pytest.mark.deep
def test_the_closed_forms_hold_on_a_small_fresh_grid(deep: bool) -> None:
    """`make check` only (its 3,000-save days cost 6 CPU-s): `make test` holds the same
    forms to the simulation through the committed grid, twenty seeds a point, in three
    steps: test_the_committed_grid_agrees_with_its_forms_at_every_point, the committed
    agreement rebuilt from the committed rows by today's forms (test_regression's
    map_agreement.csv), and a sampled point of each relation simulated again to its
    committed rows (test_regression's map test)."""
    if not deep:
        pytest.skip(
            "make check (--deep): test_the_committed_grid_agrees_with_its_forms_at_every_point, "
            "with test_regression's rebuild of map_agreement.csv and its sampled map rerun"
        )
    stale, cas = _small_grid()
    empty = pd.DataFrame(columns=["n_saves", "n_questions", "seed"])
    a = tables.agreement(Params(), stale, cas, empty)
    exact = a[a["quantity"] != "rejected_by_agent_edit"]
    assert len(exact) == 2 + 2 * 4
    assert exact["within_tolerance"].all(), exact[["quantity", "n_saves", "delay_s", "form_z"]]
    agent = a[a["quantity"] == "rejected_by_agent_edit"]
    assert agent["within_tolerance"].all(), agent[["n_saves", "delay_s", "form_z"]]


def test_the_committed_grid_agrees_with_its_forms_at_every_point() -> None:
    a = pd.read_csv(RESULTS / "map_agreement.csv")
    assert a["within_tolerance"].all(), a[~a["within_tolerance"]]
    assert set(a["quantity"]) == {
        "stale_at_day_end",
        "human_save_in_window",
        "rejected_by_agent_edit",
        "poll_over_reread_calls",
    }


def test_a_form_off_by_a_few_points_is_caught() -> None:
    """The tolerance can fail: a form 5 points off at a 20-seed point is outside it."""
    stale = pd.read_csv(RESULTS / "seeds" / "map_stale.csv")
    point = stale[(stale["relation"] == "same") & (stale["n_saves"] == 300)]
    share = point["stale"] / point["citations"]
    at = tables._Point(
        "same", Params(), Params(), math.nan, point["seed"], point["citations"].sum()
    )
    form = forms.day_end_stale(Params(), "same")
    assert at.row("stale_at_day_end", share, form)["within_tolerance"]
    assert not at.row("stale_at_day_end", share, form + 0.05)["within_tolerance"]


def _log(rows: list[tuple[float, str, str]]) -> EditLog:
    """(day, article, change) rows as a log, one publish per row."""
    ids: dict[str, int] = {}
    art = [ids.setdefault(a, len(ids)) for _, a, _ in rows]
    return EditLog(
        np.array([d * DAY_S for d, _, _ in rows]),
        np.arange(len(rows)),
        np.array(art, dtype=np.int64),
        np.array([CHANGES[c] for _, _, c in rows]),
        len(ids),
        "synthetic",
    )


def test_a_tiny_log_gives_its_exact_stale_shares() -> None:
    """Span days 0–10, reads at ages of a day on days 0–9. a1 (alive 0–9) is saved on day 2
    (stale for reads on days 1–2) and day 10 (after the reads); a0 (alive 3–9) on day 5
    (reads on days 4–5). A uniform instant of days 0–9: on days 0–3 a1 alone is alive (stale
    one day of three), on days 3–9 both (a0 stale one day in six, half the weight evenly, a
    third by popularity: a0 one save, a1 two): uniform (1 + 1/2) / 9, by popularity
    (1 + 1/3) / 9. Pooled article-time: uniform (1 + 1) / (6 + 9), by popularity
    (1·1 + 2·1) / (1·6 + 2·9)."""
    log = _log(
        [
            (0, "a1", "add"),
            (2, "a1", "modify"),
            (3, "a0", "add"),
            (5, "a0", "modify"),
            (10, "a1", "modify"),
        ]
    )
    m = logs.measure(log, (DAY_S,)).set_index("draw")
    assert m.loc["uniform", "measured"] == pytest.approx(1.5 / 9, rel=1e-12)
    assert m.loc["popularity", "measured"] == pytest.approx((4 / 3) / 9, rel=1e-12)
    assert m.loc["uniform", "pooled"] == pytest.approx(2 / 15, rel=1e-12)
    assert m.loc["popularity", "pooled"] == pytest.approx(3 / 24, rel=1e-12)
    assert logs.intensity(log) == pytest.approx(3 / 17, rel=1e-12)
    for draw in logs.DRAWS:
        lo, hi = m.loc[draw, "measured_ci_lo"], m.loc[draw, "measured_ci_hi"]
        assert 0 <= lo <= m.loc[draw, "measured"] <= hi <= 1


def test_a_deletion_ends_the_article_and_makes_its_citations_gone() -> None:
    """a0 (alive days 0–4, deleted on day 4) and a1 (alive 0–9, never saved but at the
    span's end): reads at an age of a day on days 0–9; a0's reads on days 3–4 meet its
    deletion, half the alive weight then. Uniform instant: (1/2) / 9; pooled: 1 / (4 + 9)."""
    log = _log([(0, "a0", "add"), (0, "a1", "add"), (4, "a0", "delete"), (10, "a1", "modify")])
    m = logs.measure(log, (DAY_S,)).set_index("draw")
    assert m.loc["uniform", "measured"] == pytest.approx(0.5 / 9, rel=1e-12)
    assert m.loc["uniform", "pooled"] == pytest.approx(1 / 13, rel=1e-12)


def test_the_map_places_every_shared_log() -> None:
    m = pd.read_csv(RESULTS / "map_logs.csv")
    assert set(m["log"]) == {"Obsidian", "Bitwarden", "DuckDuckGo"}
    month = m[m["age_s"] == 30 * DAY_S]
    assert (month["measured"] > 0).all()
    assert (m["measured_ci_lo"] <= m["measured"]).all() and (
        m["measured"] <= m["measured_ci_hi"]
    ).all()
