"""What a failure of the KB file means to the person running the server.

SQLite reports a damaged page, a lock held by another process, a file it may not write or
a full disk as exceptions; each becomes one ``StoreFault``: a code a client can act on,
a sentence saying what is wrong with which file, and what to do. Nothing here retries:
the store's transaction has already rolled back, so nothing was half-written.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

BUSY_TIMEOUT_S = 1.0
"""How long a served store waits for another process's lock before it says the file is busy."""


@dataclass(frozen=True, slots=True)
class StoreFault:
    code: str
    message: str
    what_to_do: str


def _kind(e: sqlite3.Error) -> str:
    name = getattr(e, "sqlite_errorname", "") or ""
    text = str(e).lower()
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return "busy"
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        return "read_only"
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in text:
        return "damaged"
    if name.startswith("SQLITE_FULL") or "full" in text:
        return "full"
    return "io"


def store_fault(e: sqlite3.Error, path: str) -> StoreFault:
    """The fault `e` means for the KB file at `path`."""
    where = "the in-memory KB" if path == ":memory:" else f"the KB file {path}"
    where_ = where[0].upper() + where[1:]
    said = f"(SQLite: {str(e)[:120]})"
    match _kind(e):
        case "busy":
            return StoreFault(
                "kb_busy",
                f"{where_} is busy: another process holds a lock on it {said}. "
                "Nothing was read or written.",
                "Retry in a moment; if it stays busy, stop the other program using the file.",
            )
        case "read_only":
            return StoreFault(
                "kb_read_only",
                f"{where_} is read-only, so this write was refused {said}. Nothing was written.",
                "Reads still work. To write, make the file (and its folder) writable and restart "
                "the server.",
            )
        case "damaged":
            return StoreFault(
                "kb_file_damaged",
                f"{where_} is damaged {said}. Nothing was written.",
                "Stop the server and restore the file from a backup, or serve a new file; "
                "retrying will not help.",
            )
        case "full":
            return StoreFault(
                "kb_disk_full",
                f"The disk holding {where} is full {said}. Nothing was written.",
                "Free space on that disk, then retry.",
            )
    return StoreFault(
        "kb_io_error",
        f"{where_} could not be read or written {said}. Nothing was written.",
        "Check the file and its disk, then retry; restart the server if it repeats.",
    )
