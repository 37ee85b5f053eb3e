"""The loop that takes an agent's edits back: edits through serve's CAS tool, `export`, the
files committed as written, and `import` into the same KB file, which appends only what the
repository has that the KB lacks (no event twice; cursors and versions stay valid)."""

from __future__ import annotations

from pathlib import Path

from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from sim.server.edit import EDIT_TOOL
from sim.server.tools import KBServer
from tests.test_import import DAY, T0, Repo, _docs, _import
from tests.test_import_safety import _export


def _agent_edits(db: Path, edits: dict[str, str]) -> None:
    """Each article's text replaced by an agent through the edit tool (a CAS save)."""
    store = KBStore(lambda: (T0 + 6 * DAY) * 1_000_000, path=str(db))
    session = KBServer(store, lambda: (T0 + 6 * DAY) * 1_000_000).connect("agent", [KB_ID])
    for i, (aid, text) in enumerate(edits.items()):
        read = {"knowledge_base_id": KB_ID, "article_id": aid}
        version = session.call("read_knowledge_article", read).structured["updated_at"]
        args = {**read, "content": text, "expected_version": version, "idempotency_key": f"k{i}"}
        done = session.call(EDIT_TOOL, args)
        assert not done.is_error, done.structured
    store.close()


def _copy_back(out: Path, repo: Repo, at: int) -> None:
    for p in out.rglob("*.md"):
        (repo.root / p.relative_to(out)).write_bytes(p.read_bytes())
    repo.commit(at, "the agent's edits")


def test_edits_exported_and_committed_import_back_into_the_same_kb(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    _agent_edits(
        db, {"install": "Run the installer once.", "bulk/page-03": "# Page 3\n\nPage 3, fixed."}
    )
    store = KBStore(lambda: 0, path=str(db))
    before, cursor = store.all_events(KB_ID), store.head_sequence(KB_ID)
    edited = store.article_state(KB_ID, "install")
    store.close()
    # the team commits something else meanwhile: refused until the edits are taken back
    repo.write("guides/password.md", "# Réinitialiser le mot de passe\n\nNew steps.\n")
    repo.commit(T0 + 7 * DAY)
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 1 and "are edits made through serve" in err, err
    assert f"python -m sim export OUT_DIR --db {db}" in err and "import into a new file" not in err
    out = tmp_path / "edited"
    assert _export(capsys, str(out), "--db", str(db))[0] == 0
    _copy_back(out, repo, T0 + 8 * DAY)
    repo.write("bulk/page-05.md", "# Page 5\n\nLater.\n")  # and the team goes on
    repo.commit(T0 + 9 * DAY)
    status, said, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0, err
    assert "2 new events" in said  # the team's two saves; the agent's are not repeated
    store = KBStore(lambda: 0, path=str(db))
    after = store.all_events(KB_ID)
    assert after[: len(before)] == before  # nothing rewritten: cursors stay valid
    page = store.events_after(KB_ID, cursor, 100)
    assert [(e.type, e.article_id) for e in page.events] == [
        ("saved", "guides/reset"),
        ("saved", "bulk/page-05"),
    ]
    assert store.article_state(KB_ID, "install") == edited  # the agent's version, kept
    store.close()
    assert _export(capsys, str(tmp_path / "again"), "--db", str(db))[1].startswith("No article")
    status, said, _ = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0 and "0 new events" in said  # and again: nothing new
    repo.write("setup.md", "---\ntitle: Install the app\n---\nRun it twice again.\n")
    repo.commit(T0 + 10 * DAY)
    status, said, _ = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0 and "1 new events" in said
    store = KBStore(lambda: 0, path=str(db))
    now = store.article_state(KB_ID, "install")
    assert now.content == "Run it twice again." and now.updated_us == (T0 + 10 * DAY) * 10**6


def test_edits_committed_otherwise_are_refused_naming_them(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    _agent_edits(db, {"install": "Run the installer once."})
    snapshot = KBStore(lambda: 0, path=str(db)).snapshot()
    repo.write("setup.md", "---\ntitle: Install the app\n---\nSomething else.\n")
    repo.commit(T0 + 7 * DAY)
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 1 and "'install': its title or text in the repository is not the KB's" in err
    assert "Import refused" in err and KBStore(lambda: 0, path=str(db)).snapshot() == snapshot
