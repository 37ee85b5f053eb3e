"""The edit log `import` writes beside its KB, which replaces only a log it wrote itself.

A file already where the log goes may be the user's own: a log in the same format kept by
hand or by another tool, or another KB's. The KB file records the SHA-256 of each log an
import into it wrote (``imported_edit_logs``, in the import's own transaction), and an import
replaces a file only when its bytes are one of those (or it is missing or empty): a file
whose bytes a log of this KB had loses nothing when it is written again.
"""

from __future__ import annotations

import csv
import hashlib
import io
import sqlite3
from pathlib import Path

from sim.calibrate.logs import COLUMNS
from sim.server.describe import terminal


def log_text(rows: list[tuple]) -> str:
    """The edit log's file: its header and `rows`, as ``sim.calibrate.logs`` reads them."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([COLUMNS, *rows])
    return out.getvalue()


def sha256(text: str) -> str:
    """What the KB records of a log it wrote: the digest of the bytes written."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def not_ours(log: Path, db: Path) -> str:
    """Why an import into `db` may not replace the file at `log` ("" when it may)."""
    try:
        with open(log, "rb") as f:  # a regular file: check_outputs said so
            data = f.read()
    except FileNotFoundError:
        return ""
    except OSError as e:
        return (
            f"--edit-log {terminal(log)}: cannot be read ({terminal(e.strerror)}), so it may be"
            " yours; nothing was written: name a new file with --edit-log"
        )
    if not data or hashlib.sha256(data).hexdigest() in _written(db):
        return ""
    return (
        f"--edit-log {terminal(log)}: exists and is not an edit log an import into --db "
        f"{terminal(db)} wrote (the KB records each log it writes), so it may be yours; "
        "nothing was written: name a new file with --edit-log, or move it away"
    )


def _written(db: Path) -> set[str]:
    """The digests of the logs imports into the KB file `db` wrote (none when it is missing,
    or not a KB file, which the import then refuses itself)."""
    if not db.is_file() or db.stat().st_size == 0:
        return set()
    try:
        kb = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return set()
    try:
        return {r[0] for r in kb.execute("SELECT sha256 FROM imported_edit_logs")}
    except sqlite3.Error:  # not a KB, or one whose imports wrote no log yet
        return set()
    finally:
        kb.close()
