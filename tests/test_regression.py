"""Regression: every committed figure is rebuilt from the committed per-seed rows and must
equal the committed file byte for byte; a sample of seeds of every experiment, drawn
afresh on each run, is simulated again and must give its committed rows exactly, on the
columns and check methods the committed rows hold (a method new to the registry is compared
once `make rows` has made its rows).

The sample's seed is printed in pytest's header; rerun a failing sample with
REGRESSION_SAMPLE_SEED=<seed> make test. The pooled rows (percentiles, medians) and the
figures are checked by `make check`, the full fresh rerun.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from sim.advise.choice import advised_choice
from sim.params import HOUR_S, Params
from sim.report import readme
from sim.results import rowfiles, seedrows
from sim.results.reproduce import readme_blocks, write_tables
from sim.results.seedrows import BY_NAME, EXPERIMENTS, Experiment
from sim.results.tables import TABLES
from sim.study import breakeven, exposure, gate, readings, realshape, realshape_panel
from sim.study.experiments import (
    SWEEP_INTERVALS_S,
    _seed_days,
    experiment_params,
    frames_of,
    run_all,
)
from sim.studymap import grid as map_grid

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(os.environ.get("REGRESSION_RESULTS") or ROOT / "results")
"""The committed results; another folder only to test the test (tests/mutations/run.py)."""
ROWS = seedrows.read(RESULTS / "seeds")
PANEL_LOGS = list(realshape.PANEL)
SUMMARY = json.loads((RESULTS / "summary.json").read_text())


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, pd.DataFrame]]:
    out = tmp_path_factory.mktemp("rebuilt")
    return out, write_tables(out, Params(), ROWS, with_figures=False)


@pytest.mark.parametrize("name", [f"{t.name}.csv" for t in TABLES])
def test_committed_table_is_rebuilt_from_the_committed_rows(
    rebuilt: tuple[Path, dict], name: str
) -> None:
    assert (rebuilt[0] / name).read_text() == (RESULTS / name).read_text(), name


@pytest.mark.parametrize("name", ["summary.json", "advise.txt", "REPORT.md"])
def test_committed_text_is_rebuilt_from_the_committed_rows(
    rebuilt: tuple[Path, dict], name: str
) -> None:
    assert (rebuilt[0] / name).read_text() == (RESULTS / name).read_text(), name


def test_readme_shows_the_figures_of_the_committed_rows(rebuilt: tuple[Path, dict]) -> None:
    text = (ROOT / "README.md").read_text()
    for name, block in readme_blocks(rebuilt[0], rebuilt[1]).items():
        assert readme.replace_block(text, name, block) == text, name


def _sample(experiment: Experiment, sample_seed: int) -> list[int]:
    committed = sorted(ROWS[experiment.parts[0]]["seed"].unique())
    rng = random.Random(f"{sample_seed}:{experiment.name}")
    return sorted(rng.sample(committed, experiment.sample))


SEEDED = [
    e
    for e in EXPERIMENTS
    if set(e.pooled) != set(e.parts)
    and e.name not in ("break_even", "realshape", "map", "exposure", "gate", "advise_seedsets")
    and not e.grow
]
"""Experiments with per-seed rows (the calibration's are all pooled: see below); the
break-even grid, the map's grid, the exposure sweep, the gate's grids, the real-shape panel
and the experiments whose units run their own seeds (the sequential rule) have tests of
their own, which rerun a sampled part of them; the seed sets' (a seed of set A runs set B's
too) reruns seeds 1 and 1001 (tests/test_advise_seedsets.py)."""


@pytest.mark.parametrize("experiment", SEEDED, ids=[e.name for e in SEEDED])
def test_sampled_seeds_simulated_again_give_their_committed_rows(
    experiment: Experiment, regression_sample_seed: int
) -> None:
    seeds = _sample(experiment, regression_sample_seed)
    fresh = experiment.run(Params(), seeds, 1, False)
    rerun = f"seeds {seeds}; rerun with REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    for part in experiment.parts:
        if part in experiment.pooled:
            continue
        committed = ROWS[part]
        _assert_rows_equal(fresh[part], committed[committed["seed"].isin(seeds)], part, rerun)


def _assert_rows_equal(fresh: pd.DataFrame, want: pd.DataFrame, part: str, rerun: str) -> None:
    """Fresh rows, through the rows file's text as `make reproduce` writes them, equal the
    committed ones exactly, on the columns and methods the committed rows hold
    (``rowfiles.held_by``): a method added to the registry fails nothing until `make rows`
    makes its rows, and a committed column lost or a committed method's value moved fails."""
    want = want.reset_index(drop=True)
    try:
        got = rowfiles.held_by(rowfiles.read_csv(rowfiles.to_csv(fresh)), want)
    except ValueError as e:
        raise AssertionError(f"{part}: {e}; {rerun}") from None
    pd.testing.assert_frame_equal(
        got, want, check_exact=True, check_dtype=False, obj=f"{part} ({rerun})"
    )


READINGS_SAMPLED = 4
"""Readings the sampled sensitivity seed reruns, of the up to 22 that ran it."""


def test_a_sampled_seed_of_every_reading_that_ran_it_gives_its_committed_rows(
    regression_sample_seed: int,
) -> None:
    """A seed drawn from every seed any reading ran (the sequential rule gives readings
    60 to 300), and READINGS_SAMPLED of the readings whose rows hold it, both drawn afresh,
    simulated again on it (all 22 readings of a seed up to 60 took 8 CPU-s; `make check`
    reruns them all)."""
    experiment = BY_NAME["sensitivity"]
    seeds = _sample(experiment, regression_sample_seed)
    committed = ROWS["sensitivity"]
    at = committed[committed["seed"].isin(seeds)]
    held = list(dict.fromkeys(zip(at["choice"], at["reading"], strict=True)))
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:readings")
    drawn = set(rng.sample(held, min(READINGS_SAMPLED, len(held))))
    keys = [k for k in held if k in drawn]  # in the rows' order
    at = at[[k in drawn for k in zip(at["choice"], at["reading"], strict=True)]]
    requests = readings.sensitivity_requests(Params(), seeds, keys)
    fresh = readings.sensitivity_rows(Params(), run_all(requests, 1, False), keys)
    rerun = f"seeds {seeds}, {len(keys)} readings; REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    others = at.columns.difference(fresh.columns)  # figures of runs no sampled reading reran
    assert at[others].isna().all().all(), rerun
    _assert_rows_equal(fresh, at[list(fresh.columns)], "sensitivity", rerun)


SUB_GRID = {"n_saves": 1, "n_questions": 1}
"""Values of each break-even axis the sampled rerun takes: 1 of its 12 points (a full seed of
the grid took 21 s, most of it in the 12,000-save days, and two points 2-3 CPU-s; `make
check` reruns them all)."""


def test_a_sampled_part_of_the_break_even_grid_gives_its_committed_rows(
    regression_sample_seed: int,
) -> None:
    [experiment] = [e for e in EXPERIMENTS if e.name == "break_even"]
    seeds = _sample(experiment, regression_sample_seed)
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:grid")
    axes = {k: sorted(rng.sample(v, SUB_GRID[k])) for k, v in breakeven.AXES.items()}
    request = breakeven.break_even_request(Params(), axes, seeds)
    fresh = breakeven.break_even_rows(request, run_all([request], 1, False)[0])
    committed = ROWS["break_even"]
    chosen = committed["seed"].isin(seeds)
    for axis, values in axes.items():
        chosen &= committed[axis].isin(values)
    rerun = f"seeds {seeds}, {axes}; rerun with REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    assert chosen.any(), rerun
    _assert_rows_equal(fresh, committed[chosen], "break_even", rerun)


def test_a_sampled_point_of_each_gate_grid_gives_its_committed_rows(
    regression_sample_seed: int,
) -> None:
    """A sampled seed at one approval latency of the latency grid and, on a seed of the
    conditions grid, one condition of it, both drawn afresh, each under both strategies (a
    seed of both grids took 2-3 CPU-s, 22 days; `make check` reruns them all): its rows,
    and its edit-by-edit pairs of the strategies where the median is the default's."""
    experiment = BY_NAME["gate"]
    seeds = _sample(experiment, regression_sample_seed)
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:grid")
    median = rng.choice(gate.MEDIANS_S)
    condition = rng.choice(gate.CONDITIONS[1:])
    requests = [
        replace(r, points=tuple(p for p in r.points if keep(p)))
        for r, keep in zip(
            gate.gate_requests(Params(), seeds),
            (
                lambda p: p.approval_median_s == median,
                lambda p: (p.tool_latency_s, p.approval_reviewer) == condition,
            ),
            strict=True,
        )
    ]
    edits = gate.gate_edits(requests, run_all(requests, 1, False))
    shown = {(0.0, "independent", median)}
    if requests[1].seeds:
        shown.add((*condition, Params().approval_median_s))
    rerun = (
        f"seeds {seeds}, median {median} s, condition {condition}; "
        f"rerun with REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    )
    for part, fresh, keys in (
        (
            "gate",
            gate.gate_rows(edits),
            ["tool_latency_s", "approval_reviewer", "approval_median_s"],
        ),
        ("gate_pairs", gate.gate_pairs(edits), ["tool_latency_s", "approval_reviewer"]),
    ):
        committed = ROWS[part]
        wanted = {k[: len(keys)] for k in shown if part == "gate" or k[2] == 120.0}
        chosen = committed["seed"].isin(seeds) & pd.Series(
            [k in wanted for k in zip(*(committed[c] for c in keys), strict=True)],
            index=committed.index,
        )
        if not chosen.any():  # no pair: a seed past the conditions' at another median
            assert part == "gate_pairs" and fresh.empty, rerun
            continue
        _assert_rows_equal(fresh, committed[chosen], part, rerun)


def test_a_sampled_interval_of_the_exposure_sweep_gives_its_committed_rows(
    regression_sample_seed: int,
) -> None:
    """A sampled seed's exposure day with the hour and one other interval of the sweep, drawn
    afresh, watched (a seed of all nine took 3 CPU-s, most of it the 1-minute checks;
    `make check` reruns them all): watchers only read, so each (method, interval) has the
    rows it has beside all the others. The hour is always in, as the hourly checker's
    methods have their rows there."""
    experiment = BY_NAME["exposure"]
    seeds = _sample(experiment, regression_sample_seed)
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:intervals")
    others = [t for t in SWEEP_INTERVALS_S if t != HOUR_S]
    intervals = tuple(sorted((HOUR_S, rng.choice(others))))
    params = replace(experiment_params(Params(), "exposure"), sweep_intervals_s=intervals)
    days = [_seed_days(s, [(params, "exposure")], [exposure.EXPOSURE_RECORDS]) for s in seeds]
    fresh = exposure.exposure_rows(Params(), frames_of([d for [d] in days])).rows
    committed = ROWS["exposure"]
    chosen = committed["seed"].isin(seeds) & committed["interval_s"].isin((0.0, *intervals))
    rerun = f"seeds {seeds}, intervals {intervals}; REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    _assert_rows_equal(fresh, committed[chosen], "exposure", rerun)


def test_a_sampled_point_of_each_relation_of_the_map_gives_its_committed_rows(
    regression_sample_seed: int,
) -> None:
    """A sampled seed at one point of each relation of the map's grid, both drawn afresh (a
    seed of all six points took 2.3 CPU-s, most of it the 3,000-save days; `make check`
    reruns them all): its staleness and CAS rows."""
    experiment = BY_NAME["map"]
    seeds = _sample(experiment, regression_sample_seed)
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:grid")
    saves = {relation: (rng.choice(counts),) for relation, counts in map_grid.SAVES.items()}
    [runs] = run_all([map_grid.request(Params(), seeds, saves)], 1, False)
    rerun = f"seeds {seeds}, {saves}; rerun with REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    fresh = {
        "map_stale": map_grid.stale_rows(Params(), runs, saves),
        "map_cas": map_grid.cas_rows(Params(), runs, saves),
    }
    for part, rows in fresh.items():
        committed = ROWS[part]
        chosen = committed["seed"].isin(seeds) & pd.Series(
            [
                n in saves[r]
                for r, n in zip(committed["relation"], committed["n_saves"], strict=True)
            ],
            index=committed.index,
        )
        assert chosen.sum() == len(rows), rerun
        _assert_rows_equal(rows, committed[chosen], part, rerun)


ARMS_SAMPLED = 4
"""Arms the sampled real-shape seed reruns, of the up to 12 that ran it (all of them took
6-7 CPU-s, 24 days; each arm's rows are its own days', as each reading's are)."""


def test_a_sampled_log_of_the_real_shape_panel_gives_its_committed_rows_and_traits(
    regression_sample_seed: int,
) -> None:
    """One log of the panel, one of its seeds and ARMS_SAMPLED of the arms that ran that seed
    on that log (the sequential rule gives arms 11 to 99 seeds), all drawn afresh (a seed of
    all three logs took 30 s, most of it the arms' days and the three fits; `make check`
    reruns them all)."""
    experiment = BY_NAME["realshape"]
    rng = random.Random(f"{regression_sample_seed}:{experiment.name}:log")
    log = rng.choice(PANEL_LOGS)
    committed = ROWS["realshape"]
    own = sorted(committed.loc[committed["log"] == log, "seed"].unique())
    seeds = sorted(rng.sample(own, experiment.sample))
    at = committed[committed["seed"].isin(seeds) & (committed["log"] == log)]
    ran = [a.name for a in realshape.ARMS if a.name in set(at["arm"])]  # the rule's, at seed
    drawn = set(rng.sample(ran, min(ARMS_SAMPLED, len(ran))))
    arms = tuple(a for a in realshape.ARMS if a.name in drawn)
    at = at[at["arm"].isin(drawn)]
    request = realshape.panel_request(Params(), advised_choice(Params()), seeds, arms, (log,))
    fresh = realshape.panel_rows(
        Params(), advised_choice(Params()), run_all([request], 1, False)[0], arms, (log,)
    )
    rerun = (
        f"seeds {seeds}, log {log}, arms {sorted(drawn)}; "
        f"rerun with REGRESSION_SAMPLE_SEED={regression_sample_seed}"
    )
    _assert_rows_equal(fresh, at, "realshape", rerun)
    traits = ROWS["realshape_traits"]
    _assert_rows_equal(
        realshape_panel.panel_traits((log,)),
        traits[traits["log"] == log],
        "realshape_traits",
        rerun,
    )


def test_every_part_is_committed_and_every_seed_counted() -> None:
    assert SUMMARY["seeds"] == seedrows.seed_counts(ROWS)
    for e in EXPERIMENTS:
        for part in e.parts:
            assert (RESULTS / "seeds" / f"{part}.csv").exists(), part
        if not e.pooled:
            continue
        assert set(e.pooled) <= set(e.parts), e.name


def test_search_and_poll_texts_are_at_most_half_their_former_size() -> None:
    table = pd.read_csv(RESULTS / "response_sizes.csv").set_index("result")
    for kind in ("search, 5 hits", "poll, 100 events"):
        assert table.loc[kind, "text_now_over_before"] <= 0.5, kind


# -- the write-up's qualitative claims, on the committed (and so on a fresh) run ----------
PER_SEED = pd.read_csv(RESULTS / "per_seed.csv")


def test_id_methods_equal_ground_truth_at_every_check_of_every_seed() -> None:
    assert PER_SEED["ids_equal_truth"].dropna().astype(bool).all()


def test_title_only_never_catches_a_body_only_edit() -> None:
    assert (PER_SEED["title_caught_body"].dropna() == 0).all()


def test_polling_needs_one_call_per_hourly_check() -> None:
    assert (PER_SEED["poll_calls_per_check_max"].dropna() == 1).all()


def test_every_replay_matches_and_appends_nothing() -> None:
    s = PER_SEED.dropna(subset=["cas_edits"])
    assert (s["cas_replays_matched"] == s["cas_replays"]).all()
    assert (s["cas_replays"] == s["cas_first_ok"]).all()  # first-try successes, as 409 counts
    assert (s["cas_replay_new_events"] == 0).all()
    assert s["cas_retries_all_succeeded"].astype(bool).all()


def test_rejection_rises_with_delay_and_is_about_zero_at_5_s() -> None:
    ladder = pd.read_csv(RESULTS / "cas_by_delay.csv")
    assert ladder["rejected_share_all_seeds_mean"].is_monotonic_increasing
    assert ladder.loc[ladder["delay_s"] == 5, "rejected_share_all_seeds_mean"].item() < 0.01
    curve = pd.read_csv(RESULTS / "cas_curve.csv")
    assert curve["rejected_share_all_seeds_mean"].iloc[0] < 0.01
    assert curve["rejected_share_all_seeds_mean"].iloc[-1] > 0.3


def test_zipf_leaves_more_stale_citations_than_the_control() -> None:
    c = pd.read_csv(RESULTS / "comparison.csv").set_index("key")
    assert c.loc["zipf_stale_share", "ci_lo"] > c.loc["control_stale_share", "ci_hi"]


def test_the_gate_tracks_its_closed_forms_and_its_strategies_are_one_process() -> None:
    """Approve-then-write's first writes sent that met a human's newer save, or an
    unpublished article, match their closed forms (the chance of each in the read-to-write
    window) within 3 SE + 1 point at every approval latency; with tools that take no time
    the two strategies are one process (equal outcomes at every latency, edit by edit in
    the conditions grid), and re-reading after approval costs more agent calls."""
    gate = pd.read_csv(RESULTS / "gate.csv")
    pooled = gate[gate["delay_s"] == "all"]
    a = pooled[pooled["strategy"] == "approve_then_write"].set_index("approval_median_s")
    b = pooled[pooled["strategy"] == "reread_after_approval"].set_index("approval_median_s")
    for share, theory in (
        ("human_conflict_share_of_sent", "human_conflict_theory"),
        ("gone_share_of_sent", "gone_theory"),
    ):
        se = (a[theory] * (1 - a[theory]) / a["first_writes_sent"]) ** 0.5
        gap = (a[share] - a[theory]).abs()
        assert (gap < 3 * se + 0.01).all(), (share, gap.tolist())
    for outcome in ("succeeded_share", "declined_share", "approvals_per_edit", "gave_up_share"):
        pd.testing.assert_series_equal(a[outcome], b[outcome])
    assert (b["agent_calls_per_edit"] > a["agent_calls_per_edit"]).all()
    conditions = pd.read_csv(RESULTS / "gate_conditions.csv")
    at_zero = conditions[conditions["tool_latency_s"] == 0]
    assert (at_zero["edits_differing_share"] == 0).all()


def test_every_open_choice_and_reading_is_in_the_sensitivity_table() -> None:
    """Every reading of every open choice (the twelve ladders among them) is in the table; a
    reading that cannot move a figure is marked so and leaves it exactly where the default
    is; the counting reading is judged against 191 of 600; no far miss is borderline."""
    from sim.report.sensitivity import COUNTED_FIGURE, COUNTING, can_move
    from sim.study.ladder import ladder_family
    from sim.study.readings import CHOICES, FIGURES

    table = pd.read_csv(RESULTS / "sensitivity.csv", dtype={"reading": str})
    readings = set(zip(table["choice"], table["reading"], strict=True))
    expected = {(c.field, str(r)) for c in CHOICES for r in c.readings}
    assert expected | {("default", "default"), (COUNTING, "True")} == readings
    assert set(table["figure"]) == {f.key for f in FIGURES}
    assert (
        table.loc[table["choice"] == "edit_delays_s", "reading"].nunique()
        == len(ladder_family()) - 1
    )
    default = table[table["choice"] == "default"].set_index("figure")
    for r in table[table["choice"] != "default"].itertuples():
        assert bool(r.can_move) == can_move(r.choice, r.reading, r.figure), r
        if not r.can_move:
            assert r.shift_from_default == 0, r
            assert r.mean == default.loc[r.figure, "mean"], r
    counted = table[(table["choice"] == COUNTING) & (table["figure"] == COUNTED_FIGURE)]
    assert counted["reported_value"].item() == pytest.approx(191 / 600)
    assert (table.loc[table["borderline"].astype(bool), "z"].abs() <= 1.96).all()
    two_peaks = table[(table["choice"] == "day_profile") & (table["reading"] == "two_peaks")]
    assert not two_peaks[two_peaks["figure"].str.startswith(("zipf_", "control_"))][
        "can_move"
    ].any()
    for timing in ("questions_peak", "saves_peak"):
        g = table[(table["choice"] == "day_profile") & (table["reading"] == timing)]
        assert g.set_index("figure").loc["zipf_stale_share", "shift_from_default"] != 0, timing


def test_the_calibrated_process_is_held_out_better_than_the_write_ups() -> None:
    """The calibration's held-out validation: the calibrated process lands inside the
    generated range on more of the log's statistics than the write-up's process."""
    v = pd.read_csv(RESULTS / "calibration_validation.csv")
    inside = v.groupby("process")["inside"].sum()
    assert inside["calibrated"] > inside["write-up (volume only)"]


def test_the_committed_calibration_is_the_packaged_logs_fit() -> None:
    """The calibration's parts are pooled (one bootstrap), so the sampled rerun leaves them
    to `make check`; its point estimates and the shape the real-shape runs use are refitted
    here without the bootstrap and must equal the committed ones (without the Zipf-Mandelbrot
    family's goodness-of-fit simulations too: no estimate reads them, and they were 1.5 of
    this test's 1.7 CPU-s)."""
    from sim.calibrate.fit import fit
    from sim.calibrate.logs import BUNDLED, read_log
    from sim.study.realshape_panel import packaged_shape

    fresh = fit(read_log(BUNDLED), boot=0, shape_only=True)
    committed = ROWS["calibration_fit"].set_index("quantity")["estimate"]
    again = fresh.table.set_index("quantity")["estimate"]
    pd.testing.assert_series_equal(again, committed, check_exact=True, check_names=False)
    assert ROWS["calibration_shape"]["shape_json"].item() == packaged_shape().to_json()
