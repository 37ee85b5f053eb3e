"""The write gate's records: one approval per edit call, kept in the KB's own store.

An approval covers exactly one call: the client that asked, the tool, the knowledge
base, the article and a digest of the arguments that say what is written. A person
decides it (granted or declined); a granted one expires a fixed time after the
decision, and the edit it authorises marks it used in the same transaction as the
write, so no approval ever covers a second write or a whole session. These functions
run inside the store's transactions; the store and the edit tool call them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from sim.kb.rows import Approval

SCHEMA = """
CREATE TABLE approvals (
    approval_id INTEGER PRIMARY KEY,
    kb_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    article_id TEXT NOT NULL,
    args_digest TEXT NOT NULL,
    requested_us INTEGER NOT NULL,
    ttl_us INTEGER NOT NULL,
    decision TEXT NOT NULL DEFAULT 'pending'
        CHECK (decision IN ('pending', 'granted', 'declined')),
    decided_us INTEGER NOT NULL DEFAULT 0,
    approver TEXT NOT NULL DEFAULT '',
    used_by_sequence INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX approvals_by_call ON approvals (kb_id, client_id, args_digest);
"""
WRITE_FIELDS = ("knowledge_base_id", "article_id", "title", "content", "expected_version")
"""What an edit writes and where: the digest covers these. The idempotency key is left out:
it names the delivery, not the change, and a replay needs no approval."""
_COLUMNS = (
    "approval_id, kb_id, client_id, tool, article_id, args_digest, requested_us, ttl_us, "
    "decision, decided_us, approver, used_by_sequence"
)


def digest(tool: str, arguments: dict[str, Any]) -> str:
    fields = {k: arguments.get(k) for k in WRITE_FIELDS}
    text = json.dumps([tool, fields], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def request(
    db: sqlite3.Connection,
    kb_id: str,
    client_id: str,
    tool: str,
    article_id: str,
    args_digest: str,
    now_us: int,
    ttl_us: int,
) -> int:
    (approval_id,) = db.execute(
        "INSERT INTO approvals (kb_id, client_id, tool, article_id, args_digest, requested_us, "
        "ttl_us) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING approval_id",
        (kb_id, client_id, tool, article_id, args_digest, now_us, ttl_us),
    ).fetchone()
    return approval_id


def decide(
    db: sqlite3.Connection, approval_id: int, granted: bool, approver: str, now_us: int
) -> bool:
    """Record a decision on a pending approval; False if it was not pending."""
    cursor = db.execute(
        "UPDATE approvals SET decision = ?, decided_us = ?, approver = ? "
        "WHERE approval_id = ? AND decision = 'pending'",
        ("granted" if granted else "declined", now_us, approver, approval_id),
    )
    return cursor.rowcount == 1


def get(db: sqlite3.Connection, approval_id: int) -> Approval | None:
    row = db.execute(
        f"SELECT {_COLUMNS} FROM approvals WHERE approval_id = ?", (approval_id,)
    ).fetchone()
    return None if row is None else Approval(*row)


def of_call(db: sqlite3.Connection, kb_id: str, client_id: str, args_digest: str) -> list[Approval]:
    return [
        Approval(*r)
        for r in db.execute(
            f"SELECT {_COLUMNS} FROM approvals WHERE kb_id = ? AND client_id = ? "
            "AND args_digest = ? ORDER BY approval_id",
            (kb_id, client_id, args_digest),
        )
    ]


def usable_or_latest(
    db: sqlite3.Connection, kb_id: str, client_id: str, args_digest: str, now_us: int
) -> tuple[Approval | None, Approval | None]:
    """(a granted, unexpired, unused approval of this exact call, the latest one of any state)."""
    rows = of_call(db, kb_id, client_id, args_digest)
    usable = next((a for a in rows if a.usable(now_us)), None)
    return usable, (rows[-1] if rows else None)


def mark_used(db: sqlite3.Connection, approval_id: int, sequence: int) -> None:
    db.execute(
        "UPDATE approvals SET used_by_sequence = ? WHERE approval_id = ?", (sequence, approval_id)
    )
