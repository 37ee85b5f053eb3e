"""Each published article as an MCP resource, and who is subscribed to it.

A resource's URI is ``kb://{knowledge_base_id}/articles/{article_id}``; reading it gives
the citation fields ``read_knowledge_article`` gives. A session subscribed to a URI hears
of every committed change of that article (save, retitle, unpublish) as one
``notifications/resources/updated`` — push, where the poll tool is pull. The registry
knows nothing of transports: a session's listeners decide how a notification travels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.server.results import Reply, error
from sim.server.validation import describe_value

SCHEME = "kb://"
URI_TEMPLATE = "kb://{knowledge_base_id}/articles/{article_id}"
UPDATED = "notifications/resources/updated"
SUBSCRIBE = "resources/subscribe"
UNSUBSCRIBE = "resources/unsubscribe"
READ = "resources/read"
MIME_TYPE = "application/json"


def uri(kb_id: str, article_id: str) -> str:
    return f"{SCHEME}{kb_id}/articles/{article_id}"


def parse(value: Any) -> tuple[str, str] | None:
    """(knowledge_base_id, article_id) of a resource URI, or None if it is not one."""
    if not isinstance(value, str) or not value.startswith(SCHEME):
        return None
    kb_id, sep, article_id = value[len(SCHEME) :].partition("/articles/")
    if not sep or not kb_id or not article_id or "/" in kb_id or "/" in article_id:
        return None
    return kb_id, article_id


def bad_uri(value: Any) -> Reply:
    return error(
        "invalid_argument",
        f"uri: expected {URI_TEMPLATE}; received {describe_value(value)}.",
        "Send the uri of a published article: resources/list lists them, and a search hit's "
        "knowledge_base_id and article_id fill the template.",
        argument="uri",
        allowed=URI_TEMPLATE,
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
