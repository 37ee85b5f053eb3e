"""Shared fixtures: a KB on a hand-driven clock, and a session granted to it."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from sim.kb.store import KBStore
from sim.server.tools import KBServer, Session

KB = "kb-test"
OTHER_KB = "kb-other"
START_US = 1_794_000_000_000_000


@dataclass
class ManualClock:
    us: int = START_US

    def __call__(self) -> int:
        return self.us

    def advance(self, seconds: float) -> None:
        self.us += round(seconds * 1_000_000)


ARTICLES = [
    (
        "a1",
        "How to reset the password in the web app",
        "Open Settings and choose password. Reset it from the login page.",
    ),
    (
        "a2",
        "Exporting the invoice PDF in the admin console",
        "Billing admins can export every invoice PDF as a file.",
    ),
    (
        "a3",
        "Guide to sharing the task board (iOS app)",
        "Share the task board with a guest from the iOS app.",
    ),
]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store(clock: ManualClock) -> KBStore:
    s = KBStore(clock)
    s.create_kb(KB)
    s.create_articles(KB, ARTICLES)
    s.create_kb(OTHER_KB)
    s.create_articles(OTHER_KB, [("secret", "Other team's password policy", "Do not leak.")])
    return s


@pytest.fixture
def server(store: KBStore, clock: ManualClock) -> KBServer:
    return KBServer(store, clock)


@pytest.fixture
def session(server: KBServer) -> Session:
    return server.connect("tester", [KB])


def read(session: Session, article_id: str, kb: str = KB) -> dict:
    r = session.call("read_knowledge_article", {"knowledge_base_id": kb, "article_id": article_id})
    return r.structured


def edit_args(article_id: str, version: str, key: str, content: str = "new body", **extra) -> dict:
    return {
        "knowledge_base_id": KB,
        "article_id": article_id,
        "content": content,
        "expected_version": version,
        "idempotency_key": key,
        **extra,
    }


REGRESSION_SAMPLE_SEED = int(
    os.environ.get("REGRESSION_SAMPLE_SEED") or random.SystemRandom().randrange(1_000_000)
)
"""Draws the seeds the regression test reruns: new on each run unless set."""


def pytest_report_header() -> str:
    return (
        f"regression sample seed: {REGRESSION_SAMPLE_SEED} "
        f"(rerun it: REGRESSION_SAMPLE_SEED={REGRESSION_SAMPLE_SEED} make test)"
    )
