"""The branches of the report's templates that the committed rows never take, rendered
with small hand-made values."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sim.params import Params
from sim.report import comparison


def test_a_figure_without_a_reason_of_its_own_says_which_way_it_misses() -> None:
    df = pd.DataFrame({"cas_reject_share": [0.3]})
    higher = comparison._reason("zipf_stale_share", 0.4, 0.3, Params(), df)
    assert higher.startswith("Our model gives a higher value; the reported one lies outside")
    assert higher.endswith("see the assumptions.") and "\n" not in higher
    off_ladder = replace(Params(), edit_delays_s=(5.0, 3600.0))
    lower = comparison._reason("cas_reject_share", 0.2, 0.287, off_ladder, df)
    assert lower.startswith("Our model gives a lower value;")


def test_an_undecided_verdict_says_more_seeds_would_decide_it() -> None:
    assert comparison._reasons().undecided() == (
        "The 95 % interval of our mean reaches across the verdict's threshold (|z| = 1.96); "
        "more seeds would decide it."
    )
