"""The atlas's population layer: the prediction interval covers a further site 90 % of the
time on exchangeable sites, leaving one out reports it, the spread's percentiles, the
out-of-time split, a user's log placed among the sites, and the packaged table equal to
results/'s."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.atlas import outoftime, place, population, table
from sim.calibrate.logs import CHANGES, EditLog
from sim.results import figtable

ROOT = Path(__file__).resolve().parents[1]
DAY_S = 86400.0


def _sites(shares: np.ndarray, age_s: float = 7 * DAY_S) -> pd.DataFrame:
    n = len(shares)
    return pd.DataFrame(
        {
            "site": [f"s{i:03d}" for i in range(n)],
            "kind": ["help" if i % 2 else "developer" for i in range(n)],
            "generator": "mkdocs",
            "quantity": "stale",
            "age_s": age_s,
            "draw": "popularity",
            "measured": shares,
            "lo": shares,
            "hi": shares,
        }
    )


def _logit_normal(rng: np.random.Generator, n: int) -> np.ndarray:
    return 1 / (1 + np.exp(-rng.normal(-2.5, 1.0, n)))


def test_the_prediction_interval_covers_a_further_exchangeable_site_ninety_percent() -> None:
    rng = np.random.default_rng(5)
    inside = 0
    reps = 4000
    for _ in range(reps):
        x = _logit_normal(rng, 31)
        lo, hi = population.prediction_interval(x[:30])
        inside += lo <= x[30] <= hi
    assert abs(inside / reps - 0.90) < 0.015, inside / reps


def test_leave_one_out_reports_about_ninety_percent_on_exchangeable_sites() -> None:
    rng = np.random.default_rng(11)
    loo = population.leave_one_out(_sites(_logit_normal(rng, 400)))
    r = loo.iloc[0]
    assert r["sites"] == r["tried"] == 400
    assert 0.86 <= r["loo_coverage"] <= 0.94, r["loo_coverage"]
    assert len(r["sites_outside"].split("; ")) == 400 - r["left_out_inside"]


def test_leave_one_out_catches_an_interval_that_is_too_narrow() -> None:
    """Sites from two populations far apart: a t interval on the logits still covers most,
    but a lone outlier among identical sites falls outside and is named."""
    shares = np.array([0.05, 0.051, 0.049, 0.05, 0.052, 0.048, 0.05, 0.6])
    r = population.leave_one_out(_sites(shares)).iloc[0]
    assert "s007" in r["sites_outside"].split("; ") and r["left_out_inside"] < 8


def test_too_few_sites_give_no_interval() -> None:
    assert all(np.isnan(population.prediction_interval([0.1, 0.2])))
    r = population.leave_one_out(_sites(np.array([0.1, 0.2, 0.3]))).iloc[0]
    assert r["tried"] == 0 and np.isnan(r["loo_coverage"])


def test_the_population_gives_each_kind_and_all_sites_their_percentiles() -> None:
    shares = np.arange(1, 12) / 100  # 1 % … 11 %
    pop = population.population(_sites(shares)).set_index("kind")
    assert list(pop.index) == ["all", "developer", "help"]
    row = pop.loc["all"]
    assert row["sites"] == 11 and row["median"] == pytest.approx(0.06)
    assert row["p10"] == pytest.approx(0.02) and row["p90"] == pytest.approx(0.10)
    assert row["q25"] == pytest.approx(0.035) and row["q75"] == pytest.approx(0.085)
    assert row["pi_lo"] < row["p10"] and row["pi_hi"] > row["p90"]
    assert pop.loc["help", "sites"] == 5 and pop.loc["developer", "sites"] == 6


def _log(rates: tuple[float, float], days: float = 1200.0, n: int = 60, seed: int = 3) -> EditLog:
    """Articles added at day 0, modified as Poisson at rates[0] a day before 70 % of the
    span and rates[1] after; article 0 deleted on day 100, never modified."""
    rng = np.random.default_rng(seed)
    cut = 0.7 * days
    t, a, k = [0.0] * n, list(range(n)), [CHANGES["add"]] * n
    for art in range(1, n):
        for lo, hi, rate in ((0.0, cut, rates[0]), (cut, days, rates[1])):
            times = rng.uniform(lo, hi, rng.poisson(rate * (hi - lo)))
            t += list(times)
            a += [art] * len(times)
            k += [CHANGES["modify"]] * len(times)
    t += [100.0, days]
    a += [0, 1]
    k += [CHANGES["delete"], CHANGES["modify"]]
    order = np.argsort(t, kind="stable")
    epoch = np.asarray(t)[order] * DAY_S
    return EditLog(
        epoch, np.arange(len(epoch)), np.asarray(a)[order], np.asarray(k)[order], n, "synthetic"
    )


def test_the_split_keeps_every_article_alive_at_the_cut_and_no_deleted_one() -> None:
    log = _log((0.02, 0.02))
    earlier, later = outoftime.split(log)
    cut = 0.7 * (log.epoch_s.max() - log.epoch_s.min()) + log.epoch_s.min()
    assert earlier.epoch_s.max() < cut and later.epoch_s.min() == cut
    opened = later.article[(later.epoch_s == cut) & (later.kind == CHANGES["add"])]
    assert sorted(opened) == list(range(1, 60))  # article 0 was deleted on day 100
    assert len(earlier) + len(later) == len(log) + 59


def test_a_stationary_site_predicts_its_future_and_a_changed_one_does_not() -> None:
    steady = pd.DataFrame(outoftime.site_rows("steady", "help", _log((0.02, 0.02))))
    jumped = pd.DataFrame(outoftime.site_rows("jumped", "help", _log((0.02, 0.2))))
    week = (steady["age_s"] == 7 * DAY_S) & (steady["draw"] == "uniform")
    assert steady.loc[week, "future_inside"].item()
    assert steady.loc[week, "past"].item() == pytest.approx(1 - np.exp(-0.14), rel=0.25)
    wk = (jumped["age_s"] == 7 * DAY_S) & (jumped["draw"] == "uniform")
    assert not jumped.loc[wk, "future_inside"].item()
    assert jumped.loc[wk, "future"].item() > 3 * jumped.loc[wk, "past"].item()
    summary = outoftime.summary(pd.concat([steady, jumped]), "uniform").set_index("age_s")
    assert summary.loc[7 * DAY_S, "sites"] == 2 and summary.loc[7 * DAY_S, "inside"] == 1


def test_a_users_log_is_placed_at_its_percentile_among_the_sites(tmp_path: Path) -> None:
    packaged = tmp_path / "atlas_sites.csv"
    _sites(np.arange(1, 11) / 100).to_csv(packaged, index=False)
    mine = [
        {"age_s": 7 * DAY_S, "draw": "popularity", "measured": 0.085},
        {"age_s": 7 * DAY_S, "draw": "uniform", "measured": 0.5},
    ]
    assert place.line(mine, packaged) == (
        "  Against the atlas: your 7-day share is at the atlas's 80th percentile"
        " (10 documentation sites measured alike, reads by edit popularity)."
    )
    assert place.placement(mine, packaged)[0]["percentile"] == 80.0
    assert "spans less than a day" in place.line([], packaged)
    assert "cannot be read" in place.line(mine, tmp_path / "missing.csv")
    assert population.percentile(0.05, [0.05, 0.05]) == 50.0


def test_the_packaged_table_is_results_own() -> None:
    assert table.PACKAGED.read_bytes() == (ROOT / "results" / "atlas_sites.csv").read_bytes()
    sites = pd.read_csv(table.PACKAGED)
    assert list(sites.columns) == list(table.COLUMNS)
    assert set(sites["quantity"]) == set(table.QUANTITIES)


def test_the_atlas_figure_is_registered_and_drawn_on_the_first_page() -> None:
    entry = next(e for e in figtable.FIGURES if e.file == "atlas.png")
    assert entry.tables == ("atlas_sites", "atlas_population")
    assert "](atlas.png)" in (ROOT / "results" / "REPORT.md").read_text().split("\n## 1.")[0]


def test_a_measurement_is_kept_by_the_logs_content(tmp_path: Path, monkeypatch) -> None:
    from sim.atlas import cache

    monkeypatch.setenv("STALE_CITATIONS_CACHE", str(tmp_path))
    calls: list[int] = []

    def make() -> list[dict[str, object]]:
        calls.append(1)
        return [{"age_s": 60.0, "measured": 1 / 3}]

    log = _log((0.02, 0.02))
    assert cache.rows("x", log, make) == cache.rows("x", log, make) == make()
    assert len(calls) == 2  # the second call read the file the first wrote
    cache.rows("x", _log((0.02, 0.02), seed=4), make)  # another log: measured again
    assert len(calls) == 3 and len(list(tmp_path.glob("*.json"))) == 2
    monkeypatch.setenv("STALE_CITATIONS_CACHE", "off")
    cache.rows("x", log, make)
    assert len(calls) == 4
