"""The store's own guards: a KB's rowid range is finite, and a file of another schema is
refused before anything is read or written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sim.kb import core as store_core
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from tests.conftest import KB, ManualClock


def test_a_full_kb_refuses_the_whole_batch_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, clock: ManualClock
) -> None:
    monkeypatch.setattr(store_core, "KB_ROWID_BITS", 2)
    s = KBStore(clock)
    s.create_kb(KB)
    s.create_articles(KB, [(f"a{i}", "Title", "Body") for i in range(3)])
    before = s.snapshot()
    with pytest.raises(StoreError, match="'kb-test' is full"):
        s.create_articles(KB, [("a3", "Title", "Body"), ("a4", "Title", "Body")])
    assert s.snapshot() == before


def test_a_kb_file_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    KBStore(ManualClock(), path=str(path)).create_kb(KB)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 1")
    with pytest.raises(StoreError, match="schema version 1; this code reads version 5"):
        KBStore(ManualClock(), path=str(path))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT kb_id FROM kbs").fetchall() == [(KB,)]
