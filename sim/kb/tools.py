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
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sim.kb import store as st
from sim.kb.calllog import CallLog, ToolCall, logged_args
from sim.kb.edit import edit_article
from sim.kb.listing import (
    DEFAULT_POLL_LIMIT,
    DEFAULT_SEARCH_LIMIT,
    KB_RESOURCE_TYPE,
    MAX_SEARCH_LIMIT,
    list_tools,
)
from sim.kb.results import Reply, Structured, error, internal_error, not_found
from sim.kb.validation import TOOL_NAMES, check_arguments, describe_name, describe_value
from sim.kb.versions import Clock, format_version

RESOURCE_TYPES = ("channel", "note", KB_RESOURCE_TYPE, "record", "session")
_WORD = re.compile(r"\w+")
_log = logging.getLogger(__name__)
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
    is_error: bool

    @property
    def chars(self) -> int:
        """Characters a client receives: the text plus the structured content's JSON."""
        return len(self.text) + len(structured_json(self.structured))

    def to_mcp(self) -> dict[str, Any]:
        return {
            "content": [{"type": "text", "text": self.text}],
            "structuredContent": self.structured,
            "isError": self.is_error,
        }


def structured_json(structured: Structured) -> str:
    """The structured content as a client receives it (compact JSON)."""
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


def search_words(text: str) -> list[str]:
    """The query's words that are searched: lower-cased, each once, stopwords left out."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(text))
    return [w for w in words if w not in STOPWORDS]


def count(n: int, noun: str) -> str:
    """A count in words, as an agent copies it: '1 event', '3 events'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


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


class KBServer:
    def __init__(self, store: st.KBStore, clock: Clock, log: CallLog | None = None) -> None:
        self.store = store
        self.clock = clock
        self.log = log if log is not None else CallLog()

    @staticmethod
    def list_tools() -> list[dict[str, Any]]:
        return list_tools()

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
            reply = self._dispatch(name, arguments)
        except Exception as e:  # a fault of this server's, never passed on as an exception
            _log.error("internal error in %s: %s", describe_name(name), type(e).__name__)
            reply = internal_error()
        structured = reply.structured
        is_error = "error" in structured
        result = ToolResult(structured, reply.text, is_error)
        self.server.log.append(
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
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal
        words = search_words(query)
        kb = knowledge_base_id
        if not words:
            return Reply(
                {"knowledge_base_id": kb, "searched_words": [], "hits": []},
                "Nothing was searched: the query has no word to search by (common words such "
                "as how, the and to are left out). Send the question's key terms, such as a "
                "feature, a setting or an error message.",
                True,
            )
        fts = " OR ".join(f'"{w}"' for w in words)  # quoted: no FTS operator can be injected
        total, hits = self.server.store.search(kb, fts, limit)
        listed = ", ".join(words)
        structured: Structured = {
            "knowledge_base_id": kb,
            "searched_words": words,
            "total_matches": total,
            "shown": len(hits),
            "complete": len(hits) == total,
            "hits": [],
        }
        if not total:
            return Reply(
                structured,
                f"No published article in {kb} contains any of the words: {listed}. Drafts and "
                "unpublished articles are never searched; try other key terms.",
                True,
            )
        shown = (
            f"all {total} shown"
            if len(hits) == total
            else f"showing the {len(hits)} most relevant (limit goes up to {MAX_SEARCH_LIMIT})"
        )
        lines = [
            f"{count(total, 'published article')} in {kb} "
            f"{'contains' if total == 1 else 'contain'} at least one of the words: {listed}; "
            f"{shown}. Each line is article_id | title | updated_at, the version to cite."
        ]
        for i, h in enumerate(hits, 1):
            version = format_version(h.updated_us)
            structured["hits"].append(
                {"article_id": h.article_id, "title": h.title, "updated_at": version}
            )
            lines.append(f"{i}. {h.article_id} | {h.title} | {version}")
        return Reply(structured, "\n".join(lines), False)

    def _read_knowledge_article(self, knowledge_base_id: str, article_id: str) -> Reply:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal
        store = self.server.store
        article = store.published_article(knowledge_base_id, article_id)
        if article is None:
            return not_found(knowledge_base_id, article_id)
        version = format_version(article.updated_us)
        head = store.head_sequence(knowledge_base_id)
        text = (
            f"Published article {article_id} of {knowledge_base_id}, version {version}. Cite it "
            f"as {{knowledge_base_id, article_id, updated_at}}; to edit it, send that updated_at "
            f"as expected_version; to hear of changes, poll events with after_sequence={head}.\n"
            f"Title: {article.title}\n\n{article.content}"
        )
        return Reply(
            {
                "knowledge_base_id": knowledge_base_id,
                "article_id": article_id,
                "updated_at": version,
                "title": article.title,
                "content": article.content,
                "event_sequence": head,
            },
            text,
            False,
        )

    def _edit_knowledge_article(self, knowledge_base_id: str, **arguments: Any) -> Reply:
        if refusal := self._kb_refusal(knowledge_base_id, "knowledge_base_id"):
            return refusal
        return edit_article(self.server.store, self.client_id, knowledge_base_id, **arguments)

    def _poll_resource_events(
        self,
        resource_type: str,
        resource_id: str,
        after_sequence: int = 0,
        limit: int = DEFAULT_POLL_LIMIT,
    ) -> Reply:
        if resource_type != KB_RESOURCE_TYPE:
            known = resource_type in RESOURCE_TYPES
            return error(
                "resource_type_not_simulated" if known else "invalid_argument",
                f"resource_type {describe_value(resource_type)} "
                + (
                    f"exists on the real server, but only {KB_RESOURCE_TYPE!r} is simulated here."
                    if known
                    else f"is not one of: {', '.join(RESOURCE_TYPES)}."
                ),
                f"Poll resource_type={KB_RESOURCE_TYPE!r} with a granted knowledge base id.",
                argument="resource_type",
                received=describe_value(resource_type),
                allowed=KB_RESOURCE_TYPE,
            )
        if refusal := self._kb_refusal(resource_id, "resource_id"):
            return refusal
        store = self.server.store
        head = store.head_sequence(resource_id)
        if after_sequence > head:  # checked first: the schema sets no upper bound
            return error(
                "sequence_ahead_of_log",
                f"after_sequence {describe_value(after_sequence)} is beyond this log's head, "
                f"{head}: the log holds no such position now (a server that keeps its log in "
                "memory starts afresh when restarted).",
                f"Re-read the articles you cite, then resume with after_sequence={head}.",
                argument="after_sequence",
                received=describe_value(after_sequence),
                head_sequence=head,
            )
        page = store.events_after(resource_id, after_sequence, limit)
        if after_sequence < page.oldest_sequence - 1:
            return error(
                "history_trimmed",
                f"Events {after_sequence + 1} to {page.oldest_sequence - 1} were trimmed from "
                f"the log; the oldest kept is {page.oldest_sequence} and the head is {head}. "
                "Changes in that gap cannot be listed.",
                f"Re-read every article you cite, then resume with after_sequence={head}.",
                argument="after_sequence",
                received=describe_value(after_sequence),
                oldest_available_sequence=page.oldest_sequence,
                head_sequence=head,
            )
        return _event_page(resource_type, resource_id, after_sequence, page, store)


def _event_page(
    resource_type: str, kb: str, after: int, page: st.EventPage, store: st.KBStore
) -> Reply:
    events = page.events
    next_after = events[-1].sequence if events else after
    has_more = next_after < page.head_sequence
    structured: Structured = {
        "resource_type": resource_type,
        "resource_id": kb,
        "after_sequence": after,
        "events": [],
        "next_after_sequence": next_after,
        "has_more": has_more,
        "head_sequence": page.head_sequence,
    }
    if not events:
        text = (
            f"No events after sequence {after}: nothing in {kb} changed since. Poll again "
            f"later with after_sequence={next_after}."
        )
        return Reply(structured, text, True)
    articles = list(dict.fromkeys(e.article_id for e in events))
    tail = (
        f"more events wait: call again now with after_sequence={next_after}"
        if has_more
        else f"no more pages; next time poll with after_sequence={next_after}"
    )
    lines = [
        f"{count(len(events), 'event')} on {count(len(articles), 'article')} after sequence "
        f"{after}; {tail}. "
        "Each line is sequence type article_id updated_at."
    ]
    for e in events:
        version = format_version(e.updated_us)
        structured["events"].append(
            {
                "sequence": e.sequence,
                "type": e.type,
                "article_id": e.article_id,
                "updated_at": version,
            }
        )
        lines.append(f"{e.sequence} {e.type} {e.article_id} {version}")
    hidden = store.unpublished_among(kb, articles)
    if hidden:
        structured["not_published"] = hidden
        lines.append(
            f"{count(len(hidden), 'article')} of these {'is' if len(hidden) == 1 else 'are'} not "
            f"published now, so read_knowledge_article cannot return "
            f"{'it' if len(hidden) == 1 else 'them'}: {', '.join(hidden)}."
        )
    return Reply(structured, "\n".join(lines), False)
