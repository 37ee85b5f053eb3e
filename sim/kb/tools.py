"""The four MCP tools over the store, called exactly as a client would call them.

A ``Session`` holds one client's grants. ``Session.call(name, arguments)`` takes
the argument dict as it arrives over MCP, checks it against the published
schemas, runs the tool and returns an MCP-shaped result. Errors are results
(``isError``), never exceptions, and a refused call changes nothing. Every call,
refused or not, is one line in the call log. The edit tool's compare-and-swap is in
``edit.py``; the shapes all results share are in ``results.py``; what ``tools/list``
shows is in ``listing.py``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sim.kb import approvals, reads
from sim.kb import store as st
from sim.kb.calllog import CallLog, ToolCall, logged_args
from sim.kb.edit import EDIT_TOOL, Gate, edit_article
from sim.kb.listing import (
    DEFAULT_POLL_LIMIT,
    DEFAULT_SEARCH_LIMIT,
    list_tools,
)
from sim.kb.results import Reply, Structured, error, internal_error
from sim.kb.validation import TOOL_NAMES, check_arguments, describe_name, describe_value
from sim.kb.versions import Clock

_log = logging.getLogger(__name__)


class ToolCaller(Protocol):
    """What a client holds: a session in-process, or one across the MCP protocol."""

    client_id: str

    def call(self, name: str, arguments: Any) -> ToolResult: ...


@dataclass(frozen=True, slots=True)
class ToolResult:
    structured: Structured
    text: str
    is_error: bool

    @property
    def chars(self) -> int:
        """Characters a client receives: the text plus the structured content's JSON."""
        return len(self.text) + len(structured_json(self.structured))


def structured_json(structured: Structured) -> str:
    """The structured content as a client receives it (compact JSON)."""
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


def shape_refusal(name: Any, arguments: Any) -> Reply | None:
    """A name that is no tool, or arguments that are no object: refused before any check.

    The stdio transport answers the same two faults as JSON-RPC invalid params."""
    names = ", ".join(TOOL_NAMES)
    if not isinstance(name, str) or name not in TOOL_NAMES:
        shown = describe_name(name)
        return error(
            "unknown_tool",
            f"There is no tool {shown}.",
            f"Call one of: {names}.",
            received=shown,
            allowed=names,
        )
    if not isinstance(arguments, dict):
        return error(
            "invalid_arguments",
            f"Arguments must be a JSON object; received {describe_value(arguments)}.",
            f"Send an object with the argument names of {name}.",
            received=describe_value(arguments),
            allowed="a JSON object",
        )
    return None


HOST_APPROVAL = Gate(
    "Ask your user to approve this exact edit (the host app records the decision), then "
    "send it unchanged; an approval covers one call and is never widened to a session."
)


class KBServer:
    def __init__(
        self,
        store: st.KBStore,
        clock: Clock,
        log: CallLog | None = None,
        write_gate: bool = False,
        approval_ttl_s: float = 900.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.log = log if log is not None else CallLog()
        self.write_gate = write_gate
        self.approval_ttl_us = round(approval_ttl_s * 1_000_000)

    @staticmethod
    def list_tools() -> list[dict[str, Any]]:
        return list_tools()

    def connect(self, client_id: str, grants: Iterable[str], gate: Gate = HOST_APPROVAL) -> Session:
        """A client's session; `gate` says how its user approves writes when the gate is on."""
        return Session(self, client_id, frozenset(grants), gate if self.write_gate else None)

    def decide_approval(self, approval_id: int, granted: bool, approver: str) -> bool:
        """The user's decision on a pending approval; a decline goes to the log at once."""
        decided = self.store.decide_approval(approval_id, granted, approver)
        approval = self.store.approval(approval_id)
        if decided and approval is not None and not granted:
            self.log.append_approval(approval)
        return decided


class Session:
    def __init__(
        self, server: KBServer, client_id: str, grants: frozenset[str], gate: Gate | None = None
    ) -> None:
        self.server = server
        self.client_id = client_id
        self.grants = grants
        self.gate = gate

    # -- the write gate: what the host app does, outside the tools --------------------
    def request_approval(self, arguments: dict[str, Any]) -> int:
        """Ask for the approval of exactly this edit call; returns the pending approval's id."""
        problem = shape_refusal(EDIT_TOOL, arguments) or check_arguments(EDIT_TOOL, arguments)
        if problem is not None:
            raise ValueError(f"request_approval: not a valid edit call ({problem})")
        return self.server.store.request_approval(
            arguments["knowledge_base_id"],
            self.client_id,
            EDIT_TOOL,
            arguments["article_id"],
            approvals.digest(EDIT_TOOL, arguments),
            self.server.approval_ttl_us,
        )

    def approval_needed(self, arguments: Any) -> bool:
        """Whether this edit call would be refused for want of an approval alone: the gate
        is on, the call is valid and granted, is no replay, and no usable approval waits."""
        if self.gate is None or shape_refusal(EDIT_TOOL, arguments) is not None:
            return False
        if check_arguments(EDIT_TOOL, arguments) is not None:
            return False
        kb = arguments["knowledge_base_id"]
        if kb not in self.grants or not self.server.store.kb_exists(kb):
            return False
        return self.server.store.approval_needed(
            kb, self.client_id, arguments["idempotency_key"], approvals.digest(EDIT_TOOL, arguments)
        )

    # -- dispatch ----------------------------------------------------------------
    def call(self, name: str, arguments: Any) -> ToolResult:
        started = time.perf_counter_ns()
        try:
            reply = self._dispatch(name, arguments)
        except Exception as e:  # a fault of this server's, never passed on as an exception
            _log.error("internal error in %s: %s", describe_name(name), type(e).__name__)
            reply = internal_error()
        structured = reply.structured
        is_error = "error" in structured
        result = ToolResult(structured, reply.text, is_error)
        log = self.server.log
        number = log.append(
            ToolCall(
                t_us=self.server.clock(),
                client_id=self.client_id,
                tool=describe_name(name),
                args=logged_args(arguments),
                result_chars=result.chars,
                empty=reply.empty,
                outcome=structured["error"]["code"] if is_error else "ok",
                wall_us=(time.perf_counter_ns() - started) // 1000,
            )
        )
        if reply.approval_id and (used := self.server.store.approval(reply.approval_id)):
            log.append_approval(used, authorised_call=number)
        return result

    def _dispatch(self, name: Any, arguments: Any) -> Reply:
        if (refusal := shape_refusal(name, arguments)) is not None:
            return refusal
        problem = check_arguments(name, arguments)
        if problem is not None:
            return error(
                problem.code,
                f"{problem.argument}: expected {problem.allowed}; received {problem.received}.",
                problem.what_to_do,
                argument=problem.argument,
                allowed=problem.allowed,
                received=problem.received,
            )
        handler = getattr(self, "_" + name)
        return handler(**arguments)

    def _kb_refusal(self, kb_id: str, argument: str) -> Reply | None:
        """Same answer for 'not granted' and 'does not exist': reveal nothing."""
        if kb_id in self.grants and self.server.store.kb_exists(kb_id):
            return None
        granted = ", ".join(sorted(self.grants)) or "none"
        return error(
            "knowledge_base_not_found",
            f"No knowledge base {describe_value(kb_id)} is available to this session.",
            f"Use one this session was granted: {granted}.",
            argument=argument,
            received=describe_value(kb_id),
            allowed=granted,
        )

    # -- the four tools ------------------------------------------------------------
    def _search_knowledge_base(
        self, knowledge_base_id: str, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> Reply:
        refusal = self._kb_refusal(knowledge_base_id, "knowledge_base_id")
        return refusal or reads.search(self.server.store, knowledge_base_id, query, limit)

    def _read_knowledge_article(self, knowledge_base_id: str, article_id: str) -> Reply:
        refusal = self._kb_refusal(knowledge_base_id, "knowledge_base_id")
        return refusal or reads.read(self.server.store, knowledge_base_id, article_id)

    def _edit_knowledge_article(self, knowledge_base_id: str, **arguments: Any) -> Reply:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal
        return edit_article(
            self.server.store, self.client_id, knowledge_base_id, **arguments, gate=self.gate
        )

    def _poll_resource_events(
        self,
        resource_type: str,
        resource_id: str,
        after_sequence: int = 0,
        limit: int = DEFAULT_POLL_LIMIT,
    ) -> Reply:
        refusal = reads.resource_type_refusal(resource_type) or self._kb_refusal(
            resource_id, "resource_id"
        )
        return refusal or reads.poll(
            self.server.store, resource_type, resource_id, after_sequence, limit
        )
