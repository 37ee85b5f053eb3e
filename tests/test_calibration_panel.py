"""The calibration's tests on the panel (issue 37, item 2): the drift test tells a log that
changes over the split from one that holds; the transfer test runs a shape at the target's
volume, article count and window; the report reads each miss as the log's or the model's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim.calibrate import drift
from sim.calibrate.generate import WEEK_S
from sim.calibrate.logs import PANEL, EditLog, read_log
from sim.calibrate.panel import imports, transfer
from sim.calibrate.validate import TRAIN_SHARE, held_out_rows, split_log
from sim.params import Params
from sim.report.calibration_panel import drifting, panel_text, verdict


def _log(multi_until: float, weeks: int = 60, seed: int = 5) -> EditLog:
    """Two publishes a week at random instants on 20 articles; a publish holds 3 articles
    before ``multi_until`` (a share of the span) and 1 after."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, weeks * WEEK_S, 2 * weeks)) + 1_600_000_000.0
    t = np.floor(t)
    cut = t[0] + multi_until * (t[-1] - t[0])
    epoch, publish, article = [], [], []
    for p, when in enumerate(t):
        k = 3 if when < cut else 1
        for a in rng.choice(20, size=k, replace=False):
            epoch.append(when), publish.append(p), article.append(int(a))
    article = np.unique(np.asarray(article), return_inverse=True)[1]
    n = len(epoch)
    return EditLog(
        np.asarray(epoch), np.asarray(publish), article, np.zeros(n, np.int8), 20, "made-up"
    )


def test_drift_flags_a_log_that_changes_over_the_split_and_not_one_that_holds() -> None:
    for multi_until, drifts in ((TRAIN_SHARE, True), (2.0, False)):
        log = _log(multi_until)
        t0, t1 = log.epoch_s[0], log.epoch_s[-1]
        split = t0 + TRAIN_SHARE * (t1 - t0)
        p = drift.drift_test(log, split, 99, seed=1)
        assert set(p) == set(drift.STATISTICS)
        multi = p["publishes with >1 article"]
        if drifts:  # every publish multi-article before the split, none after: the extreme
            assert multi == 1 / 100
        else:  # every publish holds 3 articles throughout: no dealing differs
            assert multi == 1.0
        # the weekday mix is stationary by construction in both
        assert p["weekend share"] > drift.DRIFT_LEVEL
    assert drift.permutations(200) == 999
    assert drift.drift_test(log, split, 99, seed=1) == p  # its own seeded stream


def test_a_shape_transferred_runs_at_the_targets_volume_articles_and_window() -> None:
    """Log a's split carries log b's fit but DuckDuckGo's log, window and volume: its
    transfer to b must be b's own held-out runs (so nothing of a but its fit is used), and
    the diagonal is the held-out test's calibrated rows."""
    b = split_log(read_log(PANEL["Obsidian"]), seed=1, gof_sims=2)
    a = replace(split_log(read_log(PANEL["DuckDuckGo"]), seed=1, gof_sims=2), fit=b.fit)
    splits = {"a": a, "b": b}
    validation = pd.concat(
        [held_out_rows(sp, 4, 1).assign(log=name) for name, sp in splits.items()],
        ignore_index=True,
    )
    got = transfer(splits, validation, 4, 1)
    assert len(got) == 4 * len(drift.STATISTICS) and (got["runs"] == 4).all()
    columns = ["statistic", "real", "generated_mean", "generated_lo", "generated_hi", "inside"]
    a_to_b = got[(got["log"] == "a") & (got["target"] == "b")][columns].reset_index(drop=True)
    b_to_b = got[(got["log"] == "b") & (got["target"] == "b")][columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(a_to_b, b_to_b)
    own = validation[(validation["log"] == "b") & (validation["process"] == "calibrated")]
    pd.testing.assert_frame_equal(b_to_b, own[columns].reset_index(drop=True))
    volume = got[got["target"] == "b"]["target_saves_per_day"]
    assert (volume == b.fit.shape.log_saves_per_day).all()
    # a's log, window and statistics differ from b's: had the transfer used them, a -> b
    # would not be b's own test
    assert a.log.n_articles != b.log.n_articles and a.span_s != b.span_s
    assert abs(a.real["saves per active day"] - b.real["saves per active day"]) > 0.1
    # the report renders the panel from these tables alone
    t = {"calibration_validation": validation, "calibration_transfer": got}
    t["calibration_imports"] = imports(splits)
    text = panel_text(t)
    assert "| shape fitted on ↓, predicting → | a | b |" in text
    assert "a, publish 3 on 2019-02-22 (91 articles added, 91 saves left out)" in text
    assert "b, publish 0 on 2020-08-05 (74 articles added, 74 saves left out)" in text
    assert "**Not validated at the study's volume.**" in text
    assert f"{Params().n_saves} saves in {Params().day_s / 3600:g} hours" in text


def test_a_miss_reads_as_the_logs_when_the_log_drifts_else_as_the_models() -> None:
    assert verdict(True, True) == "inside"
    assert "the log drifts" in verdict(False, True)
    assert "the model's miss" in verdict(False, False)


def test_drift_is_called_by_holms_step_down_over_each_logs_statistics() -> None:
    """Uncorrected, a p of 0.03 among eight would read as drift; Holm asks 0.05/8 of the
    smallest, then 0.05/7, ... and stops at the first it cannot reject."""
    p = {"x": [0.004, 0.006, 0.03, 0.5], "y": [0.03, 0.04, 0.2, float("nan")]}
    rows = pd.DataFrame(
        [
            {"log": log, "statistic": f"s{i}", "process": process, "drift_p": v}
            for log, ps in p.items()
            for i, v in enumerate(ps)
            for process in ("calibrated", "write-up (volume only)")
        ]
    )
    # x: 0.004 <= 0.05/4, 0.006 <= 0.05/3, 0.03 > 0.05/2 stops; y: 0.03 > 0.05/3 stops
    assert drifting(rows) == {("x", "s0"), ("x", "s1")}


def test_the_burst_gap_is_closed_by_the_burst_arm_run_on_the_shared_log() -> None:
    """The text gives the stretched process's B beside the log's, and the burst arm's moves
    against the calibrated shape on the shared log only, each with its interval."""
    from sim.report.calibration import burst_gap_bound
    from sim.study.realshape import BURST_ARM, SHARED_LOG

    burst = pd.DataFrame(
        {
            "source": ["log", "calibrated", "calibrated, sessions ×2"],
            "coefficient": ["B"] * 3,
            "estimate": [0.15, 0.1, 0.14],
            "ci_low": [0.12, 0.08, 0.11],
            "ci_high": [0.18, 0.12, 0.17],
        }
    )
    arm = {"arm": BURST_ARM, "log": SHARED_LOG, "diff_mean": 0.01, "seeds": 22}
    realshape = pd.DataFrame(
        [
            {**arm, "figure": "stale_share", "diff_ci_lo": -0.02, "diff_ci_hi": 0.04},
            {
                **arm,
                "figure": "poll_calls",
                "diff_mean": -3.0,
                "diff_ci_lo": -9.0,
                "diff_ci_hi": 3.0,
            },
            {
                **arm,
                "log": "other",
                "figure": "cas_reject_3600s",
                "diff_ci_lo": -1,
                "diff_ci_hi": 1,
            },
            {
                **arm,
                "arm": "+bursts",
                "figure": "title_caught_share",
                "diff_ci_lo": -1,
                "diff_ci_hi": 1,
            },
        ]
    )
    text = burst_gap_bound(burst, realshape)
    assert "(sessions ×2), the calibrated process generates B 0.140 (0.110 – 0.170" in text
    assert "stretched by a factor fitted to the log's B" in text
    assert "the log's 0.150 (0.120 – 0.180)" in text
    assert "citations stale or gone at day end +1.0 pt (-2.0 – +4.0)" in text
    assert "poll: calls a day (hourly) -3.0 calls a day (-9.0 – +3.0)" in text
    assert "(22 seeds)" in text
    assert "CAS rejected" not in text  # another log's arm is not the shared log's
    assert "title-only" not in text and "title" not in text.split("moves")[1].split("(95")[0]
    assert burst_gap_bound(burst, None) == ""
