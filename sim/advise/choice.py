"""The advisor's choice the real-shape arms watch with: the closed-form advice for the base
day at the section's target. The arms (``sim.study.realshape``) take it as an argument,
since the study sits below the advisor.
"""

from __future__ import annotations

import functools

from sim.params import Params
from sim.study.realshape import ADVICE_TARGET_MIN


@functools.lru_cache(maxsize=8)
def advised_choice(base: Params) -> tuple[str, float]:
    """The advisor's choice (closed form, Poisson saves) for the base day at the target
    (kept: the runs and the report both ask)."""
    from sim import advise

    choice = advise.advise(base, advise.Costs(), ADVICE_TARGET_MIN)["choice"]
    if choice is None:
        return "push", 0.0
    return str(choice["method"]), 60.0 * float(choice["interval_min"])
