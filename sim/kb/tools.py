"""The four MCP tools over the store, called exactly as a client would call them.

A ``Session`` holds one client's grants. ``Session.call(name, arguments)`` takes
the argument dict as it arrives over MCP, checks it against the published
schemas, runs the tool and returns an MCP-shaped result. Errors are results
(``isError``), never exceptions, and a refused call changes nothing. Every call,
refused or not, is one line in the call log. The edit tool's compare-and-swap is in
``edit.py``; the shapes all results share are in ``results.py``.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sim.kb import store as st
from sim.kb.calllog import CallLog, ToolCall
from sim.kb.edit import edit_article
from sim.kb.results import Outcome, Structured, citation, error, internal_error, not_found
from sim.kb.validation import (
    TOOL_NAMES,
    TOOLS,
    check_arguments,
    describe_name,
    describe_value,
)
from sim.kb.versions import Clock, format_version

DEFAULT_SEARCH_LIMIT = 5
DEFAULT_POLL_LIMIT = 100
KB_RESOURCE_TYPE = "knowledge_base"
RESOURCE_TYPES = ("channel", "note", KB_RESOURCE_TYPE, "record", "session")
_WORD = re.compile(r"\w+")
_log = logging.getLogger(__name__)
_LOGGED_NAMES = 8
"""Argument names logged per call; a hostile client may send thousands."""
# Words too common to rank by: left out of the FTS query, as most search engines do.
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "its", "me", "my", "of", "on", "or", "so", "that", "the", "this",
    "to", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
})  # fmt: skip


class ToolCaller(Protocol):
    """What a client holds: a session in-process, or one across the MCP protocol."""

    client_id: str

    def call(self, name: str, arguments: Any) -> ToolResult: ...


@dataclass(frozen=True, slots=True)
class ToolResult:
    structured: Structured
    text: str
    """The structured result serialised once; its length is the logged result size."""
    is_error: bool

    def to_mcp(self) -> dict[str, Any]:
        return {
            "content": [{"type": "text", "text": self.text}],
            "structuredContent": self.structured,
            "isError": self.is_error,
        }


def _arg_names(args: dict[Any, Any]) -> str:
    names = sorted(describe_name(n) for n in args)
    more = f",+{len(names) - _LOGGED_NAMES} more" if len(names) > _LOGGED_NAMES else ""
    return ",".join(names[:_LOGGED_NAMES]) + more


def _fts_query(text: str) -> str:
    """Free text to an FTS5 query: each word but stopwords quoted (no operator injection), OR-ed."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(text))
    return " OR ".join(f'"{w}"' for w in words if w not in STOPWORDS)


def shape_refusal(name: Any, arguments: Any) -> Structured | None:
    """A name that is no tool, or arguments that are no object: refused before any check.

    The stdio transport answers the same two faults as JSON-RPC invalid params."""
    if not isinstance(name, str) or name not in TOOL_NAMES:
        names = ", ".join(TOOL_NAMES)
        shown = describe_name(name)
        return error(
            "unknown_tool",
            f"There is no tool {shown}. Call one of: {names}.",
            received=shown,
            allowed=names,
        )
    if not isinstance(arguments, dict):
        return error(
            "invalid_arguments",
            f"Arguments must be a JSON object; received {describe_value(arguments)}. "
            f"Send an object with the argument names of {name}.",
            received=describe_value(arguments),
            allowed="a JSON object",
        )
    return None


class KBServer:
    def __init__(self, store: st.KBStore, clock: Clock, log: CallLog | None = None) -> None:
        self.store = store
        self.clock = clock
        self.log = log if log is not None else CallLog()

    @staticmethod
    def list_tools() -> list[dict[str, Any]]:
        return copy.deepcopy(TOOLS)

    def connect(self, client_id: str, grants: Iterable[str]) -> Session:
        return Session(self, client_id, frozenset(grants))


class Session:
    def __init__(self, server: KBServer, client_id: str, grants: frozenset[str]) -> None:
        self.server = server
        self.client_id = client_id
        self.grants = grants

    # -- dispatch ----------------------------------------------------------------
    def call(self, name: str, arguments: Any) -> ToolResult:
        started = time.perf_counter_ns()
        try:
            structured, empty = self._dispatch(name, arguments)
        except Exception as e:  # a fault of this server's, never passed on as an exception
            _log.error("internal error in %s: %s", describe_name(name), type(e).__name__)
            structured, empty = internal_error(), True
        is_error = "error" in structured
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        args = arguments if isinstance(arguments, dict) else {}
        query = args.get("query")
        article = args.get("article_id")
        self.server.log.append(
            ToolCall(
                t_us=self.server.clock(),
                client_id=self.client_id,
                tool=describe_name(name),
                arg_names=_arg_names(args),
                query_chars=len(query) if isinstance(query, str) else 0,
                article_id=describe_name(article) if isinstance(article, str) else "",
                result_chars=len(text),
                empty=empty or is_error,
                outcome=structured["error"]["code"] if is_error else "ok",
                wall_us=(time.perf_counter_ns() - started) // 1000,
            )
        )
        return ToolResult(structured, text, is_error)

    def _dispatch(self, name: Any, arguments: Any) -> Outcome:
        if (refusal := shape_refusal(name, arguments)) is not None:
            return refusal, True
        problem = check_arguments(name, arguments)
        if problem is not None:
            message = (
                f"{problem.argument}: expected {problem.allowed}; received {problem.received}. "
                f"{problem.what_to_do}"
            )
            return error(
                problem.code,
                message,
                argument=problem.argument,
                allowed=problem.allowed,
                received=problem.received,
                what_to_do=problem.what_to_do,
            ), True
        handler = getattr(self, "_" + name)
        return handler(**arguments)

    def _kb_refusal(self, kb_id: str, argument: str) -> Structured | None:
        """Same answer for 'not granted' and 'does not exist': reveal nothing."""
        if kb_id in self.grants and self.server.store.kb_exists(kb_id):
            return None
        granted = ", ".join(sorted(self.grants)) or "none"
        return error(
            "knowledge_base_not_found",
            f"No knowledge base {describe_value(kb_id)} is available to this session. "
            f"Use one this session was granted: {granted}.",
            argument=argument,
            received=describe_value(kb_id),
            allowed=granted,
        )

    # -- the four tools ------------------------------------------------------------
    def _search_knowledge_base(
        self, knowledge_base_id: str, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> Outcome:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal, True
        fts = _fts_query(query)
        total, hits = self.server.store.search(knowledge_base_id, fts, limit) if fts else (0, [])
        if total:
            message = (
                f"{total} published articles match; showing the top {len(hits)} by relevance. "
                "Each hit's citation is ready to store."
            )
        else:
            message = (
                "No published article matches these words; try other key terms. "
                "Drafts and unpublished articles are never searched."
            )
        result = {
            "knowledge_base_id": knowledge_base_id,
            "scope": "published articles only",
            "total_matches": total,
            "shown": len(hits),
            "hits": [
                {
                    "article_id": h.article_id,
                    "title": h.title,
                    "updated_at": (v := format_version(h.updated_us)),
                    "citation": citation(knowledge_base_id, h.article_id, v),
                }
                for h in hits
            ],
            "message": message,
        }
        return result, not hits

    def _read_knowledge_article(self, knowledge_base_id: str, article_id: str) -> Outcome:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal, True
        store = self.server.store
        article = store.published_article(knowledge_base_id, article_id)
        if article is None:
            return not_found(knowledge_base_id, article_id), True
        version = format_version(article.updated_us)
        head = store.head_sequence(knowledge_base_id)
        return {
            "citation": citation(knowledge_base_id, article_id, version),
            "article_id": article_id,
            "title": article.title,
            "content": article.content,
            "updated_at": version,
            "event_sequence": head,
            "message": (
                f"Published article {article_id}, version {version}. Store the citation; "
                f"to edit, pass updated_at as expected_version; to watch for changes, "
                f"poll events with after_sequence={head}."
            ),
        }, False

    def _edit_knowledge_article(self, knowledge_base_id: str, **arguments: Any) -> Outcome:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal, True
        return edit_article(self.server.store, self.client_id, knowledge_base_id, **arguments)

    def _poll_resource_events(
        self,
        resource_type: str,
        resource_id: str,
        after_sequence: int = 0,
        limit: int = DEFAULT_POLL_LIMIT,
    ) -> Outcome:
        if resource_type != KB_RESOURCE_TYPE:
            known = resource_type in RESOURCE_TYPES
            return error(
                "resource_type_not_simulated" if known else "invalid_argument",
                f"resource_type {describe_value(resource_type)} "
                + (
                    "exists on the real server but is not simulated here. "
                    if known
                    else f"is not one of: {', '.join(RESOURCE_TYPES)}. "
                )
                + f"Poll resource_type={KB_RESOURCE_TYPE!r} with a granted knowledge base id.",
                argument="resource_type",
                received=describe_value(resource_type),
                allowed=KB_RESOURCE_TYPE,
            ), True
        if refusal := self._kb_refusal(resource_id, "resource_id"):
            return refusal, True
        head = self.server.store.head_sequence(resource_id)
        if after_sequence > head:  # checked first: the schema sets no upper bound
            return error(
                "sequence_ahead_of_log",
                f"after_sequence {describe_value(after_sequence)} is beyond the log's head "
                f"{head}; it cannot come from this knowledge base. Re-read what you cite, "
                f"then resume with after_sequence={head}.",
                argument="after_sequence",
                received=describe_value(after_sequence),
                head_sequence=head,
            ), True
        page = self.server.store.events_after(resource_id, after_sequence, limit)
        if after_sequence < page.oldest_sequence - 1:
            return error(
                "history_trimmed",
                f"Events {after_sequence + 1} to {page.oldest_sequence - 1} were trimmed from "
                f"the log; the oldest kept is {page.oldest_sequence} and the head is {head}. "
                "Changes in that gap cannot be listed: re-read every article you cite, then "
                f"resume with after_sequence={head}.",
                argument="after_sequence",
                received=describe_value(after_sequence),
                oldest_available_sequence=page.oldest_sequence,
                head_sequence=head,
            ), True
        events = page.events
        next_after = events[-1].sequence if events else after_sequence
        has_more = next_after < head
        tail = "more wait: call again with it now." if has_more else "no more pages."
        return {
            "resource_type": resource_type,
            "resource_id": resource_id,
            "events": [
                {
                    "sequence": e.sequence,
                    "type": e.type,
                    "article_id": e.article_id,
                    "updated_at": format_version(e.updated_us),
                }
                for e in events
            ],
            "next_after_sequence": next_after,
            "has_more": has_more,
            "head_sequence": head,
            "message": (
                f"{len(events)} events after sequence {after_sequence}; resume with "
                f"after_sequence={next_after}; {tail}"
            ),
        }, not events
