"""Each site's measurement, and the shape fitted to a fixed log (the backtest's 44 site
histories), kept between runs, keyed by the log's content and the code that measures or
fits it: `make reproduce` (and `--quick`) measures the atlas's sites again only when a log
or the estimator changed (about 30 s for 44 sites on this project's 2-core machines, under a
second from the cache), and fits a history again only when it or the fit's code changed
(about 25 CPU-s for the 44). The cache is ``$STALE_CITATIONS_CACHE`` (default
``~/.cache/stale-citations/atlas``; ``off``: none); a file that cannot be read or written
is measured again, never an error."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sim.calibrate.logs import EditLog
from sim.calibrate.shape import EditShape

ROOT = Path(__file__).resolve().parents[1]
CODE = ("atlas/*.py", "studymap/*.py", "calibrate/logs.py", "stats.py", "exactmath.py")
"""What a measurement depends on, besides the log: a change to any of these measures again."""
FIT_CODE = ("calibrate/*.py", "stats.py", "exactmath.py")
"""What a fitted shape depends on, besides the log: a change to any of these fits again."""
Rows = list[dict[str, Any]]


def folder() -> Path | None:
    where = os.environ.get("STALE_CITATIONS_CACHE", "")
    if where == "off":
        return None
    return Path(where) if where else Path.home() / ".cache" / "stale-citations" / "atlas"


@functools.cache
def fingerprint(code: tuple[str, ...] = CODE) -> str:
    h = hashlib.sha256(np.__version__.encode())
    for pattern in code:
        for path in sorted(ROOT.glob(pattern)):
            h.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


def key(what: str, log: EditLog, code: tuple[str, ...] = CODE) -> str:
    h = hashlib.sha256(f"{fingerprint(code)} {what} {log.n_articles}".encode())
    for a in (log.epoch_s, log.publish, log.article, log.kind):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def rows(what: str, log: EditLog, make: Callable[[], Rows]) -> Rows:
    """``make()``'s rows for this log, from the cache when they are there."""
    text = _cached(key(what, log), lambda: json.dumps(make()))
    return list(json.loads(text))


def fit_shape(log: EditLog) -> EditShape:
    """``sim.calibrate.fit.fit_shape(log)``, from the cache when this log's content (and its
    source, which the shape records) was fitted by the same code before."""
    import scipy  # the fit's optimiser

    from sim.calibrate.fit import fit_shape as fit

    what = f"fit_shape scipy {scipy.__version__} {log.source}"
    return EditShape.from_json(_cached(key(what, log, FIT_CODE), lambda: fit(log).to_json()))


def _cached(name: str, make: Callable[[], str]) -> str:
    """The text kept under ``name``, or ``make()``'s, kept; unreadable: made again."""
    where = folder()
    path = None if where is None else where / f"{name}.json"
    if path is not None and path.exists():
        try:
            text = path.read_text()
            json.loads(text)  # a torn or foreign file is made again
            return text
        except (OSError, ValueError):
            pass
    made = make()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(made)
            os.replace(tmp, path)
        except OSError:
            pass
    return made
