"""The KB's transactional store: SQLite (in memory by default) with FTS5 search.

Two kinds of caller use it. The tool layer (``sim.server``) reads published articles, the
event log, and performs the compare-and-swap edit. The human side (the KB editor app) creates,
saves, publishes and unpublishes. Every change and the event recording it are written in one
transaction; the FTS index holds exactly the published articles, so search can never return a
draft (``search.py`` keeps FTS5 and the in-memory index a search ranks from).

``KBStore`` is composed of one mixin per concept, all on ``core.StoreCore`` (the connection,
the lock and listeners, transactions, the event append and the row write):
``editor.EditorSide``, ``tool_reads.ToolReads``, ``cas.CasEdit``,
``approval_desk.ApprovalDesk``, ``oracle_reads.OracleReads`` and ``importing.Importing``
(an outside history, such as a docs folder's git log, appended in one transaction).
"""

from __future__ import annotations

from sim.kb.approval_desk import ApprovalDesk
from sim.kb.cas import CasEdit
from sim.kb.editor import EditorSide
from sim.kb.importing import Importing
from sim.kb.oracle_reads import OracleReads
from sim.kb.tool_reads import ToolReads


class KBStore(EditorSide, CasEdit, ApprovalDesk, Importing, OracleReads, ToolReads):
    """The store every caller holds: the human side, the tools' reads and CAS edit, the
    approval desk, imports and the oracle's reads on one connection."""
