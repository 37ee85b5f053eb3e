"""Regression: every committed figure is rebuilt from the committed per-seed rows and must
equal the committed file byte for byte; a sample of seeds of every experiment, drawn
afresh on each run, is simulated again and must give its committed rows exactly.

The sample's seed is printed in pytest's header; rerun a failing sample with
REGRESSION_SAMPLE_SEED=<seed> make test. The pooled rows (percentiles, medians) and the
figures are checked by `make check`, the full fresh rerun.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pandas as pd
import pytest

from sim import seedrows
from sim.params import Params
from sim.report import readme
from sim.reproduce import TABLES, readme_blocks, write_tables
from sim.seedrows import EXPERIMENTS, Experiment

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(os.environ.get("REGRESSION_RESULTS") or ROOT / "results")
"""The committed results; another folder only to test the test (tests/mutations/run.py)."""
ROWS = seedrows.read(RESULTS / "seeds")
SUMMARY = json.loads((RESULTS / "summary.json").read_text())


def sample_seed() -> int:
    from tests.conftest import REGRESSION_SAMPLE_SEED

    return REGRESSION_SAMPLE_SEED


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


def _sample(experiment: Experiment) -> list[int]:
    committed = sorted(ROWS[experiment.parts[0]]["seed"].unique())
    rng = random.Random(f"{sample_seed()}:{experiment.name}")
    return sorted(rng.sample(committed, experiment.sample))


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[e.name for e in EXPERIMENTS])
def test_sampled_seeds_simulated_again_give_their_committed_rows(experiment: Experiment) -> None:
    seeds = _sample(experiment)
    fresh = experiment.run(Params(), seeds, 1, False)
    rerun = f"seeds {seeds}; rerun with REGRESSION_SAMPLE_SEED={sample_seed()}"
    for part in experiment.parts:
        if part in experiment.pooled:
            continue
        got = seedrows.read_csv(seedrows.to_csv(fresh[part]))
        committed = ROWS[part]
        want = committed[committed["seed"].isin(seeds)].reset_index(drop=True)
        assert list(got.columns) == list(want.columns), f"{part}: {rerun}"
        pd.testing.assert_frame_equal(
            got, want, check_exact=True, check_dtype=False, obj=f"{part} ({rerun})"
        )


def test_every_part_is_committed_and_every_seed_counted() -> None:
    assert SUMMARY["seeds"] == seedrows.seed_counts(ROWS)
    for e in EXPERIMENTS:
        for part in e.parts:
            assert (RESULTS / "seeds" / f"{part}.csv").exists(), part
        if not e.pooled:
            continue
        assert set(e.pooled) < set(e.parts), e.name


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


def test_the_gate_tracks_its_closed_form_and_re_reading_never_writes_stale() -> None:
    """Approve-then-write's first writes that would have overwritten a human's newer text
    (ground truth) match the closed form, the chance a human saved in the read-to-write
    window, scaled by the edits that reached a write (a declined first approval writes
    nothing): within 3 SE + 0.5 points at every approval latency. Rejections run higher,
    by the agent's own other edits. Re-reading after the approval leaves nothing for CAS
    to reject."""
    gate = pd.read_csv(RESULTS / "gate.csv")
    pooled = gate[gate["delay_s"] == "all"]
    a = pooled[pooled["strategy"] == "approve_then_write"]
    b = pooled[pooled["strategy"] == "reread_after_approval"]
    expected = a["human_save_in_window_theory"] * (1 - a["declined_share"])
    se = (expected * (1 - expected) / a["edits"]) ** 0.5
    gap = (a["would_overwrite_share"] - expected).abs()
    assert (gap < 3 * se + 0.005).all(), gap.tolist()
    assert (a["first_try_rejected_share"] >= a["would_overwrite_share"]).all()
    assert (b["first_try_rejected_share"] == 0).all() and (b["would_overwrite_share"] == 0).all()
    assert a["first_try_rejected_share"].is_monotonic_increasing


def test_every_open_choice_and_reading_is_in_the_sensitivity_table() -> None:
    from sim.report.sensitivity import CHOICES, COUNTING, FIGURES

    table = pd.read_csv(RESULTS / "sensitivity.csv")
    readings = set(zip(table["choice"], table["reading"].astype(str), strict=True))
    expected = {(c.field, str(r)) for c in CHOICES for r in c.readings}
    assert expected | {("default", "default"), (COUNTING, "True")} == readings
    assert set(table["figure"]) == {f.key for f in FIGURES}
    default = table[table["choice"] == "default"].set_index("figure")
    for (choice, _reading), g in table.groupby(["choice", "reading"]):
        if choice in ("default", COUNTING):
            continue
        runs = next(c.runs for c in CHOICES if c.field == choice)
        if "staleness" not in runs:  # an agent-side reading leaves the staleness runs alone
            same = g.set_index("figure").loc["zipf_stale_share", "mean"]
            assert same == default.loc["zipf_stale_share", "mean"]
