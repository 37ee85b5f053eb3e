"""The edit tool: compare-and-swap on the version a citation carries, made idempotent.

The request's hash and its first result are stored with the idempotency key in the
same transaction as the write, so a resend replays that result and writes nothing,
and the same key with other arguments is refused. A conflict says which version is
current and how to re-apply the change.
"""

from __future__ import annotations

import hashlib
import json

from sim.kb import rows
from sim.kb.results import Outcome, citation, error, not_found
from sim.kb.store import KBStore
from sim.kb.validation import describe_value
from sim.kb.versions import format_version, parse_version


def edit_article(
    store: KBStore,
    client_id: str,
    knowledge_base_id: str,
    article_id: str,
    content: str,
    expected_version: str,
    idempotency_key: str,
    title: str | None = None,
) -> Outcome:
    """The CAS edit of an article of a KB the caller may use, its arguments already checked."""
    if not content.strip():
        return error(
            "invalid_argument",
            "content: expected the article's whole new body; received a blank one. An edit "
            "replaces the body, so a blank one would publish an empty article. Send the full "
            "text; to withdraw an article, unpublish it in the editor app.",
            argument="content",
            allowed="a non-blank string",
            received=describe_value(content),
        ), True
    if title is not None and not title.strip():
        return error(
            "invalid_argument",
            "title: expected a non-blank string; received a blank one. "
            "Send a title with words in it, or leave title out to keep the current one.",
            argument="title",
            allowed="a non-blank string",
            received=describe_value(title),
        ), True
    try:
        expected_us = parse_version(expected_version)
    except ValueError:
        return error(
            "invalid_argument",
            f"expected_version: {describe_value(expected_version)} is not a date-time this "
            "server can "
            "read. Send updated_at exactly as read_knowledge_article returned it.",
            argument="expected_version",
            received=describe_value(expected_version),
            allowed="an RFC 3339 date-time with a UTC offset",
        ), True
    request = {
        "knowledge_base_id": knowledge_base_id,
        "article_id": article_id,
        "content": content,
        "expected_version": expected_version,
        "idempotency_key": idempotency_key,
        "title": title,
    }
    request_hash = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()

    def render(version_us: int, sequence: int) -> str:
        version = format_version(version_us)
        return json.dumps(
            {
                "status": "saved",
                "citation": citation(knowledge_base_id, article_id, version),
                "article_id": article_id,
                "updated_at": version,
                "previous_version": expected_version,
                "event_sequence": sequence,
                "replayed": False,
                "message": (
                    f"Saved {article_id} as version {version} (event {sequence}). Store "
                    f"the new citation; a further edit must send expected_version={version}."
                ),
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
        request_hash,
        render,
    )
    match outcome:
        case rows.Saved(result_json=text):
            return json.loads(text), False
        case rows.Replayed(result_json=text):
            first = json.loads(text)
            first["replayed"] = True
            first["message"] = (
                f"Replay: idempotency_key {describe_value(idempotency_key)} already saved "
                f"{article_id} as "
                f"version {first['updated_at']}; this is that first result, nothing was "
                "written again."
            )
            return first, False
        case rows.KeyReused():
            return error(
                "idempotency_key_reused",
                f"idempotency_key {describe_value(idempotency_key)} was already used for a "
                "different "
                "edit. Nothing was written. Use a new key for a new edit; resend the "
                "identical arguments only to replay the first one.",
                argument="idempotency_key",
                received=describe_value(idempotency_key),
            ), True
        case rows.Gone():
            return not_found(knowledge_base_id, article_id), True
        case rows.Conflict(current_us=current_us):
            current = format_version(current_us)
            return error(
                "version_conflict",
                f"Version conflict: {article_id} is now at version {current}, not "
                f"{expected_version}; it changed after your read and nothing was written. "
                "Re-read it with read_knowledge_article, re-apply your change to the "
                f"current content, and edit again with expected_version={current}.",
                argument="expected_version",
                received=describe_value(expected_version),
                current_version=current,
                what_to_do="re-read, re-apply the change, retry with the current version",
            ), True
    raise AssertionError(f"unhandled edit outcome {outcome!r}")
