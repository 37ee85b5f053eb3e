"""The four MCP tools over the store, called exactly as a client would call them.

A ``Session`` holds one client's grants. ``Session.call(name, arguments)`` takes
the argument dict as it arrives over MCP, checks it against the published
schemas, runs the tool and returns an MCP-shaped result. Errors are results
(``isError``), never exceptions, and a refused call changes nothing. Every call,
refused or not, is one line in the call log. The edit tool's compare-and-swap is in
``edit.py``; the shapes all results share are in ``results.py``; what ``tools/list``
shows is in ``listing.py``. It is longer than ~300 lines because ``Session`` is one
client's whole face (its four tools, the write gate's approvals, its resources and
notifications, each logged as a call), one class whose parts share its grants and log.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from sim.kb import approvals, rows
from sim.kb.faults import store_fault
from sim.kb.store import KBStore
from sim.kb.versions import Clock, parse_version
from sim.server import reads, resources
from sim.server.calllog import CallLog, ToolCall, logged_args
from sim.server.describe import describe_name, describe_value
from sim.server.edit import EDIT_TOOL, Gate, edit_article
from sim.server.listing import (
    DEFAULT_POLL_LIMIT,
    DEFAULT_SEARCH_LIMIT,
    list_tools,
)
from sim.server.results import (
    Reply,
    Structured,
    error,
    internal_error,
    not_found,
    store_refusal,
)
from sim.server.validation import TOOL_NAMES, check_arguments

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


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
"""One encoder for every result (json.dumps with options builds one per call). A result is a
tree built by this server, never a cycle, so no container is tracked for one (a poll's page
of a hundred events encodes about 15 % faster)."""


def structured_json(structured: Structured) -> str:
    """The structured content as a client receives it (compact JSON)."""
    return _ENCODE(structured)


def shape_refusal(name: Any, arguments: Any) -> Reply | None:
    """A name that is no tool, or arguments that are no object: refused before any check.

    The stdio transport answers the same two faults as JSON-RPC invalid params."""
    if name is None:  # params.name missing or null: no tool was named at all
        names = ", ".join(TOOL_NAMES)
        return error(
            "unknown_tool",
            "No tool was named: the call's name is missing (or null).",
            f"Send the tool's name as name, one of: {names}.",
            received="no name",
            allowed=names,
        )
    if not isinstance(name, str) or name not in TOOL_NAMES:
        names = ", ".join(TOOL_NAMES)
        shown = describe_name(name)
        said = (
            f"There is no tool {shown}."
            if isinstance(name, str)
            else f"A tool's name is a string; received {shown} as name."
        )
        return error(
            "unknown_tool",
            said,
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
        store: KBStore,
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
        self.subscriptions = resources.Subscriptions()
        store.add_listener(self.changed)

    def changed(self, change: rows.Change) -> None:
        """A committed change (here, or in another process: `follow.py`): every session
        subscribed to the article hears of it."""
        uri = resources.uri(change.kb_id, change.article_id)
        for session in self.subscriptions.sessions(uri):
            session.notify(uri)

    @staticmethod
    def list_tools() -> list[dict[str, Any]]:
        return list_tools()

    def connect(
        self,
        client_id: str,
        grants: Iterable[str],
        gate: Gate = HOST_APPROVAL,
        edit_grants: Iterable[str] | None = None,
    ) -> Session:
        """A client's session; `gate` says how its user approves writes when the gate is on;
        `edit_grants`, the KBs it may edit (default: every KB it may read)."""
        session = Session(self, client_id, frozenset(grants), gate if self.write_gate else None)
        if edit_grants is not None:
            session.edit_grants = frozenset(edit_grants)
        return session

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
        self.edit_grants = grants
        self.listeners: list[resources.Listener] = []

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
        is on, the call is valid and granted, is no replay, the article is still at the
        version it replaces, and no usable approval waits. Only then is a person asked."""
        if self.gate is None or shape_refusal(EDIT_TOOL, arguments) is not None:
            return False
        if check_arguments(EDIT_TOOL, arguments) is not None:
            return False
        kb = arguments["knowledge_base_id"]
        if kb not in self.edit_grants or not self.server.store.kb_exists(kb):
            return False
        try:
            version = parse_version(arguments["expected_version"])
        except ValueError:
            return False
        return self.server.store.approval_needed(
            kb,
            self.client_id,
            arguments["idempotency_key"],
            approvals.digest(EDIT_TOOL, arguments),
            arguments["article_id"],
            version,
        )

    # -- dispatch ----------------------------------------------------------------
    def call(self, name: str, arguments: Any, why_not_approved: str = "") -> ToolResult:
        """One tool call; `why_not_approved` says why the host could not get this edit's
        approval, for the gate's refusal."""
        started = time.perf_counter_ns()
        gate = self.gate
        if gate is not None and why_not_approved:
            gate = replace(gate, why_not_approved=why_not_approved)
        tool = describe_name(name)
        try:
            reply = self._dispatch(name, arguments, gate)
        except sqlite3.Error as e:  # the KB file failed: the transaction rolled back
            reply = self.store_refusal(e)
        except Exception as e:  # a fault of this server's, never passed on as an exception
            _log.error("internal error in %s: %s", tool, type(e).__name__)
            reply = internal_error()
        result, number = self._logged(tool, logged_args(arguments), reply, started)
        if reply.approval_id and (used := self.server.store.approval(reply.approval_id)):
            self.server.log.append_approval(used, authorised_call=number)
        return result

    def refuse(self, name: str, arguments: Any, reply: Reply) -> ToolResult:
        """A call the host refuses before the tool runs, logged like any other."""
        return self._logged(
            describe_name(name), logged_args(arguments), reply, time.perf_counter_ns()
        )[0]

    def _logged(
        self, tool: str, args: dict[str, Any], reply: Reply, started_ns: int
    ) -> tuple[ToolResult, int]:
        """The result of a call, logged as one line; returns it and its number in the log."""
        structured = reply.structured
        is_error = "error" in structured
        result = ToolResult(structured, reply.text, is_error)
        number = self.server.log.append(
            ToolCall(
                t_us=self.server.clock(),
                client_id=self.client_id,
                tool=tool,
                args=args,
                result_chars=result.chars,
                empty=reply.empty,
                outcome=structured["error"]["code"] if is_error else "ok",
                wall_us=(time.perf_counter_ns() - started_ns) // 1000,
            )
        )
        return result, number

    # -- resources: push where the poll tool is pull -------------------------------
    def _resource_call(self, method: str, uri: Any, act: Callable[[str, str], Reply]) -> ToolResult:
        """A resources/* request by URI: checked like a tool's arguments, logged like a call."""
        started = time.perf_counter_ns()
        parsed = resources.parse(uri)
        if parsed is None:
            return self._logged(method, {}, resources.bad_uri(uri), started)[0]
        kb_id, article_id = parsed
        args = logged_args({"knowledge_base_id": kb_id, "article_id": article_id})
        try:
            reply = self._kb_refusal(kb_id, "uri") or act(kb_id, article_id)
        except sqlite3.Error as e:
            reply = self.store_refusal(e)
        return self._logged(method, args, reply, started)[0]

    def store_refusal(self, e: sqlite3.Error) -> Reply:
        """The refusal a failure of the KB file gets, said once on stderr too."""
        fault = store_fault(e, self.server.store.path)
        _log.warning("%s", fault.message)
        return store_refusal(fault)

    def resource_uris(self) -> list[str]:
        """resources/list: every published article of the granted KBs."""
        store = self.server.store
        out = []
        for kb_id in sorted(self.grants):
            if store.kb_exists(kb_id):
                ids = store.article_ids(kb_id)
                hidden = set(store.unpublished_among(kb_id, ids))
                out += [resources.uri(kb_id, a) for a in ids if a not in hidden]
        return out

    def read_resource(self, uri: Any) -> ToolResult:
        """resources/read: the citation fields read_knowledge_article gives, by URI."""
        return self._resource_call(
            resources.READ, uri, lambda kb, a: reads.read(self.server.store, kb, a)
        )

    def subscribe(self, uri: Any, holder: str = "client") -> ToolResult:
        """resources/subscribe to a published article of a granted KB. `holder` tells apart
        one session's subscriptions to a URI (a listen stream each, in the 2026-07-28 era)."""

        def act(kb_id: str, article_id: str) -> Reply:
            if self.server.store.published_article(kb_id, article_id) is None:
                return not_found(kb_id, article_id)
            self.server.subscriptions.add(resources.uri(kb_id, article_id), self, holder)
            return Reply({}, "", False)

        return self._resource_call(resources.SUBSCRIBE, uri, act)

    def unsubscribe(self, uri: Any, holder: str = "client") -> ToolResult:
        def act(kb_id: str, article_id: str) -> Reply:
            self.server.subscriptions.remove(resources.uri(kb_id, article_id), self, holder)
            return Reply({}, "", False)

        return self._resource_call(resources.UNSUBSCRIBE, uri, act)

    def on_notification(self, listener: resources.Listener) -> None:
        """Hear every notifications/resources/updated this session is sent, in order."""
        self.listeners.append(listener)

    def notify(self, uri: str) -> None:
        """One notification to this session: a line of the call log, then its listeners."""
        kb_id, article_id = resources.parse(uri) or ("", "")
        args = logged_args({"knowledge_base_id": kb_id, "article_id": article_id})
        # counted like a result: its params as sent
        self._logged(
            resources.UPDATED, args, Reply({"uri": uri}, "", False), time.perf_counter_ns()
        )
        for listener in list(self.listeners):
            listener(uri)

    def _dispatch(self, name: Any, arguments: Any, gate: Gate | None) -> Reply:
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
        if name == EDIT_TOOL:
            return self._edit_knowledge_article(**arguments, gate=gate)
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

    def _edit_knowledge_article(
        self, knowledge_base_id: str, gate: Gate | None, **arguments: Any
    ) -> Reply:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal
        if knowledge_base_id not in self.edit_grants:
            return error(
                "edit_not_granted",
                f"{self.client_id} may read knowledge base {describe_value(knowledge_base_id)} "
                "but not edit it: its grant is read-only. Nothing was written.",
                "Cite what you read; an edit needs a token whose grant lists this KB under edit.",
                argument="knowledge_base_id",
                received=describe_value(knowledge_base_id),
            )
        return edit_article(
            self.server.store, self.client_id, knowledge_base_id, **arguments, gate=gate
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
