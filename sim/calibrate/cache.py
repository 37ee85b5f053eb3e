"""What a fixed log's fits and measurements give, kept between runs, keyed by the log's
content and the code that made them: a rerun fits or measures a log again only when the log
or that code changed. The atlas keeps its sites' measurements here (``sim.atlas.cache``),
the backtest the shapes fitted to its 44 histories, the panel its logs' session stretches
(a second or so each, with every run of the panel). The cache is
``$STALE_CITATIONS_CACHE`` (default ``~/.cache/stale-citations/atlas``; ``off``: none); a
file that cannot be read or written is made again, never an error."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sim.calibrate.logs import EditLog
from sim.calibrate.shape import EditShape

ROOT = Path(__file__).resolve().parents[1]
FIT_CODE = ("calibrate/*.py", "stats.py", "exactmath.py")
"""What a fit depends on, besides the log: a change to any of these fits again."""


def folder() -> Path | None:
    where = os.environ.get("STALE_CITATIONS_CACHE", "")
    if where == "off":
        return None
    return Path(where) if where else Path.home() / ".cache" / "stale-citations" / "atlas"


@functools.cache
def fingerprint(code: tuple[str, ...]) -> str:
    h = hashlib.sha256(np.__version__.encode())
    for pattern in code:
        for path in sorted(ROOT.glob(pattern)):
            h.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


def key(what: str, log: EditLog, code: tuple[str, ...]) -> str:
    h = hashlib.sha256(f"{fingerprint(code)} {what} {log.n_articles}".encode())
    for a in (log.epoch_s, log.publish, log.article, log.kind):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def fit_shape(log: EditLog) -> EditShape:
    """``sim.calibrate.fit.fit_shape(log)``, from the cache when this log's content (and its
    source, which the shape records) was fitted by the same code before."""
    import scipy  # the fit's optimiser

    from sim.calibrate.fit import fit_shape as fit

    what = f"fit_shape scipy {scipy.__version__} {log.source}"
    return EditShape.from_json(cached(key(what, log, FIT_CODE), lambda: fit(log).to_json()))


def burst_stretch(shape: EditShape, log: EditLog) -> float:
    """``sim.calibrate.burstfit.burst_stretch(shape, log)`` (simulated runs of the shape at
    trial stretches: about a second a log), from the cache when made before for this log and
    shape by the same code."""
    from sim.calibrate.burstfit import burst_stretch as stretch

    what = f"burst_stretch {shape.to_json()}"
    text = cached(key(what, log, FIT_CODE), lambda: json.dumps(stretch(shape, log)))
    return float(json.loads(text))


def cached(name: str, make: Callable[[], str]) -> str:
    """The JSON text kept under ``name``, or ``make()``'s, kept; unreadable: made again."""
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
