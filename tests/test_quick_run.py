"""`reproduce --quick`: every part scaled down together, never into the study's results/.
`make check` runs it on the local pool and on a Dask cluster and compares the two."""

from __future__ import annotations

import math

import pytest

from sim import seedrows
from sim.__main__ import main
from sim.params import Params

QUICK_DAYS = 350
"""At most this many days in the first batches (340 with the panel's two burst and bulk arms
and twelve ladders); the sequential rule's one more look adds about as many again for the
units still open. The bench times the whole (`reproduce --quick`)."""


def test_every_part_is_scaled_down_together() -> None:
    quick = seedrows.scaled_seeds(seedrows.QUICK_DIVISOR)
    assert set(quick) == {e.name for e in seedrows.EXPERIMENTS}
    for e in seedrows.EXPERIMENTS:
        want = max(seedrows.QUICK_FLOOR, math.ceil(e.seeds / seedrows.QUICK_DIVISOR))
        assert quick[e.name] == want < max(e.seeds, seedrows.QUICK_FLOOR + 1), e.name
    assert seedrows.study_days(Params(), quick) <= QUICK_DAYS < seedrows.study_days(Params())


def test_given_seeds_are_scaled_too() -> None:
    quick = seedrows.scaled_seeds(20, {"staleness": 400, "cas": 60})
    assert (quick["staleness"], quick["cas"]) == (20, 3)


def test_a_quick_run_never_writes_into_results(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "--quick", "--out", "results"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--quick" in err and "quick-results" in err, err
