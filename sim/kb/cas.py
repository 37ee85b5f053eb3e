"""The tool's compare-and-swap edit, with its idempotency lookup.

One transaction: a replay of a stored key returns its first result, a reused key is refused,
the article's version compared, the write gate's approval checked (a write that cannot
succeed is refused for its version, not for want of an approval), then the write, its
event, the key's record and the approval marked used.
"""

from __future__ import annotations

import sqlite3

from sim.kb import approvals
from sim.kb.core import StoreCore, serialised
from sim.kb.rows import (
    ApprovalMissing,
    Conflict,
    EditOutcome,
    Gone,
    KeyReused,
    Replayed,
    ResultRenderer,
    Saved,
)


def prior_request(
    db: sqlite3.Connection, kb_id: str, client_id: str, key: str
) -> tuple[str, str] | None:
    """(request hash, first result) stored with this client's idempotency key, if any."""
    return db.execute(
        "SELECT request_hash, result_json FROM idempotency "
        "WHERE kb_id = ? AND client_id = ? AND key = ?",
        (kb_id, client_id, key),
    ).fetchone()


class CasEdit(StoreCore):
    """The agent's only write."""

    @serialised
    def cas_edit(
        self,
        kb_id: str,
        client_id: str,
        article_id: str,
        expected_us: int,
        content: str,
        title: str | None,
        idempotency_key: str,
        request_hash: str,
        render: ResultRenderer,
        approval_digest: str | None = None,
    ) -> EditOutcome:
        """Idempotency lookup, version check, approval check (with the write gate on), write,
        event, key record and the approval marked used: one transaction."""
        with self._tx() as db:
            prior = prior_request(db, kb_id, client_id, idempotency_key)
            if prior is not None:
                return Replayed(prior[1]) if prior[0] == request_hash else KeyReused()
            row = self._row(kb_id, article_id)
            if row is None or not row[3]:
                return Gone()
            if row[4] != expected_us:
                known = db.execute(
                    "SELECT 1 FROM events WHERE kb_id = ? AND article_id = ? AND updated_us = ?",
                    (kb_id, article_id, expected_us),
                ).fetchone()
                return Conflict(row[4], known is not None)
            approval = None
            if approval_digest is not None:
                approval, latest = approvals.usable_or_latest(
                    db, kb_id, client_id, approval_digest, self._clock()
                )
                if approval is None:
                    return ApprovalMissing(latest)
            us, seq = self._write(
                row,
                kb_id,
                article_id,
                row[1] if title is None else title,
                content,
                True,
                "saved",
                "agent",
            )
            result_json = render(us, seq)
            db.execute(
                "INSERT INTO idempotency VALUES (?, ?, ?, ?, ?)",
                (kb_id, client_id, idempotency_key, request_hash, result_json),
            )
            if approval is None:
                return Saved(us, seq, result_json)
            approvals.mark_used(db, approval.approval_id, seq)
            return Saved(us, seq, result_json, approval.approval_id)
