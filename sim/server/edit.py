"""The edit tool: compare-and-swap on the version a citation carries, made idempotent.

The request's hash and its first result are stored with the idempotency key (scoped to
the client that sent it) in the same transaction as the write, so a resend replays
that result and writes nothing, and the same key with other arguments is refused. A
conflict says which version is current, and says why only as far as the log shows it.
With the write gate on, the same transaction also finds and uses up a granted approval
of exactly the call's arguments (``sim/kb/approvals.py``), or writes nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sim.kb import approvals, rows
from sim.kb.rows import Approval
from sim.kb.store import KBStore
from sim.kb.versions import format_version, parse_version
from sim.server.describe import describe_value
from sim.server.results import Reply, error, not_found

EDIT_TOOL = "edit_knowledge_article"
EDIT_ARGUMENTS = (
    "knowledge_base_id",
    "article_id",
    "content",
    "expected_version",
    "idempotency_key",
    "title",
)


@dataclass(frozen=True, slots=True)
class Gate:
    """The write gate is on: each write needs a granted approval of exactly its arguments."""

    how_to_approve: str
    """What a refused client should do: it depends on how the approval is asked for."""
    why_not_approved: str = ""
    """Why this call's approval could not be had (the client could not show the prompt,
    failed, or sent no usable answer); said in the refusal."""


def _blank(argument: str, what: str, what_to_do: str, value: str) -> Reply:
    return error(
        "invalid_argument",
        f"{argument}: expected a non-blank string, {what}; received a blank one.",
        what_to_do,
        argument=argument,
        allowed="a non-blank string",
        received=describe_value(value),
    )


def _saved_text(article_id: str, version: str, previous: str, sequence: int) -> str:
    return (
        f"Saved {article_id} as version {version}, replacing version {previous}; event "
        f"{sequence} records the save. Cite the new version: a further edit must send it "
        "as expected_version."
    )


def request_hash(arguments: dict[str, Any]) -> str:
    """What an idempotency key is bound to: every argument of the edit."""
    request = {name: arguments.get(name) for name in EDIT_ARGUMENTS}
    return hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()


def _approval_state(a: Approval | None) -> str:
    if a is None:
        return "none was asked for"
    if a.decision == "pending":
        return (
            f"approval {a.approval_id}, asked at {format_version(a.requested_us)}, is not decided"
        )
    if a.decision == "declined":
        return f"approval {a.approval_id} was declined at {format_version(a.decided_us)}"
    if a.used_by_sequence:
        return f"approval {a.approval_id} was already used, by event {a.used_by_sequence}"
    return f"approval {a.approval_id} expired at {format_version(a.expires_us)}"


def edit_article(
    store: KBStore,
    client_id: str,
    knowledge_base_id: str,
    article_id: str,
    content: str,
    expected_version: str,
    idempotency_key: str,
    title: str | None = None,
    gate: Gate | None = None,
) -> Reply:
    """The CAS edit of an article of a KB the caller may use, its arguments already checked;
    with a gate, only under a granted approval of exactly these arguments."""
    if not content.strip():
        return _blank(
            "content",
            "the article's whole new body (an edit replaces it, so a blank one would publish "
            "an empty article)",
            "Send the full text; to withdraw an article, unpublish it in the editor app.",
            content,
        )
    if title is not None and not title.strip():
        return _blank(
            "title",
            "a title with words in it",
            "Send a title, or leave title out to keep the current one.",
            title,
        )
    try:
        expected_us = parse_version(expected_version)
    except ValueError as e:
        return error(
            "invalid_argument",
            f"expected_version: {describe_value(expected_version)} names no version: {e}.",
            "Send updated_at exactly as read_knowledge_article returned it.",
            argument="expected_version",
            received=describe_value(expected_version),
            allowed="an RFC 3339 date-time with a UTC offset, at most microsecond precision,"
            " in UTC within the years 0001 to 9999",
        )
    cited = format_version(expected_us)  # as stored: what a save replaced, a conflict cites
    arguments = {
        "knowledge_base_id": knowledge_base_id,
        "article_id": article_id,
        "content": content,
        "expected_version": cited,
        "idempotency_key": idempotency_key,
        "title": title,
    }

    def render(version_us: int, sequence: int) -> str:
        return json.dumps(
            {
                "knowledge_base_id": knowledge_base_id,
                "article_id": article_id,
                "updated_at": format_version(version_us),
                "previous_version": cited,
                "event_sequence": sequence,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    outcome = store.cas_edit(
        knowledge_base_id,
        client_id,
        article_id,
        expected_us,
        content,
        title,
        idempotency_key,
        request_hash(arguments),
        render,
        None
        if gate is None
        else approvals.digest(EDIT_TOOL, {**arguments, "expected_version": expected_version}),
    )
    match outcome:
        case rows.Saved(result_json=stored, approval_id=approval_id):
            first = json.loads(stored)
            text = _saved_text(
                article_id, first["updated_at"], first["previous_version"], first["event_sequence"]
            )
            if approval_id:
                text += f" Approval {approval_id} authorised it and is now used up."
            return Reply({**first, "replayed": False}, text, False, approval_id)
        case rows.Replayed(result_json=stored):
            first = json.loads(stored)
            text = (
                f"Replay: your idempotency_key {describe_value(idempotency_key)} already saved "
                f"{article_id} as version {first['updated_at']} (event "
                f"{first['event_sequence']}); this is that first result and nothing was "
                "written again. The article may have changed since: re-read it before a "
                "further edit."
            )
            return Reply({**first, "replayed": True}, text, False)
        case rows.KeyReused():
            return error(
                "idempotency_key_reused",
                f"Your idempotency_key {describe_value(idempotency_key)} was already used for "
                "a different edit; nothing was written.",
                "Use a new key for a new edit; resend the identical arguments only to replay "
                "the first one.",
                argument="idempotency_key",
                received=describe_value(idempotency_key),
            )
        case rows.Gone():
            return not_found(knowledge_base_id, article_id)
        case rows.ApprovalMissing(latest=latest):
            assert gate is not None
            return error(
                "approval_required",
                "Every write needs a recorded approval of exactly its arguments, and this one "
                f"has none to use: {_approval_state(latest)}. "
                + (f"{gate.why_not_approved} " if gate.why_not_approved else "")
                + "Nothing was written.",
                gate.how_to_approve,  # no argument is at fault: none is named
            )
        case rows.Conflict(current_us=current_us, expected_was_a_version=known):
            current = format_version(current_us)
            why = (
                f"it has been saved since version {cited}"
                if known
                else f"{cited} is not a version of it that the event log holds"
            )
            return error(
                "version_conflict",
                f"Version conflict: {article_id} is at version {current}; {why}. Nothing was "
                "written.",
                "Re-read it with read_knowledge_article, re-apply your change to the current "
                f"content, and edit again with expected_version={current}.",
                argument="expected_version",
                received=describe_value(expected_version),
                current_version=current,
            )
    raise AssertionError(f"unhandled edit outcome {outcome!r}")
