"""The delay ladders the write-up's text allows: four rungs, one of seconds, one of an hour,
one beyond it, and a free one below the hour or beyond it (twelve ladders, the default
first; ``sim.report.ladders`` says how the text fixes them). The family is a reading of an
open choice (``sim.study.readings``); the report labels its rows with the same words.
"""

from __future__ import annotations

import itertools

from sim.params import HOUR_S, LADDER_S

SECONDS_RUNG_S = 5.0
HOUR_RUNG_S = HOUR_S
MINUTES_RUNGS_S = (60.0, 600.0, 1800.0)
"""The rung between seconds and the hour: 1, 10 or 30 minutes."""
LONG_RUNGS_S = (2 * HOUR_S, 4 * HOUR_S, 8 * HOUR_S)
"""The rung the arithmetic needs beyond the hour: 2, 4 or 8 hours (8 h: the day's length)."""


def ladder_family() -> tuple[tuple[float, ...], ...]:
    """Every ladder of the family, sorted delays, the default first: a minutes rung and a
    long one, then the ladders with no rung between seconds and the hour."""
    ladders = [
        (SECONDS_RUNG_S, m, HOUR_RUNG_S, long)
        for m, long in itertools.product(MINUTES_RUNGS_S, LONG_RUNGS_S)
    ]
    ladders += [
        (SECONDS_RUNG_S, HOUR_RUNG_S, *longs) for longs in itertools.combinations(LONG_RUNGS_S, 2)
    ]
    ladders.sort(key=lambda ladder: ladder != LADDER_S)
    return tuple(ladders)


def delay_label(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g} s"
    if seconds < HOUR_S:
        return f"{seconds / 60:g} min"
    return f"{seconds / HOUR_S:g} h"


def ladder_label(ladder: tuple[float, ...]) -> str:
    return ", ".join(delay_label(d) for d in ladder)
