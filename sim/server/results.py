"""What every tool returns: machine values once, and text an agent reads first.

A reply's structured content holds the values the next call needs (ids, versions,
cursors), each once. Its text opens with the sentence that says what those values
mean, then one compact line per hit or event (RESPONSE_DESIGN.md rules 1–6). A refusal
names its code, the argument at fault, what is allowed, a bounded rendering of what was
received, and what to do; it is returned as a result, never raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.kb.faults import StoreFault
from sim.server.describe import describe_value

Structured = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reply:
    structured: Structured
    text: str
    empty: bool
    """Nothing found, nothing happened, or a refusal: the call log's ``empty``."""
    approval_id: int = 0
    """The approval this call used up (a gated write), for the approval log; 0 if none."""


def error(code: str, message: str, what_to_do: str, **fields: Any) -> Reply:
    """A refusal; the text is the message, then what to do, each said once."""
    structured = {"error": {"code": code, **fields, "what_to_do": what_to_do}, "message": message}
    return Reply(structured, f"{message} {what_to_do}", True)


def not_found(kb_id: str, article_id: str) -> Reply:
    shown = describe_value(article_id)
    return error(
        "article_not_found",
        f"No published article {shown} in knowledge base {describe_value(kb_id)}: it is "
        "unpublished, or never existed.",
        "Treat citations of it as gone, and search again for a current article.",
        argument="article_id",
        received=shown,
    )


def internal_error() -> Reply:
    return error(
        "internal_error",
        "This server failed on the call and wrote nothing; the fault is the server's, not "
        "the arguments'.",
        "Retrying the same call is safe; report it if it repeats.",
    )


def store_refusal(fault: StoreFault) -> Reply:
    """The KB file failed (damaged, busy, read-only, full): what is wrong and what to do."""
    return error(fault.code, fault.message, fault.what_to_do)
