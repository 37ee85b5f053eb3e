"""Each site's measurement kept between runs, keyed by the log's content and the code that
measures it: `make reproduce` measures the atlas's sites again only when a log or the
estimator changed (about 30 s for 44 sites on this project's 2-core machines, under a
second from the cache). The cache is ``$STALE_CITATIONS_CACHE`` (default
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

ROOT = Path(__file__).resolve().parents[1]
CODE = ("atlas/*.py", "studymap/*.py", "calibrate/logs.py", "stats.py", "exactmath.py")
"""What a measurement depends on, besides the log: a change to any of these measures again."""
Rows = list[dict[str, Any]]


def folder() -> Path | None:
    where = os.environ.get("STALE_CITATIONS_CACHE", "")
    if where == "off":
        return None
    return Path(where) if where else Path.home() / ".cache" / "stale-citations" / "atlas"


@functools.cache
def fingerprint() -> str:
    h = hashlib.sha256(np.__version__.encode())
    for pattern in CODE:
        for path in sorted(ROOT.glob(pattern)):
            h.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


def key(what: str, log: EditLog) -> str:
    h = hashlib.sha256(f"{fingerprint()} {what} {log.n_articles}".encode())
    for a in (log.epoch_s, log.publish, log.article, log.kind):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def rows(what: str, log: EditLog, make: Callable[[], Rows]) -> Rows:
    """``make()``'s rows for this log, from the cache when they are there."""
    where = folder()
    path = None if where is None else where / f"{key(what, log)}.json"
    if path is not None and path.exists():
        try:
            return list(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
    made = make()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(made, f)
            os.replace(tmp, path)
        except OSError:
            pass
    return made
