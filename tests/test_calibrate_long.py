"""`calibrate` on a long history per article (issue 46, item 5): the burst runs' block-wise
draws (``sim.calibrate.blockdraw``), the time-ordered sort by article
(``sessions.by_article``) and the runs made in threads (``sim.calibrate.overlog``) give the
same runs, fit and burst table as the straightforward code they replaced, kept here as the
reference, on the shared log repeated twice in time with blocks small enough that every run
crosses many of them (some a hundred blocks of hours; three copies only made more blocks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.bench.calibrate_size import write_long_log
from sim.calibrate import blockdraw, generate, logs, overlog, publishes, sessions
from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, EditLog, read_log, week_offset
from sim.calibrate.shape import stretch_sessions
from sim.calibrate.validate import burst_runs, burstiness_table


def _sitting_starts_ref(
    rate: float,
    intensity: np.ndarray,
    start_s: float,
    t0: float,
    t1: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Every clock hour's edges and mean at once, as before."""
    first = np.floor((start_s + t0) / 3600.0)
    last = max(first + 1, np.ceil((start_s + t1) / 3600.0))
    hours = np.arange(first, last)
    edges = np.clip(np.r_[hours, last] * 3600.0 - start_s, t0, t1)
    counts = rng.poisson(rate * intensity[(hours % 168).astype(np.int64)] * np.diff(edges))
    lo = np.repeat(edges[:-1], counts)
    width = np.repeat(np.diff(edges), counts)
    return lo + width * rng.random(len(lo))


def _bulk_articles_ref(
    ranks: np.ndarray, k: np.ndarray, weights: np.ndarray, rng: np.random.Generator
) -> None:
    """One bulk publish at a time, as before."""
    live = np.flatnonzero(weights)
    first = np.cumsum(k) - k
    for i in np.flatnonzero(k > 1):
        keys = rng.exponential(size=len(live)) / weights[live]
        pick = np.argpartition(keys, k[i] - 1)[: k[i]]
        ranks[first[i] : first[i] + k[i]] = live[pick[np.argsort(keys[pick], kind="stable")]]


def _by_article_ref(article: np.ndarray, time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((time, article))
    same = np.zeros(len(order), dtype=bool)
    same[1:] = article[order][1:] == article[order][:-1]
    return order, same


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> EditLog:
    path = tmp_path_factory.mktemp("long") / "long-edits.csv"
    one = read_log(BUNDLED)
    assert write_long_log(path, 2 * len(one)) == 2 * len(one)
    log = read_log(path)
    assert log.n_articles == one.n_articles and len(log) == 2 * len(one)
    return log


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blockdraw, "HOURS_AT_ONCE", 1_000)
    monkeypatch.setattr(blockdraw, "KEYS_AT_ONCE", 5_000)


def _runs(log: EditLog, shape, seeds: int = 2) -> list[generate.Saves]:
    t0 = float(log.epoch_s[0])
    span = float(log.epoch_s[-1]) - t0 + 1.0
    out = []
    for features in (frozenset(generate.FEATURES), frozenset(), frozenset({"bulk"})):
        for seed in range(seeds):
            children = np.random.SeedSequence([1, seed]).spawn(len(generate.CAL_STREAMS))
            rngs = {
                s: np.random.default_rng(c)
                for s, c in zip(generate.CAL_STREAMS, children, strict=True)
            }
            per_day = shape.log_saves_per_day
            out.append(
                generate.generate(
                    shape, log.n_articles, per_day, span, rngs, features, start_s=week_offset(t0)
                )
            )
    return out


def _same(a: list[generate.Saves], b: list[generate.Saves]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for field in ("time_s", "rank", "kind", "publish"):
            u, v = getattr(x, field), getattr(y, field)
            assert u.dtype == v.dtype and np.array_equal(u, v), field


def test_block_draws_make_the_same_runs_as_one_hour_and_one_publish_at_a_time(
    long_log: EditLog, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = fit(long_log, boot=2, gof_sims=2)
    shapes = (f.shape, stretch_sessions(f.shape, 2.5))
    fast = [run for shape in shapes for run in _runs(long_log, shape)]
    assert sum(len(r) for r in fast) > 0 and any(
        (r.publish[1:] == r.publish[:-1]).any() for r in fast
    )
    monkeypatch.setattr(blockdraw, "sitting_starts", _sitting_starts_ref)
    monkeypatch.setattr(blockdraw, "bulk_articles", _bulk_articles_ref)
    _same(fast, [run for shape in shapes for run in _runs(long_log, shape)])


def test_an_hour_cut_by_the_window_or_a_fractional_start_draws_as_before(
    small_blocks: None,
) -> None:
    intensity = 168.0 * np.linspace(0.2, 1.8, 168) / np.linspace(0.2, 1.8, 168).sum()
    for start_s, t0, t1 in (
        (12_345.0, -7_200.5, 5_000_000.25),  # whole-second start: the week's means
        (12_345.5, -7_200.0, 5_000_000.0),  # a fractional start: every hour its own width
        (0.0, 0.0, 3_600.0),  # one hour
        (59.0, -10.0, 7_000.0),  # three hours, two cut
    ):
        a, b = (
            draw(1e-3, intensity, start_s, t0, t1, np.random.default_rng(7))
            for draw in (blockdraw.sitting_starts, _sitting_starts_ref)
        )
        assert np.array_equal(a, b) and len(a) > 0


def test_the_fit_and_burst_table_of_a_long_log_are_those_of_the_sort_by_both(
    long_log: EditLog, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def both() -> tuple[pd.DataFrame, str, pd.DataFrame]:
        f = fit(long_log, boot=20, gof_sims=5)
        return f.table, f.shape.to_json(), burstiness_table(long_log, f, reps=3, stretch=2.0)

    monkeypatch.setattr(overlog, "THREADS", 3)  # the runs in threads, as a long log's
    monkeypatch.setattr(overlog, "THREADED_ROWS", 1)
    fast = both()
    monkeypatch.setattr(overlog, "THREADED_ROWS", 10**12)  # one after another
    monkeypatch.setattr(sessions, "by_article", _by_article_ref)
    monkeypatch.setattr(blockdraw, "sitting_starts", _sitting_starts_ref)
    monkeypatch.setattr(blockdraw, "bulk_articles", _bulk_articles_ref)
    ref = both()
    pd.testing.assert_frame_equal(fast[0], ref[0], check_exact=True)
    assert fast[1] == ref[1]
    pd.testing.assert_frame_equal(fast[2], ref[2], check_exact=True)


@pytest.mark.deep
def test_the_repeated_log_ends_by_2100_and_one_past_it_is_refused_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deep: bool
) -> None:
    """136 copies of the shared log's six years would end in 2836: the bench's repeated log
    is squeezed to end by 2100, the last year a log may hold, and a row past it is refused
    by the one-pass read and the careful one alike, naming its line. make test writes 40
    copies (they too would end past 2100, in 2261), make check the bench's 136."""
    path = tmp_path / "long-edits.csv"
    write_long_log(path, (136 if deep else 40) * 2_938)
    raw = path.read_bytes()
    fast = logs._parse_fast(raw.decode(), str(path))
    assert fast is not None and fast.epoch_s[-1] <= logs.TIMES[1]
    monkeypatch.setattr(logs, "_parse_fast", lambda text, name: None)
    slow = logs.parse_log(raw, str(path))
    for field in ("epoch_s", "publish", "article", "kind"):
        u, v = getattr(fast, field), getattr(slow, field)
        assert u.dtype == v.dtype and np.array_equal(u, v), field
    monkeypatch.undo()
    bad = raw.replace(b"\n2100-", b"\n2101-", 1)
    line = bad[: bad.index(b"\n2101-") + 1].count(b"\n") + 1
    with pytest.raises(logs.LogError, match=f"line {line}: time '2101-.*outside 1970"):
        logs.parse_log(bad, str(path))


def test_the_burst_runs_make_each_run_once_and_the_same_as_alone(
    long_log: EditLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The burst stretch's first trial (the fitted shape's runs 0 to 3 on seed 1) is the
    burst table's first runs: made once, with the values they have when made alone."""
    f = fit(long_log, boot=2, gof_sims=2)
    made: list[tuple] = []
    one_run = overlog.one_run

    def counted(*args: object) -> generate.Saves:
        made.append(args)
        return one_run(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(overlog, "one_run", counted)
    runs = burst_runs(f.shape, long_log, reps=5, seed=1)
    assert len(made) == len(set(made))  # no run made twice
    fitted = [a for a in made if a[0] == f.shape and a[1] == "calibrated"]
    assert sorted(a[-1] for a in fitted) == list(range(5))  # 0 to 3 shared with the stretch
    alone = overlog.coefficients_over_log(f.shape, long_log, 5, 1)
    for process, values in alone.items():
        assert values.tobytes() == runs[process].tobytes()


def test_a_publish_resample_takes_its_sums_as_one_publish_at_a_time() -> None:
    """The publish bootstrap's whole-number sums, taken as one integer product, are those of
    the publishes counted w times each."""
    log = read_log(BUNDLED)
    starts, _, _ = sessions.split(log.article, log.epoch_s, sessions.DEFAULT_SESSION_GAP_S)
    per_pub, _, _ = publishes.per_publish(
        log, starts, sessions.DEFAULT_SITTING_GAP_S, tuple(logs.initial_imports(log))
    )
    _, rows, n_starts, kinds, _ = per_pub
    table = publishes.PublishTable(*per_pub)
    rng = np.random.default_rng(3)
    for _ in range(3):
        w = np.bincount(rng.integers(0, len(rows), len(rows)), minlength=len(rows))
        got = table.values(86400.0, w)
        saves = int((w * rows).sum())
        bulk, has = n_starts > 1, n_starts > 0
        mix = (kinds * w[:, None]).sum(axis=0)
        want = {
            "saves per day": saves / 1.0,
            "bulk share of session starts": int(w[bulk].sum()) / int(w[has].sum()),
            "bulk size (mean)": int((w * n_starts)[bulk].sum()) / int(w[bulk].sum()),
            "publishes with >1 article": int(w[rows > 1].sum()) / int(w.sum()),
            "saves in publishes of >=10": int((w * rows)[rows >= 10].sum()) / saves,
        } | {f"mix {k}": float(v) for k, v in zip(generate.KINDS, mix / mix.sum(), strict=True)}
        assert {k: got[k] for k in want} == want


def test_a_long_log_generates_a_fixed_budget_of_saves_and_the_bundled_logs_the_most_runs() -> None:
    """The burst table's runs and the stretch's trial runs shrink with the log's length (each
    run as long as the log, its B steadier), down to 2; every bundled log, and so every
    committed figure, keeps the most: 20 runs a process and 4 a trial."""
    from sim.calibrate.burstfit import RUNS, trial_runs
    from sim.cli.calibrate import BURST_REPS, burst_reps

    for path in logs.BUNDLED.parent.glob("*.csv"):
        rows = len(read_log(path))
        assert (burst_reps(rows), trial_runs(rows)) == (BURST_REPS, RUNS), path.name
    assert (burst_reps(400_000), trial_runs(400_000)) == (10, 2)
    assert (burst_reps(4_000_000), trial_runs(4_000_000)) == (2, 2)
    lengths = [10**k for k in range(1, 9)]
    for rule in (burst_reps, trial_runs):
        runs = [rule(n) for n in lengths]
        assert runs == sorted(runs, reverse=True) and min(runs) == 2, rule.__name__
