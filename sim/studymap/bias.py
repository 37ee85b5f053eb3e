"""How far the day's exact forms sit from the simulation over the map's points, pooled: the
relative gap (simulated − form)/form weighted by each point's inverse variance, its 95 %
interval, and a sign test on the z values. The points share their seeds' days (common
random numbers along the grid), so the pooled interval is a little narrower than
independent points would earn; the sign test is the check that does not lean on it."""

from __future__ import annotations

import math

import pandas as pd

from sim.params import Params
from sim.stats import Z95
from sim.studymap import grid
from sim.studymap.forms import read_order_shift

EXACT = ("stale_at_day_end", "human_save_in_window")
"""The quantities whose day forms are exact for the model (the others are bounds)."""
MIN_FORM = 0.005
"""A point counts when its form is at least this: below it a relative gap is mostly noise
and most seeds see no event (a zero, not a sign)."""


def sign_p(negative: int, points: int) -> float:
    """Two-sided exact sign test: P(a split at least this uneven | each sign ½)."""
    k = min(negative, points - negative)
    tail = sum(math.comb(points, i) for i in range(k + 1)) / (1 << points)
    return min(1.0, 2 * tail)


def form_gap(agreement: pd.DataFrame) -> pd.DataFrame:
    """Per exact quantity: points counted, z values below zero, the sign test's p, and the
    pooled relative gap with its 95 % interval."""
    rows = []
    for quantity in EXACT:
        a = agreement[(agreement["quantity"] == quantity) & (agreement["closed_form"] >= MIN_FORM)]
        rel = a["simulated"] / a["closed_form"] - 1
        rel_se = a["se"] / a["closed_form"]
        w = 1 / (rel_se * rel_se)
        gap = float((w * rel).sum() / w.sum())
        half = Z95 / math.sqrt(float(w.sum()))
        negative = int((a["form_z"] < 0).sum())
        rows.append(
            {
                "quantity": quantity,
                "points": len(a),
                "negative_z": negative,
                "sign_p": sign_p(negative, len(a)),
                "relative_gap": gap,
                "gap_lo": gap - half,
                "gap_hi": gap + half,
            }
        )
    return pd.DataFrame(rows)


def explained(table: pd.DataFrame, quantity: str) -> dict[str, float]:
    """The pooled relative gap of ``quantity``'s simulated share from its form, over the
    points that carry the chance given the articles cited or edited (and a form of at least
    MIN_FORM), split into the part those articles account for (given − form) and the part
    the change given them does (simulated − given, with its 95 % interval from the paired
    errors); the weights are form_gap's, so the parts add up to the whole."""
    a = table[
        (table["quantity"] == quantity)
        & table["given_cited"].notna()
        & (table["closed_form"] >= MIN_FORM)
    ]
    form = a["closed_form"]
    w = 1 / (a["se"] / form) ** 2
    change = (a["simulated"] - a["given_cited"]) / form
    half = Z95 * math.sqrt(float((w * w * (a["given_se"] / form) ** 2).sum())) / float(w.sum())
    gap = float((w * change).sum() / w.sum())
    return {
        "points": len(a),
        "total": float((w * (a["simulated"] / form - 1)).sum() / w.sum()),
        "articles": float((w * (a["given_cited"] / form - 1)).sum() / w.sum()),
        "change": gap,
        "change_lo": gap - half,
        "change_hi": gap + half,
    }


def read_order_span(base: Params) -> tuple[float, float]:
    """How much the human-save form at the ladder's longest delay drops when each rung's
    reads are weighted by when they come rather than taken uniform, over the map's points
    (``forms.read_order_shift``): the smallest and largest drop, as shares of the form."""
    drops = [
        -read_order_shift(p, relation, max(p.edit_delays_s)) for relation, p in grid.points(base)
    ]
    return min(drops), max(drops)
