"""Push: the agent subscribes to what it cites and re-reads an article when notified.

MCP resource subscriptions (`resources/subscribe`, `notifications/resources/updated`)
turn the checker's question around: the server says when a cited article changed, so
nothing is asked on a schedule. The watcher holds one subscription per cited article
while any citation of it is not yet known to be out of date; a notification costs one
re-read, which says which of the article's citations it made stale (a citation read
after the change is still current). Like the checker, it takes no simulated time. A
citation the agent lets go (``Params.citation_hold_s``) is no longer watched: once none of
an article's watched citations is left, it unsubscribes.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import simpy

from sim.model.agent import HeldCitation, Proc
from sim.model.methods import read_versions
from sim.server import resources
from sim.server.tools import ToolCaller, ToolResult


class PushSession(ToolCaller, Protocol):
    """A client that also subscribes: a session in-process, or one across MCP."""

    def subscribe(self, uri: Any) -> ToolResult: ...
    def unsubscribe(self, uri: Any) -> ToolResult: ...
    def on_notification(self, listener: resources.Listener) -> None: ...


class PushWatcher:
    def __init__(
        self,
        env: simpy.Environment,
        session: PushSession,
        kb_id: str,
        citations: list[HeldCitation],
        hold_s: float = math.inf,
        day_s: float = math.inf,
    ) -> None:
        self.env = env
        self.hold_s = hold_s
        self.day_s = day_s
        self.session = session
        self.kb_id = kb_id
        self.citations = citations
        self.inbox: simpy.Store = simpy.Store(env)
        session.on_notification(self.inbox.put)
        self.seen = 0
        self.unsure: dict[str, list[int]] = {}
        """Subscribed article -> indices of its citations not yet known to be out of date."""
        self.detected: dict[int, float] = {}

    def cite(self) -> None:
        """Subscribe to the articles of citations made since the last call."""
        for i in range(self.seen, len(self.citations)):
            article_id = self.citations[i].article_id
            if article_id not in self.unsure:
                r = self.session.subscribe(resources.uri(self.kb_id, article_id))
                if r.is_error:  # unpublished since the read: out of date already
                    self.detected[i] = self.env.now
                    continue
                self.unsure[article_id] = []
            self.unsure[article_id].append(i)
            if self.citations[i].read_s + self.hold_s < self.day_s:
                self.env.process(self.let_go(i))
        self.seen = len(self.citations)

    def let_go(self, i: int) -> Proc:
        """Stop watching citation i when the agent lets it go; unsubscribe from its article
        once no watched citation of it is left."""
        c = self.citations[i]
        yield self.env.timeout(max(0.0, c.read_s + self.hold_s - self.env.now))
        left = self.unsure.get(c.article_id)
        if left is None or i not in left:
            return  # known out of date already
        left.remove(i)
        if not left:
            del self.unsure[c.article_id]
            self.session.unsubscribe(resources.uri(self.kb_id, c.article_id))

    def run(self) -> Proc:
        while True:
            uri = yield self.inbox.get()
            parsed = resources.parse(uri)
            if parsed is None or parsed[1] not in self.unsure:
                continue  # already known out of date and unsubscribed
            article_id = parsed[1]
            current = read_versions(self.session, self.kb_id, [article_id])[article_id]
            still = []
            for i in self.unsure[article_id]:
                if self.citations[i].version == current:
                    still.append(i)
                else:
                    self.detected[i] = self.env.now
            if still:
                self.unsure[article_id] = still
            else:
                del self.unsure[article_id]
                self.session.unsubscribe(uri)
