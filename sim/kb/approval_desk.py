"""The write gate's approval desk: approvals asked and decided by the host app, not by tools.

The records' SQL is ``approvals.py``; this is the store's side of it, each call under the
store's lock and, where it writes, in one transaction.
"""

from __future__ import annotations

from sim.kb import approvals
from sim.kb.cas import prior_request
from sim.kb.core import StoreCore, serialised
from sim.kb.rows import Approval


class ApprovalDesk(StoreCore):
    """The host app asks for and decides approvals; the edit tool asks if one is needed."""

    @serialised
    def request_approval(
        self, kb_id: str, client_id: str, tool: str, article_id: str, args_digest: str, ttl_us: int
    ) -> int:
        with self._tx() as db:
            return approvals.request(
                db, kb_id, client_id, tool, article_id, args_digest, self._clock(), ttl_us
            )

    @serialised
    def decide_approval(self, approval_id: int, granted: bool, approver: str) -> bool:
        with self._tx() as db:
            return approvals.decide(db, approval_id, granted, approver, self._clock())

    @serialised
    def approval(self, approval_id: int) -> Approval | None:
        return approvals.get(self._db, approval_id)

    @serialised
    def approvals_of_call(self, kb_id: str, client_id: str, args_digest: str) -> list[Approval]:
        """Every approval asked for this exact call by this client, oldest first."""
        return approvals.of_call(self._db, kb_id, client_id, args_digest)

    @serialised
    def approval_needed(
        self, kb_id: str, client_id: str, key: str, args_digest: str, article_id: str, version: int
    ) -> bool:
        """The key is unused (a replay needs no approval; a reused key is refused for that),
        the article is published at the version the edit replaces (a write that cannot
        succeed is refused without asking anyone), and no usable approval of this digest
        waits. The write's transaction checks all of it again."""
        if prior_request(self._db, kb_id, client_id, key) is not None:
            return False
        row = self._row(kb_id, article_id)
        if row is None or not row[3] or row[4] != version:
            return False
        usable, _ = approvals.usable_or_latest(
            self._db, kb_id, client_id, args_digest, self._clock()
        )
        return usable is None
