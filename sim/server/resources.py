"""Each published article as an MCP resource, and who is subscribed to it.

A resource's URI is ``kb://{knowledge_base_id}/articles/{article_id}`` with each id
percent-encoded as one RFC 3986 path segment: every character but the unreserved ones
(``A-Z a-z 0-9 - . _ ~``) as ``%XX`` of its UTF-8 bytes, ``/`` included, with upper-case hex
(what RFC 6570's ``{var}`` expansion of the template gives). So ``guide/calendar`` is
``kb://kb-support/articles/guide%2Fcalendar`` and ``a b?#%`` is ``a%20b%3F%23%25``; an id of
unreserved characters alone (the simulation's ``art-00001``) is its URI as it stands.
resources/list, read, subscribe, unsubscribe and every notification use this one form; any
other spelling is refused, saying the form to send. resources/list names each by its article
id and gives its title and a short description (the start of its text). Reading it gives
the citation fields ``read_knowledge_article`` gives. A session subscribed to a URI hears of
every committed change of that article (save, retitle, unpublish) as one
``notifications/resources/updated`` — push, where the poll tool is pull. The registry knows
nothing of transports: a session's listeners decide how a notification travels.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from sim.server.describe import describe_value
from sim.server.results import Reply, error

SCHEME = "kb://"
ARTICLES = "/articles/"
URI_TEMPLATE = "kb://{knowledge_base_id}/articles/{article_id}"
URI_FORM = (
    "kb://{knowledge_base_id}/articles/{article_id}, each id percent-encoded (RFC 3986: all "
    "but A-Z a-z 0-9 - . _ ~ as %XX of its UTF-8 bytes, '/' as %2F)"
)
UPDATED = "notifications/resources/updated"
SUBSCRIBE = "resources/subscribe"
UNSUBSCRIBE = "resources/unsubscribe"
READ = "resources/read"
MIME_TYPE = "application/json"
MAX_SUGGESTED_CHARS = 300
DESCRIPTION_CHARS = 160
"""resources/list describes an article by at most this many characters of its text."""
_NOT_PROSE = ("#", "<", "---", "|", "import ", "export ", "![")
"""A refusal suggests the URI to send only up to this length (a refusal is bounded)."""

_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]+")
_SEGMENT = re.compile(r"(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+")


def _encoded(part: str) -> str:
    return part if _UNRESERVED.fullmatch(part) else quote(part, safe="")


def uri(kb_id: str, article_id: str) -> str:
    """The one URI of an article (the ids as they are stored, encoded here)."""
    return f"{SCHEME}{_encoded(kb_id)}{ARTICLES}{_encoded(article_id)}"


def parse(value: Any) -> tuple[str, str] | None:
    """(knowledge_base_id, article_id) of a resource URI in its one form, or None."""
    parsed = _parsed(value)
    return parsed if isinstance(parsed, tuple) else None


def _parsed(value: Any) -> tuple[str, str] | str:
    """(knowledge_base_id, article_id), or why `value` is not a resource URI."""
    if not isinstance(value, str) or not value.startswith(SCHEME):
        return "it does not start with kb://"
    kb_part, sep, id_part = value[len(SCHEME) :].partition(ARTICLES)
    if not sep or not kb_part or not id_part:
        return "it has no knowledge base id, /articles/ and article id"
    if not (_SEGMENT.fullmatch(kb_part) and _SEGMENT.fullmatch(id_part)):
        suggested = uri(kb_part, id_part)
        send = f"; send {suggested}" if len(suggested) <= MAX_SUGGESTED_CHARS else ""
        return (
            "an id holds a character RFC 3986 allows only percent-encoded there ('/', a "
            f"space, '?', '#', a '%' not followed by two hex digits, non-ASCII){send}"
        )
    try:
        kb_id, article_id = (unquote(p, errors="strict") for p in (kb_part, id_part))
    except UnicodeDecodeError:
        return "its percent-encoded bytes are not UTF-8"
    canonical = uri(kb_id, article_id)
    if canonical != value:
        send = f"; send {canonical}" if len(canonical) <= MAX_SUGGESTED_CHARS else ""
        return (
            "it is not in the one form this server uses (upper-case hex, only what must be "
            f"encoded){send}"
        )
    return kb_id, article_id


def description(content: str) -> str:
    """A listed article's description: the start of its prose (headings, HTML, fences and
    tables skipped), cut at a word under DESCRIPTION_CHARS, so a client choosing among the
    resources sees what each is about without reading it."""
    kept, fenced = [], False
    for line in (raw.strip() for raw in content.split("\n")):
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif line and not fenced and not line.startswith(_NOT_PROSE):
            kept.append(line)
    prose = " ".join(" ".join(kept).split())
    if len(prose) <= DESCRIPTION_CHARS:
        return prose
    cut = prose[: DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] or prose[: DESCRIPTION_CHARS - 1]
    return f"{cut.rstrip(' ,;:')}…"


def bad_uri(value: Any) -> Reply:
    why = _parsed(value)
    because = why if isinstance(why, str) else "it is not a resource URI"
    return error(
        "invalid_argument",
        f"uri: expected {URI_FORM}; received {describe_value(value)}: {because}.",
        "Send the uri of a published article as resources/list lists it; from a search hit, "
        "percent-encode its knowledge_base_id and article_id into the template.",
        argument="uri",
        allowed=URI_FORM,
        received=describe_value(value),
    )


Listener = Callable[[str], object]


class Subscriptions:
    """URI -> the sessions subscribed to it, each with the holders that asked (a direct
    subscription, or one open listen stream each), in subscription order."""

    def __init__(self) -> None:
        self._by_uri: dict[str, dict[Any, set[str]]] = {}

    def add(self, resource_uri: str, session: Any, holder: str) -> None:
        self._by_uri.setdefault(resource_uri, {}).setdefault(session, set()).add(holder)

    def remove(self, resource_uri: str, session: Any, holder: str) -> None:
        sessions = self._by_uri.get(resource_uri, {})
        holders = sessions.get(session, set())
        holders.discard(holder)
        if not holders:
            sessions.pop(session, None)
        if not sessions:
            self._by_uri.pop(resource_uri, None)

    def drop(self, session: Any) -> None:
        """Forget every subscription of a session that has ended (an HTTP session reaped or
        deleted), so nothing of it is kept or notified."""
        for resource_uri in list(self._by_uri):
            sessions = self._by_uri[resource_uri]
            sessions.pop(session, None)
            if not sessions:
                del self._by_uri[resource_uri]

    def sessions(self, resource_uri: str) -> list[Any]:
        return list(self._by_uri.get(resource_uri, {}))

    def held(self) -> int:
        """Subscriptions held: (URI, session) pairs."""
        return sum(len(s) for s in self._by_uri.values())
