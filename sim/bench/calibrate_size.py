"""`python -m sim calibrate` on large edit logs, each written in the shared CSV format, then
calibrated in its own process as a user runs it: wall and CPU seconds, and the process's
peak memory. Two logs: 4 M rows generated from the shape fitted to the bundled log (its
popularity, sessions, bulk publishes, mix and profile, at a volume and article count scaled
up); and the bundled log itself repeated in time to 400,000 rows on its own 288 articles,
a long history per article (and 80 years of clock hours for the burst runs to cover: the
copies are squeezed in time to end by 2100, the last year a log may hold).
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sim.calibrate.generate import CAL_STREAMS, DAY_S, FEATURES, generate
from sim.calibrate.logs import BUNDLED, CHANGES, TIMES

ROWS = 4_000_000
ARTICLES = 2_000
"""Articles of the generated log: 2,000 saves each over six years (the bundled log: 10 each
over 288). The popularity's fits cost articles x resamples, not rows: at 20,000 articles
its goodness of fit alone took 680 s, so the row count is what this loop measures."""
SPAN_DAYS = 6 * 365
"""Six years, as the bundled log."""
ORIGIN_S = 1_577_836_800.0
"""2020-01-01 00:00 UTC, a Wednesday."""


def write_log(path: Path, rows: int = ROWS, seed: int = 1) -> int:
    """A log of about ``rows`` rows in the shared format; returns the rows written."""
    from sim.study.realshape_panel import packaged_shape

    shape = packaged_shape()
    children = np.random.SeedSequence(seed).spawn(len(CAL_STREAMS))
    rngs = {s: np.random.default_rng(c) for s, c in zip(CAL_STREAMS, children, strict=True)}
    span = SPAN_DAYS * DAY_S
    saves = generate(shape, ARTICLES, rows / SPAN_DAYS, span, rngs, frozenset(FEATURES),
                     start_s=(ORIGIN_S + 3 * DAY_S) % (7 * DAY_S))  # fmt: skip
    change = {v: k for k, v in CHANGES.items()}
    seconds = np.floor(saves.time_s).astype(np.int64) + int(ORIGIN_S)
    stamp: dict[int, str] = {}
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(("time", "publish", "author", "article", "change", "lines_added",
                      "lines_removed"))  # fmt: skip
        for t, p, r, k in zip(
            seconds.tolist(),
            saves.publish.tolist(),
            saves.rank.tolist(),
            saves.kind.tolist(),
            strict=True,
        ):
            if t not in stamp:
                stamp[t] = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.writerow((stamp[t], p, f"u{p % 97:03d}", f"a{r:05d}", change[k], 1, 0))
    return len(saves)


LONG_ROWS = 400_000
"""Rows of the repeated log: 136 copies of the bundled log's 2,938."""


def write_long_log(path: Path, rows: int = LONG_ROWS) -> int:
    """The bundled log repeated until about ``rows`` rows: copy i shifted i times by the
    log's span (its first to its last save), its publishes numbered on, and every time
    taken closer to the first by the factor that ends the last copy by the last time a log
    may hold (``logs.TIMES``; two copies keep their times); returns the rows written."""
    with BUNDLED.open(newline="", encoding="utf-8") as f:
        header, *body = list(csv.reader(f))
    at = {c: header.index(c) for c in ("time", "publish")}
    when = [datetime.fromisoformat(r[at["time"]].replace("Z", "+00:00")) for r in body]
    span, publishes = when[-1] - when[0], 1 + max(int(r[at["publish"]]) for r in body)
    copies = max(1, round(rows / len(body)))
    first = when[0].timestamp()
    squeeze = min(1.0, (TIMES[1] - first) / (copies * span.total_seconds()))
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header)
        for i in range(copies):
            for row, t in zip(body, when, strict=True):
                row = list(row)
                at_s = first + (t.timestamp() - first + i * span.total_seconds()) * squeeze
                stamp = datetime.fromtimestamp(int(at_s), UTC)
                row[at["time"]] = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
                row[at["publish"]] = str(int(row[at["publish"]]) + i * publishes)
                out.writerow(row)
    return copies * len(body)


def calibrate_wall(
    rows: int = ROWS, write: Callable[[Path, int], int] = write_log
) -> dict[str, Any]:
    """Write the log with ``write`` (not timed), then time `python -m sim calibrate LOG` once."""
    from sim.bench.process import children_cpu_s

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "generated-edits.csv"
        written = write(log, rows)
        command = [sys.executable, "-m", "sim", "calibrate", str(log), "--out",
                   f"{tmp}/generated.shape.json"]  # fmt: skip
        t, cpu = time.perf_counter(), children_cpu_s()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall, cpu = time.perf_counter() - t, children_cpu_s() - cpu
    peak = re.search(r"peak memory ([\d,]+) MB", done.stderr)
    return {
        "wall_s": wall,
        "passed": done.returncode == 0,
        "steps": [{"step": "calibrate", "wall_s": wall, "cpu_s": cpu}],
        "rows": written,
        "peak_rss_mb": float(peak.group(1).replace(",", "")) if peak else float("nan"),
        **({} if done.returncode == 0 else {"failure": done.stderr[-2_000:]}),
    }
