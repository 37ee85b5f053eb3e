"""`reproduce --quick`: every part scaled down together, never into the study's results/.
`make check` runs it on the local pool and on a Dask cluster and compares the two."""

from __future__ import annotations

import math

import pytest

from sim.__main__ import main
from sim.params import Params
from sim.results import quick as quick_subsets
from sim.results import seedrows
from sim.results.plans import Plan
from sim.results.reproduce import quick_mark
from sim.study.experiments import distinct_days, experiment_params

QUICK_DAYS = 78
"""At most this many days in the first batches (78 with the subsets of ``sim.results.quick``:
the panel's four arms on one log, 16, the readings' eight on one seed, 12, the gate's 16, the
map's three points, 12, the break-even's 8; 268 without them); the sequential rule's one
more look at the readings adds the days of those still open (the panel keeps its first
batch)."""
QUICK_MOST_DAYS = 90
"""At most this many days in all (90: the first batches and every reading open at its one
more look, as every one is on one seed; 302 without the subsets; 138 before issue 61's second
round of them, 78–82 CPU-s on 2 workers, and 370 before its first, 182 CPU-s). A day costs
0.2–0.5 CPU-s, so this cap, not the bench's seconds, is what a test can hold on any machine.
The bench times the whole (`reproduce --quick`)."""


def _most_seeds(quick: dict[str, int]) -> dict[str, int]:
    """A quick run's seeds were every unit of a growing experiment open at each look."""
    return {
        e.name: quick[e.name] * min(e.looks, seedrows.QUICK_LOOKS[e.name])
        if e.grow
        else quick[e.name]
        for e in seedrows.EXPERIMENTS
    }


def test_a_quick_run_runs_at_most_its_stated_days() -> None:
    """Counted, not timed: the quick run's distinct simulated days, its growing experiments'
    later looks included as if every unit stayed open, within the stated cap."""
    quick = seedrows.scaled_seeds(seedrows.QUICK_DIVISOR)
    assert seedrows.study_days(Params(), _most_seeds(quick), subsets=True) <= QUICK_MOST_DAYS


def test_a_quick_run_bounds_every_growing_experiment() -> None:
    """Each experiment the sequential rule grows has a quick run's cap, at most its own: a new
    one would otherwise grow to its full cap in a quick run."""
    growing = {e.name: e for e in seedrows.EXPERIMENTS if e.grow}
    assert set(seedrows.QUICK_LOOKS) == set(growing)
    assert all(1 <= n <= growing[k].looks for k, n in seedrows.QUICK_LOOKS.items())
    assert max(seedrows.QUICK_LOOKS.values()) > 1  # the rule's path runs in a quick run


def test_every_part_is_scaled_down_together() -> None:
    quick = seedrows.scaled_seeds(seedrows.QUICK_DIVISOR)
    assert set(quick) == {e.name for e in seedrows.EXPERIMENTS}
    most = _most_seeds(quick)
    for e in seedrows.EXPERIMENTS:
        want = max(seedrows.quick_floor(e), math.ceil(e.seeds / seedrows.QUICK_DIVISOR))
        assert quick[e.name] == want < max(e.seeds, seedrows.QUICK_FLOOR + 1), e.name
        assert most[e.name] >= seedrows.QUICK_FLOOR, e.name  # an interval in the end
    days = seedrows.study_days(Params(), quick, subsets=True)
    assert days <= QUICK_DAYS < seedrows.study_days(Params(), quick) < seedrows.study_days(Params())


def test_every_subset_is_named_on_the_pages() -> None:
    """An experiment a quick run takes a subset of says so in the mark every page carries,
    and its quick plan runs fewer days than its full plan at the same seeds."""
    quick = seedrows.scaled_seeds(seedrows.QUICK_DIVISOR)
    subsetted = {e.name for e in seedrows.EXPERIMENTS if e.quick}
    assert subsetted == set(quick_subsets.NOTES)
    mark = quick_mark(quick)
    for name in subsetted:
        assert quick_subsets.NOTES[name] in mark
        e = seedrows.BY_NAME[name]
        seeds = list(range(1, quick[name] + 1))
        full, part = e.plan(Params(), seeds), e.quick(Params(), seeds)  # type: ignore[misc]
        assert _smaller(part, full) or (not full.requests and name == "backtest"), name


def _smaller(part: Plan, full: Plan) -> bool:
    """Fewer days, or as many with fewer check intervals swept (the exposure subset)."""
    days = distinct_days(list(part.requests)), distinct_days(list(full.requests))
    if days[0] != days[1]:
        return days[0] < days[1]

    def swept(plan: Plan) -> int:
        return sum(
            len(experiment_params(p, e).sweep_intervals_s)
            for r in plan.requests
            for p in r.points
            for e in r.experiments
        )

    return swept(part) < swept(full)


def test_given_seeds_are_scaled_too() -> None:
    quick = seedrows.scaled_seeds(20, {"staleness": 400, "cas": 60})
    assert (quick["staleness"], quick["cas"]) == (20, 3)


def test_a_quick_run_never_writes_into_results(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "--quick", "--out", "results"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--quick" in err and "quick-results" in err, err


def test_rebuilding_from_rows_needs_the_rows_and_not_a_quick_run(
    capsys: pytest.CaptureFixture, tmp_path
) -> None:
    """`reproduce --from-rows` (`make docs`) rebuilds pages from OUT/seeds/ only: with no
    rows it says how to make them, and it refuses --quick; nothing is written either way.
    (That the rebuilt pages equal the committed ones is test_regression's.)"""
    for flags in (["--out", str(tmp_path)], ["--quick", "--out", str(tmp_path)]):
        with pytest.raises(SystemExit) as stop:
            main(["reproduce", "--from-rows", *flags])
        assert stop.value.code == 2
        assert "--from-rows:" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
