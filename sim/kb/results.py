"""Shapes shared by the tools' results: the citation, the error, the article that is gone.

An error names its code, the argument at fault, what was received and what is allowed,
and says what to do next (RESPONSE_DESIGN.md); it is returned as a result, not raised.
"""

from __future__ import annotations

from typing import Any

from sim.kb.validation import describe_value

Structured = dict[str, Any]
Outcome = tuple[Structured, bool]
"""A tool's structured result and whether it is empty (nothing found, or an error)."""


def error(code: str, message: str, **fields: Any) -> Structured:
    return {"error": {"code": code, **fields}, "message": message}


def citation(kb_id: str, article_id: str, version: str) -> Structured:
    return {"knowledge_base_id": kb_id, "article_id": article_id, "updated_at": version}


def not_found(kb_id: str, article_id: str) -> Structured:
    shown = describe_value(article_id)
    return error(
        "article_not_found",
        f"No published article {shown} in knowledge base {kb_id!r}: it may have "
        "been unpublished, or never existed. Treat citations of it as gone; search again "
        "for a current article.",
        argument="article_id",
        received=shown,
    )


def internal_error() -> Structured:
    return error(
        "internal_error",
        "This server failed on the call and wrote nothing; the fault is the server's, not "
        "the arguments'. Retrying the same call is safe; report it if it repeats.",
    )
