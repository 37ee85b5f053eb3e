"""`python -m sim advise`: the method and check interval that keep a change to a cited
article unnoticed under a target at the least cost.

``closedform`` advises from the closed forms of ``sim.theory`` (Poisson saves over a uniform
day) and ``closedform_text`` says it, their names re-exported here; the rest advise by
simulation for a real edit process or KB: ``calibrated`` (the edit process from a log or
shape), ``sampled`` (days run to a stated precision), ``sparse`` (the same for a sparse log),
``closed`` (the closed forms where the days cannot decide), ``db`` (`advise --db` and
`--edit-log`) with ``tracedays`` (a history replayed, or why not) and ``checking``
(the pick checked on independent days), ``agent`` and ``calllog`` (the team's agent, from
flags or a call log), ``text`` (what is printed), ``backtest`` (the advice held to a log's
last year), ``seedsets`` (the write-up's day pick made on two disjoint seed sets).
"""

from sim.advise.closedform import (
    LABELS,
    METHODS,
    Costs,
    Sizes,
    advise,
    measured_sizes,
    validated,
)
from sim.advise.closedform_text import as_json, render

__all__ = [
    "LABELS",
    "METHODS",
    "Costs",
    "Sizes",
    "advise",
    "as_json",
    "measured_sizes",
    "render",
    "validated",
]
