"""Closed-form expectations the simulation is checked against.

Saves on article i form (approximately; exactly with ``arrivals='poisson'``) a
Poisson process of rate λᵢ = n_saves · wᵢ / day_s, wᵢ its share of saves. A copy
read at time t is out of date at time t + L with probability 1 − exp(−λᵢ L): the
freshness of a Poisson-changing element (Cho & Garcia-Molina, "Synchronizing a
database to improve freshness", SIGMOD 2000; "Estimating frequency of change",
ACM TOIT 2003). Human saves stop at the end of the day, so windows are cut there.

Two effects of the model are included rather than left as bias:
- a question's target is cited first only while it is published; it is
  unpublished at rate u·λᵢ (u the unpublish share of saves), and then the first
  citation is another article, whose popularity is that of a random article
  (popularity rank is independent of topic);
- the second citation is such a random article too, and shares the first's read
  time, which correlates an answer's two citations.
Read times are uniform over the day; expectations over them are taken numerically.

This module is their one face: the study, the report, the advisor and the map call each as
``theory.<name>``, and the report cites this file. Each form is written in the
``sim/freshness/`` module of its concept: ``rates.py`` (the save rates), ``staleness.py``
(at the day's end, before an edit, before a gated write), ``noticing.py`` (how long
staleness goes unnoticed under a periodic check), ``checks.py`` (what the check methods
cost) with ``chains.py`` (the per-article chains it solves), and ``held.py`` (both for
an agent that lets its citations go before the day's end, which the two dispatch to).
"""

from sim.freshness.checks import (
    expected_check_calls,
    poll_pages_per_day,
    push_counts,
    stopped_check_calls,
)
from sim.freshness.noticing import first_change_density, stale_unknown_share, unnoticed_time
from sim.freshness.rates import p_changed, save_rates_per_s
from sim.freshness.staleness import (
    p_gated_write_meets,
    p_human_save_before_edit,
    stale_shares_at_day_end,
)

__all__ = [
    "expected_check_calls",
    "first_change_density",
    "p_changed",
    "p_gated_write_meets",
    "p_human_save_before_edit",
    "poll_pages_per_day",
    "push_counts",
    "save_rates_per_s",
    "stale_shares_at_day_end",
    "stale_unknown_share",
    "stopped_check_calls",
    "unnoticed_time",
]
