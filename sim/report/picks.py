"""Which move a page may name as the largest: one that Holm's step-down rejects over the whole
family the page picks from, never the largest point estimate alone.

The largest of many moves by point estimate is, when none of them is real, a chance
excursion as often as not (the largest of 18 moves can sit at p 0.044 and 0.79 after Holm).
So every cell a page picks a largest move from is one test of one family; a move may be
named only where Holm's step-down rejects "no move" for it at LEVEL, and the one named is the
largest of those. Where none is rejected none is named, and the page says how many were
tested.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sim.report.render import environment, oneline
from sim.stats import holm

LEVEL = 0.05
"""The family-wise error rate of a page's picks."""


def with_holm(cells: pd.DataFrame, p: str) -> pd.DataFrame:
    """``cells`` with ``p_holm`` (Holm's adjusted p over all of them; a cell with no p counts
    as 1) and ``named`` (rejected at LEVEL: a move the page may name)."""
    adjusted = np.array(holm([float(x) for x in cells[p].fillna(1.0)]))
    return cells.assign(p_holm=adjusted, named=adjusted < LEVEL)


def ranked(cells: pd.DataFrame, size: str) -> pd.DataFrame:
    """The cells a page may name, largest |size| first."""
    named = cells[cells["named"]]
    return named.loc[named[size].abs().sort_values(ascending=False, kind="stable").index]


def p_text(p: float) -> str:
    """An adjusted p as a page prints it."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def none_named(family: pd.DataFrame, cells: pd.DataFrame, what: str) -> str:
    """The sentence for a pick with no move beyond noise: ``cells`` are the moves it would
    have been picked from, ``family`` all those the correction ran over."""
    phrases: Any = environment().get_template("picks.txt.j2").module  # the macros
    return oneline(str(phrases.none_named(what, len(family), len(cells), cells["p_holm"].min())))
