"""What ``tools/list`` and ``initialize`` tell a new client, before its first call.

The published definitions (``tools.json``: names, required arguments, limits, formats,
annotations) are served exactly as the real server lists them. Added on top, never
changed: a description for every input property (defaults and limits in words), an
``outputSchema`` for each tool's structured result, and ``openWorldHint: false`` on
the read-only tools, since only the edit reaches beyond the KB's own records.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from sim.server.validation import TOOLS as PUBLISHED

DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 20
DEFAULT_POLL_LIMIT = 100
KB_RESOURCE_TYPE = "knowledge_base"

_KB = "Id of a knowledge base this session was granted (the server's instructions list them)."
_ARTICLE = "Id of an article, as a search hit or an event gives it."
PROPERTY_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "search_knowledge_base": {
        "knowledge_base_id": _KB,
        "query": (
            "Search words, 2 to 200 characters. An article matches if it contains any of the "
            "words; common words (the, how, to) are left out. Send the question's key terms."
        ),
        "limit": f"Hits to return, 1 to {MAX_SEARCH_LIMIT}; {DEFAULT_SEARCH_LIMIT} if left out.",
    },
    "read_knowledge_article": {
        "knowledge_base_id": _KB,
        "article_id": _ARTICLE + " Only published articles can be read.",
    },
    "edit_knowledge_article": {
        "knowledge_base_id": _KB,
        "article_id": _ARTICLE,
        "title": "New title; leave it out to keep the current one. Must not be blank.",
        "content": (
            "The article's whole new body, which replaces the current one. Must not be blank: "
            "a blank body would publish an empty article (unpublishing is the editor app's)."
        ),
        "expected_version": (
            "The updated_at of your read_knowledge_article result, exactly as returned. "
            "If the article was saved since, nothing is written and you get the current version. "
            "Another RFC 3339 spelling of the same microsecond instant (another UTC offset, "
            "more fractional zeros) names the same version; digits finer than a microsecond "
            "that are not zero name none and are refused. Results give versions as stored."
        ),
        "idempotency_key": (
            "Your own unique key for this edit. Resending the identical call with the same key "
            "returns the first result without writing again; keys are private to your session."
        ),
    },
    "poll_resource_events": {
        "resource_type": f"Only '{KB_RESOURCE_TYPE}' is simulated here.",
        "resource_id": _KB,
        "after_sequence": (
            "Events after this sequence are returned; 0 (the default) reads from the start. "
            "Send the next_after_sequence of your last poll, or the event_sequence of a read."
        ),
        "limit": f"Events per page, 1 to 100; {DEFAULT_POLL_LIMIT} if left out.",
    },
}

_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}


def _object(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


_VERSION = {"type": "string", "format": "date-time", "description": "the article's updated_at"}
REFUSAL_SCHEMA = {
    **_object(
        ["error", "message"],
        error=_object(
            ["code", "what_to_do"],
            code={
                **_STR,
                "description": "why, as a stable word: version_conflict, approval_required, "
                "invalid_argument, article_not_found, knowledge_base_not_found, …",
            },
            argument={**_STR, "description": "the argument at fault"},
            allowed={**_STR, "description": "what that argument may be"},
            received={**_STR, "description": "a bounded rendering of what was sent"},
            current_version={**_VERSION, "description": "the article's version now"},
            head_sequence=_INT,
            oldest_available_sequence=_INT,
            what_to_do=_STR,
        ),
        message={**_STR, "description": "what happened; nothing was written"},
    ),
    "description": "A refusal (the result's isError is true): nothing was written.",
}
"""Every tool's refusal. Each outputSchema is one of its success shape or this, so a client
that checks every result against the declared schema (the TypeScript SDK and the MCP
Inspector do, refusals included) accepts both and the refusal stays machine-readable."""
_SUCCESS_SCHEMAS: dict[str, dict[str, Any]] = {
    "search_knowledge_base": _object(
        ["knowledge_base_id", "searched_words", "hits"],
        knowledge_base_id=_STR,
        searched_words={"type": "array", "items": _STR},
        total_matches={**_INT, "description": "published articles holding any searched word"},
        shown=_INT,
        complete={**_BOOL, "description": "true when every match is among the hits"},
        hits={
            "type": "array",
            "items": _object(
                ["article_id", "title", "updated_at"],
                article_id=_STR,
                title=_STR,
                updated_at=_VERSION,
            ),
        },
    ),
    "read_knowledge_article": _object(
        ["knowledge_base_id", "article_id", "updated_at", "title", "content", "event_sequence"],
        knowledge_base_id=_STR,
        article_id=_STR,
        updated_at=_VERSION,
        title=_STR,
        content=_STR,
        event_sequence={**_INT, "description": "the event log's head at this read"},
    ),
    "edit_knowledge_article": _object(
        ["knowledge_base_id", "article_id", "updated_at", "previous_version", "event_sequence"],
        knowledge_base_id=_STR,
        article_id=_STR,
        updated_at=_VERSION,
        previous_version=_STR,
        event_sequence=_INT,
        replayed=_BOOL,
    ),
    "poll_resource_events": _object(
        ["resource_type", "resource_id", "events", "next_after_sequence", "has_more"],
        resource_type=_STR,
        resource_id=_STR,
        after_sequence=_INT,
        events={
            "type": "array",
            "items": _object(
                ["sequence", "type", "article_id", "updated_at"],
                sequence=_INT,
                type=_STR,
                article_id=_STR,
                updated_at=_VERSION,
            ),
        },
        next_after_sequence=_INT,
        has_more=_BOOL,
        head_sequence=_INT,
        not_published={
            "type": "array",
            "items": _STR,
            "description": "articles of these events that read_knowledge_article cannot return now",
        },
    ),
}
OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    name: {
        "type": "object",
        "anyOf": [{**schema, "description": "The tool's result."}, REFUSAL_SCHEMA],
    }
    for name, schema in _SUCCESS_SCHEMAS.items()
}
"""MCP requires an outputSchema's root to be an object; anyOf keeps the two shapes apart
(the success shapes require fields a refusal never has). Only keywords Draft-07 and
Draft 2020-12 read alike, for ajv (TypeScript SDK: draft-07) and jsonschema (Python)."""


def _listed(tool: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(tool)
    name = out["name"]
    for prop, schema in out["inputSchema"]["properties"].items():
        schema["description"] = PROPERTY_DESCRIPTIONS[name][prop]
    out["outputSchema"] = copy.deepcopy(OUTPUT_SCHEMAS[name])
    if out["annotations"].get("readOnlyHint"):
        out["annotations"].setdefault("openWorldHint", False)
    return out


def list_tools() -> list[dict[str, Any]]:
    """The tools as served: the published definitions with the additions above."""
    return [_listed(t) for t in PUBLISHED]


def instructions(grants: Iterable[str]) -> str:
    """The server's instructions: what a client needs before its first call."""
    kbs = ", ".join(sorted(grants)) or "none"
    return (
        f"Knowledge bases granted to this session: {kbs}. "
        f"search_knowledge_base returns {DEFAULT_SEARCH_LIMIT} hits unless limit says otherwise "
        f"(up to {MAX_SEARCH_LIMIT}); poll_resource_events with resource_type "
        f"'{KB_RESOURCE_TYPE}' returns up to {DEFAULT_POLL_LIMIT} events a page from "
        "after_sequence (0, the default, is the start). Cite {knowledge_base_id, article_id, "
        "updated_at} from read_knowledge_article. Re-read an article right before editing it "
        "and send its updated_at as expected_version; a version conflict means it was saved "
        "since: re-read, re-apply your change, edit again."
    )
