"""The calibration's fits and generator: held to the log's own statistics, to known laws and
to known sequences."""

from __future__ import annotations

import json
import math
import pickle
from dataclasses import replace

import numpy as np
import pytest

from sim.calibrate import popfit, sessions
from sim.calibrate.fit import Fit, fit
from sim.calibrate.generate import (
    CAL_STREAMS,
    FEATURES,
    expected_saves,
    generate,
    saves_per_day_for,
)
from sim.calibrate.logs import BUNDLED, EditLog, read_log, week_offset
from sim.calibrate.panel import calibration_outputs
from sim.calibrate.shape import EditShape, load_shape
from sim.calibrate.stats import STATISTICS, summary
from sim.calibrate.validate import replicate
from sim.report.calibration import calibration_text
from sim.rng import STREAMS


@pytest.fixture(scope="module")
def log() -> EditLog:
    return read_log(BUNDLED)


@pytest.fixture(scope="module")
def fitted(log: EditLog) -> Fit:
    """The bundled log's fit without a bootstrap, once for the module. Twenty goodness-of-fit
    simulations pick the same family, so the same shape, as the default 200 (a tenth of the
    time)."""
    return fit(log, boot=0, gof_sims=20)


@pytest.fixture(scope="module")
def shape(fitted: Fit) -> EditShape:
    return fitted.shape


def _rngs(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed).spawn(len(CAL_STREAMS))
    return {n: np.random.default_rng(c) for n, c in zip(CAL_STREAMS, children, strict=True)}


def test_generator_holds_the_logs_own_statistics(log: EditLog, fitted: Fit) -> None:
    """Fitted on the whole log and run over its span, the generator's 95 % range holds the
    log's top-10 share, re-save shares, bulk share and weekend share."""
    f = fitted
    t0 = float(log.epoch_s[0])
    real = summary(*log.saves(t0))
    span = float(log.epoch_s[-1]) - t0 + 1.0
    runs = replicate(f, log.n_articles, span, week_offset(t0), 40, seed=3)[0]
    assert runs.process == "calibrated"
    stats = [summary(s, runs.start_s) for s in runs.runs]
    for name in (
        "top-10 share of body edits",
        "re-saves within 10 min",
        "re-saves within 1 h",
        "re-saves within 1 day",
        "saves in publishes of >=10",
        "weekend share",
    ):
        lo, hi = np.quantile([s[name] for s in stats], [0.025, 0.975])
        assert lo <= real[name] <= hi, (name, real[name], lo, hi)


def _synthetic_log(counts_by_article: np.ndarray, rng: np.random.Generator) -> EditLog:
    article = np.repeat(np.arange(len(counts_by_article)), counts_by_article)
    rng.shuffle(article)
    n = len(article)
    return EditLog(
        np.arange(n, dtype=float) * 3600 * 24 * 3,  # saves three days apart: no sessions
        np.arange(n),
        article,
        np.zeros(n, dtype=np.int8),
        len(counts_by_article),
        "synthetic",
    )


def test_zipf_mle_recovers_a_known_exponent_within_its_interval() -> None:
    rng = np.random.default_rng(11)
    counts = rng.multinomial(4000, popfit.law(300, (0.8,)))
    f = fit(_synthetic_log(counts[counts > 0], rng), boot=40, gof_sims=20, seed=2)
    row = f.table.set_index("quantity").loc["zipf s"]
    assert row.ci_low <= 0.8 <= row.ci_high
    assert row.estimate == pytest.approx(0.8, abs=0.05)
    assert f.gof[0].p_value >= 0.05  # a true Zipf is not rejected
    assert f.shape.popularity_family == "zipf"


def test_zipf_mandelbrot_recovers_its_parameters() -> None:
    c = popfit.ranked(np.random.default_rng(5).multinomial(50_000, popfit.law(400, (2.0, 50.0))))
    s, q = popfit.fit_zipf_mandelbrot(c)
    assert s == pytest.approx(2.0, rel=0.2)
    assert q == pytest.approx(50.0, rel=0.35)


def test_burstiness_and_memory_on_known_sequences() -> None:
    assert sessions.burstiness(np.full(100, 60.0)) == -1.0
    rng = np.random.default_rng(1)
    poisson = rng.exponential(100.0, 50_000)
    assert abs(sessions.burstiness(poisson)) < 0.02
    assert abs(sessions.memory(poisson)) < 0.02
    bursty = np.exp(rng.normal(0, 2.5, 50_000))
    assert sessions.burstiness(bursty) > 0.5
    alternating = np.tile([1.0, 1000.0], 500)
    assert sessions.memory(alternating) == pytest.approx(-1.0)
    slow = np.repeat(rng.exponential(100.0, 500), 20)  # runs of equal gaps: memory
    assert sessions.memory(slow) > 0.8
    # per article: two periodic articles of different rates are each periodic (B = -1), while
    # pooling them would not be
    article = np.r_[np.zeros(50, int), np.ones(50, int)]
    time = np.r_[np.arange(50) * 10.0, np.arange(50) * 1000.0]
    b, _, n = sessions.coefficients(article, time)
    assert (b, n) == (-1.0, 2)


def test_sessions_split_on_the_gap() -> None:
    article = np.array([0, 0, 0, 1, 0])
    time = np.array([0.0, 100.0, 200.0, 300.0, 100_000.0])
    starts, sizes, gaps = sessions.split(article, time, 3600.0)
    assert starts.tolist() == [True, False, False, True, True]
    assert sorted(sizes.tolist()) == [1, 1, 3]
    assert gaps.tolist() == [100.0, 100.0]


def test_shape_round_trips_and_is_hashable(shape: EditShape, tmp_path) -> None:
    assert EditShape.from_json(shape.to_json()) == shape
    assert pickle.loads(pickle.dumps(shape)) == shape
    assert hash(shape) == hash(EditShape.from_json(shape.to_json()))
    path = tmp_path / "shape.json"
    path.write_text(shape.to_json())
    assert load_shape(path) == shape


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: t[:-20], "not JSON"),
        (
            lambda t: t.replace('"hour_weights"', '"hour_weight"'),
            "fields missing: ['hour_weights']",
        ),
        (lambda t: t.replace('"format": 1', '"format": 9'), '"format": 1'),
        (lambda t: "[]", "expected a JSON object"),
    ],
)
def test_a_bad_shape_file_names_the_problem(shape: EditShape, tmp_path, edit, needle) -> None:
    path = tmp_path / "bad.json"
    path.write_text(edit(shape.to_json()))
    with pytest.raises(ValueError, match=r"bad\.json") as e:
        load_shape(path)
    assert needle in str(e.value)


def test_a_shape_field_out_of_range_is_named(shape: EditShape) -> None:
    with pytest.raises(ValueError, match="hour_weights"):
        replace(shape, hour_weights=(1.0,) * 24)
    with pytest.raises(ValueError, match="popularity_params"):
        replace(shape, popularity_params=(0.5,))
    with pytest.raises(ValueError, match=r"cannot read"):
        load_shape("/nonexistent/shape.json")


def test_the_generators_streams_are_appended_names() -> None:
    """The generator's streams come in the day's streams after every older one (and before
    the newer agent's), so switching the calibrated process on moves no other draw."""
    assert len(set(STREAMS)) == len(STREAMS)
    first = STREAMS.index(CAL_STREAMS[0])
    assert STREAMS[first : first + len(CAL_STREAMS)] == CAL_STREAMS
    assert STREAMS.index("late_save_text") < first
    assert STREAMS[first + len(CAL_STREAMS) :] == ("answer_edits", "trace_days", "trace_save_text")


def test_generated_saves_are_ordered_and_bulk_publishes_share_an_instant(
    shape: EditShape,
) -> None:
    s = generate(shape, 400, 500.0, 7 * 86400, _rngs(1))
    assert np.all(np.diff(s.time_s) >= 0)
    assert np.all(np.diff(s.publish) >= 0)
    assert s.rank.min() >= 0 and s.rank.max() < 400
    for p in np.unique(s.publish[np.r_[False, np.diff(s.publish) == 0]])[:20]:
        ranks, times = s.rank[s.publish == p], s.time_s[s.publish == p]
        assert len(set(times)) == 1 and len(set(ranks)) == len(ranks)
    again = generate(shape, 400, 500.0, 7 * 86400, _rngs(1))
    assert np.array_equal(s.time_s, again.time_s) and np.array_equal(s.rank, again.rank)


def test_volume_and_profile_combine_as_documented(shape: EditShape) -> None:
    """An 8-hour day from Tuesday 09:00 holds 300 saves on average at the rate
    saves_per_day_for gives; a week holds 7 x saves_per_day."""
    start = 86400 + 9 * 3600
    spd = saves_per_day_for(shape, 300, 8 * 3600, start)
    counts = [len(generate(shape, 400, spd, 8 * 3600, _rngs(i), start_s=start)) for i in range(200)]
    assert np.mean(counts) == pytest.approx(300, rel=0.05)
    assert expected_saves(shape, 100.0, 7 * 86400, 12345.0) == pytest.approx(700.0)


def test_features_off_give_the_write_ups_process(shape: EditShape) -> None:
    s = generate(shape, 400, 300.0, 8 * 3600, _rngs(2), features=frozenset(), zipf_s=0.9)
    assert len(np.unique(s.publish)) == len(s)  # one article per publish
    assert s.rank.max() > 0.6 * 400  # all articles can be saved, not only the log's share
    week = generate(shape, 400, 300.0, 28 * 86400, _rngs(3), features=frozenset())
    weekend = np.mean((week.time_s // 86400) % 7 >= 5)
    assert weekend == pytest.approx(2 / 7, abs=0.02)


def test_bursts_crowd_re_saves_together(shape: EditShape) -> None:
    """At the same popularity and volume, sessions put far more re-saves within 10 minutes
    than independent saves do."""
    short = {}
    for features in (frozenset({"popularity"}), frozenset({"popularity", "bursts"})):
        s = generate(shape, 400, 20.0, 90 * 86400, _rngs(3), features=features)
        short[features] = np.mean(sessions.resave_gaps(s.rank, s.time_s) <= 600)
    independent, bursty = short.values()
    assert bursty > 5 * independent


def test_popularity_keeps_the_logs_never_edited_share(shape: EditShape) -> None:
    only_pop = frozenset({"popularity"})
    s = generate(shape, 1000, 2000.0, 28 * 86400, _rngs(4), features=only_pop)
    assert s.rank.max() < round(shape.active_share * 1000)


def test_bad_generator_arguments_are_refused(shape: EditShape) -> None:
    with pytest.raises(ValueError, match="n_articles"):
        generate(shape, 0, 10.0, 100.0, _rngs(1))
    with pytest.raises(ValueError, match="features"):
        generate(shape, 10, 10.0, 100.0, _rngs(1), features=frozenset({"weather"}))
    with pytest.raises(ValueError, match="saves_per_day"):
        generate(shape, 10, float("nan"), 100.0, _rngs(1))
    assert set(FEATURES) == {"popularity", "bursts", "bulk", "profile"}


def test_a_shape_file_without_sittings_loads_with_one_publish_sittings(shape: EditShape) -> None:
    data = json.loads(shape.to_json())
    for name in ("sitting_gap_s", "sitting_size_pmf", "sitting_gap_quantiles_s"):
        del data[name]
    old = EditShape.from_json(json.dumps(data))
    assert old.sitting_size_pmf == (1.0,)


def test_calibration_outputs_give_the_tables() -> None:
    """On a panel of the shared log alone (tests/test_calibration_panel.py has the panel);
    the tables only: calibration.png is drawn with the other figures (figtable)."""
    tables = calibration_outputs(reps=6, boot=4, panel={"Obsidian": BUNDLED})
    assert set(tables) == {"fit", "gof", "burstiness", "validation", "transfer", "imports"}
    v = tables["validation"]
    assert set(v.process) == {"calibrated", "write-up (volume only)"}
    assert len(v) == 2 * len(STATISTICS) and (v["log"] == "Obsidian").all()
    assert v["drift_p"].between(0, 1).all() and (v["permutations"] == 29).all()
    writeup = v[v.process == "write-up (volume only)"].set_index("statistic")
    # the write-up's independent saves cannot hold the log's short re-saves or bulk publishes
    assert not writeup.loc["re-saves within 10 min", "inside"]
    assert not writeup.loc["publishes with >1 article", "inside"]
    assert {"estimate", "ci_low", "ci_high", "resampled"} <= set(tables["fit"].columns)
    assert len(tables["transfer"]) == len(STATISTICS)  # the diagonal: the held-out test
    assert list(tables["imports"]["publish"]) == [0]
    text = calibration_text({f"calibration_{k}": t for k, t in tables.items()})
    assert "**Not validated at the study's volume.**" in text
    assert "one log: nothing to transfer" in text


def test_a_window_of_the_log_holds_only_its_own_articles(log: EditLog) -> None:
    t0, t1 = log.epoch_s[0], log.epoch_s[-1]
    first = log.window(t0, t0 + (t1 - t0) / 3)
    assert first.n_articles == len(np.unique(first.article)) < log.n_articles
    assert first.article.max() == first.n_articles - 1
    assert fit(first, boot=0, gof_sims=0).shape.log_articles == first.n_articles


def test_stretched_sessions_keep_a_pmf_and_scale_the_mean_re_saves_exactly() -> None:
    """A stretch of k makes a session of n saves one of 1 + k(n - 1) on average: the mean
    re-saves scale by k, the pmf still sums to 1, and k = 1 is the fitted shape itself."""
    from dataclasses import replace

    from sim.calibrate.shape import stretch_sessions
    from sim.study.realshape_panel import packaged_shape

    shape = replace(packaged_shape(), session_size_pmf=(0.7, 0.2, 0.1))
    assert stretch_sessions(shape, 1.0) is shape
    for k in (1.5, 2.0, 3.25):
        pmf = np.array(stretch_sessions(shape, k).session_size_pmf)
        assert pmf.min() >= 0 and math.isclose(pmf.sum(), 1.0, abs_tol=1e-12)
        mean_resaves = float(np.dot(np.arange(len(pmf)), pmf))
        assert math.isclose(mean_resaves, k * (0.2 + 2 * 0.1), rel_tol=1e-12)
    assert stretch_sessions(shape, 2.0).session_size_pmf == pytest.approx((0.7, 0, 0.2, 0, 0.1))
    with pytest.raises(ValueError, match="factor must be a number ≥ 1"):
        stretch_sessions(shape, 0.5)


def test_a_matched_bulk_share_gives_the_logs_multi_article_publishes_in_generation(
    log: EditLog, fitted: Fit
) -> None:
    """match_bulk's closed form, checked by generating: over the log's span at its volume,
    multi-article publishes come out at the asked share within 0.02 (four runs; the closed
    form ignores sessions cut at the window's edges)."""
    from sim.calibrate.shape import match_bulk

    f = fitted
    want = 0.30
    shape = match_bulk(f.shape, want)
    assert shape.bulk_share > f.shape.bulk_share
    t0 = float(log.epoch_s[0])
    span = float(log.epoch_s[-1]) - t0 + 1
    got = []
    for i in range(4):
        children = np.random.SeedSequence([7, i]).spawn(len(CAL_STREAMS))
        rngs = {s: np.random.default_rng(c) for s, c in zip(CAL_STREAMS, children, strict=True)}
        saves = generate(shape, log.n_articles, f.shape.log_saves_per_day, span, rngs,
                         start_s=week_offset(t0))  # fmt: skip
        got.append(summary(saves, week_offset(t0))["publishes with >1 article"])
    assert abs(float(np.mean(got)) - want) < 0.02, got
    assert match_bulk(f.shape, 0.0).bulk_share == 0.0
    with pytest.raises(ValueError, match="multi_share must be in"):
        match_bulk(f.shape, 1.0)
