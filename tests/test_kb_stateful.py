"""Random interleavings of human saves, unpublishes, agent edits with old and new versions and
replays, checked against a plain-Python reference model."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from sim.kb.store import KBStore
from sim.kb.versions import parse_version
from sim.server.tools import KBServer
from tests.conftest import ManualClock, examples

KB = "kb"
IDS = ["a", "b", "c"]


@dataclass
class RefArticle:
    title: str
    content: str
    published: bool = True
    version: int = 0
    history: list[int] = field(default_factory=list)


class KBMachine(RuleBasedStateMachine):
    @initialize()
    def setup(self) -> None:
        self.clock = ManualClock()
        self.store = KBStore(self.clock)
        self.store.create_kb(KB)
        self.store.create_articles(KB, [(a, f"title {a}", f"body {a}") for a in IDS])
        self.session = KBServer(self.store, self.clock).connect("agent", [KB])
        self.ref = {a: RefArticle(f"title {a}", f"body {a}", version=self.clock()) for a in IDS}
        self.events: list[tuple[str, str, int]] = [("created", a, self.clock()) for a in IDS]
        self.seen_versions: dict[str, list[str]] = {a: [] for a in IDS}
        self.done: list[tuple[dict, dict]] = []  # successful edit args and results
        self.keys = 0

    def _bump(self, a: str) -> int:
        now = self.clock()
        v = now if now > self.ref[a].version else self.ref[a].version + 1
        self.ref[a].history.append(self.ref[a].version)
        self.ref[a].version = v
        return v

    @rule(us=st.sampled_from([0, 0, 1, 1000, 1_000_000]))
    def tick(self, us: int) -> None:
        self.clock.us += us

    @rule(a=st.sampled_from(IDS), retitle=st.booleans())
    def human_save(self, a: str, retitle: bool) -> None:
        content = f"human {self.keys}"
        self.keys += 1
        title = f"renamed {self.keys}" if retitle else None
        self.store.save(KB, a, content, title=title)
        r = self.ref[a]
        r.content, r.title = content, title or r.title
        self.events.append(("saved", a, self._bump(a)))

    @rule(a=st.sampled_from(IDS), published=st.booleans())
    def set_published(self, a: str, published: bool) -> None:
        self.store.set_published(KB, a, published)
        self.ref[a].published = published
        self.events.append(("published" if published else "unpublished", a, self._bump(a)))

    @rule(a=st.sampled_from(IDS))
    def agent_read(self, a: str) -> None:
        r = self.session.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": a})
        if not self.ref[a].published:
            assert r.structured["error"]["code"] == "article_not_found"
            return
        assert r.structured["content"] == self.ref[a].content
        assert parse_version(r.structured["updated_at"]) == self.ref[a].version
        self.seen_versions[a].append(r.structured["updated_at"])

    @rule(a=st.sampled_from(IDS), pick=st.integers(0, 50), title=st.booleans())
    def agent_edit(self, a: str, pick: int, title: bool) -> None:
        if not self.seen_versions[a]:
            return
        version = self.seen_versions[a][pick % len(self.seen_versions[a])]
        self.keys += 1
        args = {
            "knowledge_base_id": KB,
            "article_id": a,
            "content": f"agent {self.keys}",
            "expected_version": version,
            "idempotency_key": f"k{self.keys}",
        }
        if title:
            args["title"] = f"agent title {self.keys}"
        r = self.session.call("edit_knowledge_article", args)
        ref = self.ref[a]
        if not ref.published:
            assert r.structured["error"]["code"] == "article_not_found"
        elif parse_version(version) != ref.version:
            # No lost update: an edit built on an older read never lands.
            assert r.structured["error"]["code"] == "version_conflict"
            assert parse_version(r.structured["error"]["current_version"]) == ref.version
        else:
            assert not r.is_error, r.text
            ref.content, ref.title = args["content"], args.get("title", ref.title)
            self.events.append(("saved", a, self._bump(a)))
            assert parse_version(r.structured["updated_at"]) == ref.version
            self.done.append((args, r.structured))

    @rule(pick=st.integers(0, 50))
    def replay(self, pick: int) -> None:
        if not self.done:
            return
        args, first = self.done[pick % len(self.done)]
        r = self.session.call("edit_knowledge_article", args)
        assert r.structured["replayed"] is True
        assert r.structured["updated_at"] == first["updated_at"]
        assert r.structured["event_sequence"] == first["event_sequence"]

    @rule(pick=st.integers(0, 50))
    def reuse_key_differently(self, pick: int) -> None:
        if not self.done:
            return
        args, _ = self.done[pick % len(self.done)]
        r = self.session.call("edit_knowledge_article", {**args, "content": "something else"})
        assert r.structured["error"]["code"] == "idempotency_key_reused"

    @rule(limit=st.integers(1, 100), start=st.integers(0, 5))
    def poll_all_pages(self, limit: int, start: int) -> None:
        after = min(start, len(self.events))
        got = []
        while True:
            r = self.session.call(
                "poll_resource_events",
                {
                    "resource_type": "knowledge_base",
                    "resource_id": KB,
                    "after_sequence": after,
                    "limit": limit,
                },
            ).structured
            got += r["events"]
            assert len(r["events"]) <= limit
            after = r["next_after_sequence"]
            if not r["has_more"]:
                break
        expected = [(t, a, v) for t, a, v in self.events][min(start, len(self.events)) :]
        assert [(e["type"], e["article_id"], parse_version(e["updated_at"])) for e in got] == (
            expected
        )
        assert [e["sequence"] for e in got] == list(range(start + 1, len(self.events) + 1))

    @invariant()
    def store_matches_the_reference(self) -> None:
        for a, ref in self.ref.items():
            s = self.store.article_state(KB, a)
            assert (s.title, s.content, s.published, s.updated_us) == (
                ref.title,
                ref.content,
                ref.published,
                ref.version,
            )
            versions = [*ref.history, ref.version]
            assert all(x < y for x, y in itertools.pairwise(versions))
        log = self.store.all_events(KB)
        assert [e.sequence for e in log] == list(range(1, len(self.events) + 1))
        assert self.store.head_sequence(KB) == len(self.events)


TestKBStateful = KBMachine.TestCase
TestKBStateful.settings = settings(
    max_examples=examples(150),
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
