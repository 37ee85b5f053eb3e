"""The atlas's population layer: the rank interval covers a further exchangeable site at
least 90 % of the time whatever the distribution, leaving one out reports it, held-out sites
placed against it, the spread's percentiles, the
out-of-time split, a user's log placed among the sites, and the packaged table equal to
results/'s."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.atlas import heldout, outoftime, place, population, table
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


def _skewed(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Most sites slow, a few far faster (85 % around 5 %, 15 % around 50 %): logits far
    from normal, as the atlas's few fast sites make them."""
    fast = rng.random(shape) < 0.15
    return 1 / (1 + np.exp(-rng.normal(np.where(fast, 0.0, -3.0), 0.3)))


def test_the_rank_is_the_largest_that_keeps_the_guarantee() -> None:
    assert [population.rank(n) for n in (18, 19, 43, 44, 59, 400)] == [0, 1, 2, 2, 3, 20]
    for n in range(1, 200):
        k = population.rank(n)
        assert (n + 1 - 2 * k) / (n + 1) >= 0.90 > (n + 1 - 2 * (k + 1)) / (n + 1)
    assert population.min_sites() == 19
    x = np.arange(44.0)[::-1]
    assert population.prediction_interval(x) == (1.0, 42.0)  # the 2nd smallest and largest


def test_the_rank_interval_covers_a_further_site_of_a_skewed_population() -> None:
    """2,000 draws of 45 sites: the interval of the first 44 holds the 45th at least 90 % of
    the time (41/45 exactly for a continuous distribution), within 3 standard errors; a
    t interval on the logits covers about 87 % here."""
    rng = np.random.default_rng(5)
    reps = 2000
    draws = _skewed(rng, (reps, 45))
    inside = 0
    for x in draws:
        lo, hi = population.prediction_interval(x[:44])
        inside += lo <= x[44] <= hi
    coverage, se = inside / reps, (0.9 * 0.1 / reps) ** 0.5
    assert coverage >= 0.90 - 3 * se, coverage
    assert abs(coverage - 41 / 45) < 3 * se, coverage


def test_leaving_one_out_is_computed_and_the_rank_rule_holds_exactly() -> None:
    """Among n continuous shares left out in turn, exactly the k lowest and k highest
    (k = rank(n − 1)) fall outside: 40 of 44, named."""
    rng = np.random.default_rng(11)
    shares = _skewed(rng, (44,))
    r = population.leave_one_out(_sites(shares)).iloc[0]
    assert r["sites"] == r["tried"] == 44 and r["left_out_inside"] == 40
    order = np.argsort(shares)
    extremes = {f"s{i:03d}" for i in (*order[:2], *order[-2:])}
    assert set(r["sites_outside"].split("; ")) == extremes
    big = population.leave_one_out(_sites(_logit_normal(rng, 400))).iloc[0]
    assert big["loo_coverage"] == 0.90 and len(big["sites_outside"].split("; ")) == 40


def test_a_lone_outlier_left_out_falls_outside_and_is_named() -> None:
    shares = np.r_[np.linspace(0.048, 0.052, 19), 0.6]
    r = population.leave_one_out(_sites(shares)).iloc[0]
    assert "s019" in r["sites_outside"].split("; ") and r["left_out_inside"] == 18


def test_too_few_sites_give_no_interval() -> None:
    assert all(np.isnan(population.prediction_interval(np.arange(18) / 100)))
    assert not any(np.isnan(population.prediction_interval(np.arange(19) / 100)))
    r = population.leave_one_out(_sites(np.arange(1, 20) / 100)).iloc[0]
    assert r["tried"] == 0 and np.isnan(r["loo_coverage"])


def test_the_population_gives_each_kind_and_all_sites_their_percentiles() -> None:
    shares = np.arange(1, 22) / 100  # 1 % … 21 %
    pop = population.population(_sites(shares)).set_index("kind")
    assert list(pop.index) == ["all", "developer", "help"]
    row = pop.loc["all"]
    assert row["sites"] == 21 and row["median"] == pytest.approx(0.11)
    assert row["p10"] == pytest.approx(0.03) and row["p90"] == pytest.approx(0.19)
    assert row["q25"] == pytest.approx(0.06) and row["q75"] == pytest.approx(0.16)
    assert (row["pi_lo"], row["pi_hi"]) == (0.01, 0.21)  # k = 1 for 21 sites
    assert pop.loc["help", "sites"] == 10 and pop.loc["developer", "sites"] == 11
    assert np.isnan(pop.loc["help", "pi_lo"])  # 10 sites: too few


def test_a_held_out_site_is_placed_against_the_whole_atlas_interval() -> None:
    """Inside with the bounds, above, below; its percentile among the atlas's sites."""
    atlas_sites = _sites(np.arange(1, 45) / 100)  # 1 % … 44 %: the interval is 2 %–43 %
    held = _sites(np.array([0.02, 0.30, 0.435, 0.015]))
    held["site"] = ["at-bound", "middle", "above", "below"]
    out = heldout.placed(atlas_sites, held).set_index("site")
    assert list(out.columns) == heldout.COLUMNS[1:]
    assert (out["pi_lo"] == 0.02).all() and (out["pi_hi"] == 0.43).all()
    assert out["inside_pi"].to_dict() == {
        "at-bound": True,
        "middle": True,
        "above": False,
        "below": False,
    }
    assert out.loc["middle", "percentile"] == pytest.approx(100 * 29.5 / 44)


def test_the_committed_held_out_table_places_every_held_out_site() -> None:
    out = pd.read_csv(ROOT / "results" / "atlas_heldout.csv")
    assert list(out.columns) == heldout.COLUMNS
    assert set(out["site"]) == {s.site for s in heldout.sites()}
    assert not set(out["site"]) & set(pd.read_csv(table.PACKAGED)["site"])
    inside = (out["pi_lo"] <= out["measured"]) & (out["measured"] <= out["pi_hi"])
    assert (out["inside_pi"] == inside).all()


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
