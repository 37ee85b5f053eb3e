"""Where a page names a largest move or a break-even, it says only what the numbers behind it
support: Holm's correction over the family picked from, and the grid's own bracket."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.report import breakeven, designer, picks


def test_holm_adjusts_over_the_whole_family() -> None:
    cells = pd.DataFrame({"size": [0.5, 0.1, 0.3], "p": [0.02, 0.001, np.nan]})
    out = picks.with_holm(cells, "p")
    assert list(out["p_holm"]) == pytest.approx([0.04, 0.003, 1.0])
    assert list(out["named"]) == [True, True, False]
    assert list(picks.ranked(out, "size")["size"]) == [0.5, 0.1]


def _sensitivity(shift_p: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "choice": choice,
                "reading": "r",
                "figure": "zipf_stale_share",
                "can_move": True,
                "shift_from_default": shift,
                "shift_ci_lo": shift - 0.01,
                "shift_ci_hi": shift + 0.01,
                "shift_seeds": 60,
                "shift_p": p,
            }
            for (choice, p), shift in zip(shift_p.items(), (0.05, 0.01, 0.02), strict=False)
        ]
    )


def test_the_first_page_names_a_reading_only_past_holms_correction() -> None:
    # the largest shift (a) is at p 0.03: not kept over a family of three; b is kept
    picked = designer.top_reading(
        _sensitivity({"a": 0.03, "b": 1e-6, "c": 0.5}), "zipf_stale_share"
    )
    assert picked["choice"] == "b" and picked["family"] == 3
    none = designer.top_reading(_sensitivity({"a": 0.03, "b": 0.2}), "zipf_stale_share")
    assert none["label"] is None and "Holm's correction over the 2 moves" in none["none"]


def _grid(ratios: list[float]) -> pd.DataFrame:
    saves = [37.5, 125.0, 375.0, 1500.0]
    return pd.DataFrame(
        {
            "n_questions": 40,
            "check_interval_s": 3600,
            "events_per_check": saves,
            "citations_held_at_end": 80,
            "calls_ratio": ratios,
            "chars_ratio": ratios,
        }
    )


@pytest.mark.parametrize(
    ("ratios", "words"),
    [
        ([0.2, 0.4, 0.6, 1.2], "between 375 and 1,500"),
        ([0.2, 0.4, 0.6, 0.9], "past 1,500 (the grid's end)"),
        ([1.1, 1.4, 1.6, 1.9], "at most 38"),
    ],
)
def test_a_break_even_is_the_grids_bracket(ratios: list[float], words: str) -> None:
    [row] = breakeven.crossings(_grid(ratios)).to_dict("records")
    assert breakeven.bracket(row["calls_parity_above"], row["calls_parity_at_most"]) == words
