"""Each site's measurement, kept between runs, keyed by the log's content and the code that
measures it (``sim.calibrate.cache``, which also keeps the shapes fitted to the backtest's 44
site histories): `make reproduce` (and `--quick`) measures the atlas's sites again only when
a log or the estimator changed (about 30 s for 44 sites on this project's 2-core machines,
under a second from the cache), and fits a history again only when it or the fit's code
changed (about 25 CPU-s for the 44)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sim.calibrate import cache
from sim.calibrate.logs import EditLog

CODE = ("atlas/*.py", "studymap/*.py", "calibrate/logs.py", "stats.py", "exactmath.py")
"""What a measurement depends on, besides the log: a change to any of these measures again."""
Rows = list[dict[str, Any]]


def rows(what: str, log: EditLog, make: Callable[[], Rows]) -> Rows:
    """``make()``'s rows for this log, from the cache when they are there."""
    text = cache.cached(cache.key(what, log, CODE), lambda: json.dumps(make()))
    return list(json.loads(text))
