"""A discrete-event study of stale KB citations: re-read vs poll checks, and CAS edits by
delay, on a real SQLite/FTS5 knowledge base.

The public API, importable from ``sim``:

- ``Params``: every parameter of the simulated day (``sim.params``);
- ``run_day(params, seed)``: one seed's day, its records (``sim.model.day``);
- ``run_study(params, seeds)``: the study's runs of each seed (staleness, the even control,
  CAS on the ladder and on the delay curve) as tables (``sim.study.experiments``), and
  ``per_seed(frames)``: one row per seed with every headline quantity (``sim.study.metrics``),
  and ``method_rows(params, frames)``: every check method's results in long form, a row per
  run, seed, method and interval (``sim.study.methodrows``);
- ``KBStore``: the knowledge base itself (``sim.kb.store``).

>>> from sim import KBStore, Params, method_rows, per_seed, run_day, run_study
>>> small = Params(n_articles=50, n_questions=20, n_saves=30)
>>> day = run_day(small, seed=1)
>>> len(day.citations), day.citations[0].final_status
(40, 'stale')
>>> frames = run_study(small, seeds=[1, 2], workers=1, progress=False)
>>> rows = per_seed(frames)
>>> list(rows["seed"]), "zipf_stale_share" in rows
([1, 2], True)
>>> from sim.model.methods import METHODS
>>> hourly = {m.name for m in METHODS if m.hourly}  # the registry's: what the checker runs
>>> set(method_rows(small, frames)["method"]) == hourly
True
>>> kb = KBStore(clock=lambda: 0)
>>> kb.create_kb("help")
>>> kb.create_articles("help", [("a1", "Reset a password", "Open Settings, then Security.")])
>>> kb.search("help", ["password"], limit=5)[0]
1

The names are imported on first use (module ``__getattr__``): every ``python -m sim``
command and every worker process imports this package first, and the day's model brings
SimPy, pandas and NumPy (about half a second), which ``serve``, ``log-report`` and
``--help`` never need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.kb.store import KBStore
    from sim.model.day import DayResult, run_day
    from sim.params import Params
    from sim.study.experiments import StudyFrames, run_study
    from sim.study.methodrows import method_rows
    from sim.study.metrics import per_seed

_WHERE = {
    "Params": "sim.params",
    "run_day": "sim.model.day",
    "DayResult": "sim.model.day",
    "run_study": "sim.study.experiments",
    "StudyFrames": "sim.study.experiments",
    "per_seed": "sim.study.metrics",
    "method_rows": "sim.study.methodrows",
    "KBStore": "sim.kb.store",
}

__all__ = [
    "DayResult",
    "KBStore",
    "Params",
    "StudyFrames",
    "method_rows",
    "per_seed",
    "run_day",
    "run_study",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
