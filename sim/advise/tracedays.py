"""Which save process the days of `advise --db` and `--edit-log` run (``--days-from``), and
why.

The KB's own history, replayed (``sim.calibrate.trace``), is the default wherever it is
long enough (saves on at least MIN_SAVE_DAYS days spanning at least MIN_SPAN_DAYS): its
days have the bursts and bulk publishes the history had, which neither the fitted process
nor the closed forms' Poisson saves keep. The fitted process is the fallback where the
history is too short, a shape is given instead of a history, or --saves-per-day asks for a
volume the history's days do not have; 'forms' lets the closed forms pick, the fitted days
still giving every other figure and checking it (--db only: --edit-log's days have no
closed forms beside them). With --edit-log alone the log's own articles are the day's.
The reason is printed with the advice.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from sim.calibrate import trace as tr
from sim.calibrate.logs import EditLog, log_bytes, parse_log
from sim.params import Params

CHOICES = ("trace", "fitted", "forms")


@dataclass(frozen=True)
class DaysFrom:
    """The process chosen for the days: 'trace', 'fitted' or 'forms', and why."""

    kind: str
    why: str
    trace: tr.SaveTrace | None = None
    of: str = "the KB's own history"
    """Whose history: the KB's (--db) or the log's (--edit-log alone)."""

    def line(self, fitted: bool = True) -> str:
        """The printed line; `fitted` False: no edit process could be fitted, so the days
        the fallback gives are the write-up's Poisson ones."""
        said = {
            "trace": f"{self.of} replayed",
            "fitted": "the fitted edit process"
            if fitted
            else "the write-up's Poisson process (the history cannot be fitted either)",
            "forms": "the closed forms",
        }[self.kind]
        return f"Days from: {said} (--days-from {self.kind}): {self.why}."

    def process_name(self, fitted: bool = True) -> str:
        """The JSON's name of the days' process: 'poisson' where nothing could be fitted."""
        return "poisson" if self.kind == "fitted" and not fitted else self.kind

    def process(self, params: Params) -> Params:
        """The day's parameters with the history's saves in place of the fitted ones."""
        if self.trace is None:
            return params
        return replace(
            params,
            save_process="trace",
            save_trace=self.trace,
            edit_shape="",
            arrivals="uniform",
            n_saves=self.mean_saves(params.day_s),
        )

    def window(self, process: Params) -> str:
        """Where the day's saves come from, in words."""
        assert self.trace is not None
        start = self.trace.window_s(process.day_s) / 3600
        end = (start + process.day_s / 3600) % 24
        return (
            "a mean over its days; each drawn day's saves as recorded in the "
            f"{start:02.0f}:00–{end:02.0f}:00 UTC window holding most of them"
        )

    def mean_saves(self, day_s: float) -> float:
        """The history's saves in the day's window, a mean over its whole blocks' days."""
        t = self.trace
        assert t is not None
        days = t.n_blocks * tr.BLOCK_DAYS
        n = sum(len(t.day(d, day_s)) for d in range(days))
        return n / days if days else 0.0


def _read(log: Path) -> tuple[EditLog, list[str]]:
    """The log and its article ids in order of first appearance (``EditLog.article``'s
    order), from one read of its bytes (gzip too, as ``read_log`` takes it)."""
    raw = log_bytes(log)
    rows = csv.DictReader(io.StringIO(raw.decode("utf-8"), newline=""))
    return parse_log(raw, str(log)), list(dict.fromkeys(row["article"] for row in rows))


def history(db: Path, log: Path) -> tr.SaveTrace:
    """The KB's edit log as a trace on its published articles; without a log beside it
    (copied or renamed without it), the KB's own event log, as `db_inputs` fits then."""
    from sim.calibrate.logs import from_rows
    from sim.importer.corpus import event_log_rows, imported

    specs, _ = imported(str(db))
    published = [s.article_id for s in specs]
    if log.exists():
        return tr.from_log(*_read(log), published)
    rows = event_log_rows(str(db))
    names = list(dict.fromkeys(str(r[3]) for r in rows))
    return tr.from_log(from_rows(rows, f"{db.name} (its event log)"), names, published)


def log_history(log: Path) -> tr.SaveTrace:
    """An edit log as a trace on its own articles (`advise --edit-log` without --db)."""
    edits, names = _read(log)
    return tr.from_log(edits, names, names)


def choose(asked: str | None, db: Path, log: Path, shaped: bool, saves: int | None) -> DaysFrom:
    """--days-from as asked (one of CHOICES, or None), or the default by the rule;
    ValueError (one line) where the choice asked for cannot be made."""
    stop = None
    if shaped:
        stop = "--edit-shape gives a fitted shape, no history to replay"
    elif saves is not None:
        stop = "--saves-per-day sets a volume the history's own days do not have"
    return _decide(asked, stop, lambda: history(db, log), "the KB's own history")


def choose_log(asked: str | None, log: Path, articles: int | None, saves: int | None) -> DaysFrom:
    """As ``choose``, for `advise --edit-log LOG` without --db (the log's own articles);
    'forms' is refused: these days have no closed forms beside them."""
    if asked == "forms":
        raise ValueError(
            "--days-from forms: only with --db (the closed forms decide for a KB); give "
            "--days-from trace or fitted with --edit-log"
        )
    stop = None
    if articles is not None:
        stop = "--articles sets an article count the log's own history does not have"
    elif saves is not None:
        stop = "--saves-per-day sets a volume the history's own days do not have"
    return _decide(asked, stop, lambda: log_history(log), "the log's own history")


def _decide(
    asked: str | None, stop: str | None, load: Callable[[], tr.SaveTrace], of: str
) -> DaysFrom:
    """The history replayed unless asked otherwise, or `stop` (or the history's own
    shortness) says why not; ValueError where 'trace' was asked for and cannot be had."""
    if asked in ("fitted", "forms"):
        return DaysFrom(asked, "asked for", of=of)
    trace = None
    if stop is None:
        try:
            trace = load()
            stop = trace.enough()
        except ValueError as e:  # an event log with no save: nothing to replay
            stop = f"its history cannot be read as saves ({e})"
    if stop is None:
        assert trace is not None
        return DaysFrom(
            "trace",
            f"its days drawn in {tr.BLOCK_DAYS}-day blocks of consecutive days from "
            f"{trace.n_days:,} days of history ({trace.save_days():,} with saves; the rule: "
            f"saves on at least {tr.MIN_SAVE_DAYS} days spanning at least "
            f"{tr.MIN_SPAN_DAYS}), even blocks choosing, odd ones checking",
            trace,
            of,
        )
    if asked == "trace":
        raise ValueError(f"--days-from trace: {stop}; give --days-from fitted (or leave it out)")
    return DaysFrom("fitted", f"the history cannot be replayed: {stop}", of=of)
