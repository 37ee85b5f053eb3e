"""`python -m sim import`: a docs folder and its git history into a KB file, built here in a
temporary git repository (renames, drafts, a bulk commit, non-ASCII titles, a deletion)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sim.__main__ import main
from sim.bench.stdio import RawClient, tool_call
from sim.calibrate.logs import read_log
from sim.kb.store import KBStore
from sim.kb.versions import format_version
from sim.model.opening import KB_ID

DAY = 86_400
T0 = 1_704_103_200  # 2024-01-01T10:00:00Z


class Repo:
    """A git repository of articles whose commits land at chosen times."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        self.git("init", "-q", "-b", "main")
        self.commits = 0

    def git(self, *args: str, at: int | None = None) -> str:
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
        if at is not None:
            env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = f"@{at} +0000"
        done = subprocess.run(
            ["git", "-c", "user.name=Writer", "-c", "user.email=w@example.org", *args],
            cwd=self.root, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return done.stdout

    def write(self, path: str, text: str | bytes) -> None:
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text if isinstance(text, bytes) else text.encode())

    def commit(self, at: int, message: str = "edit") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, at=at)


def _docs(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "docs")
    repo.write("install.md", "---\ntitle: Install the app\n---\nRun the installer.\n")
    repo.write("guides/reset.md", "# Réinitialiser le mot de passe\n\nClick *forgot*.\n")
    repo.write("guides/export.mdx", "# 导出发票\n\nUse the export button.\n")
    repo.commit(T0)
    repo.git("mv", "install.md", "setup.md")  # a rename with a change: one save
    repo.write("setup.md", "---\ntitle: Install the app\n---\nRun the installer twice.\n")
    repo.commit(T0 + DAY)
    repo.write("draft.md", "---\ndraft: true\ntitle: Coming soon\n---\nSecret.\n")
    for i in range(12):  # a bulk commit touching many files
        repo.write(f"bulk/page-{i:02d}.md", f"# Page {i}\n\nBody {i}.\n")
    repo.commit(T0 + 2 * DAY)
    repo.git("rm", "-q", "guides/export.mdx")
    repo.git("mv", "guides/reset.md", "guides/password.md")  # a pure rename: no event
    repo.commit(T0 + 3 * DAY)
    return repo


def _import(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(["import", *argv])
    except SystemExit as e:
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def _store(db: Path) -> KBStore:
    return KBStore(lambda: 0, path=str(db))


def test_a_git_folder_becomes_a_kb_with_its_history_in_order(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    status, out, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0, err
    assert "15 articles in the folder" in out
    store = _store(db)
    ids = store.article_ids(KB_ID)
    assert {"install", "guides/reset", "guides/export", "draft"} <= set(ids)
    assert "setup" not in ids and "guides/password" not in ids  # renames keep the first id
    setup = store.article_state(KB_ID, "install")
    assert setup.title == "Install the app" and setup.content == "Run the installer twice."
    assert setup.updated_us == (T0 + DAY) * 1_000_000  # its last commit
    reset = store.article_state(KB_ID, "guides/reset")
    assert reset.title == "Réinitialiser le mot de passe" and reset.published
    assert reset.updated_us == T0 * 1_000_000  # a pure rename changed nothing
    assert store.article_state(KB_ID, "guides/export").title == "导出发票"
    assert not store.article_state(KB_ID, "guides/export").published  # deleted: unpublished
    assert not store.article_state(KB_ID, "draft").published
    events = [(e.type, e.article_id) for e in store.all_events(KB_ID)]
    assert events[:4] == [
        ("created", "install"),
        ("created", "guides/export"),
        ("created", "guides/reset"),
        ("saved", "install"),
    ] or events[:4] == [
        ("created", "guides/export"),
        ("created", "guides/reset"),
        ("created", "install"),
        ("saved", "install"),
    ]
    assert events[-1] == ("unpublished", "guides/export")
    assert len(events) == 3 + 1 + 13 + 1
    times = [e.updated_us for e in store.all_events(KB_ID)]
    assert times == sorted(times)
    # search ranks the imported text; a draft is never found
    total, hits = store.search(KB_ID, ["réinitialiser"], 5)
    assert total == 1 and hits[0].article_id == "guides/reset"
    assert store.search(KB_ID, ["secret"], 5) == (0, [])
    assert store.search(KB_ID, ["secret"], 5) == store.search_fts5(KB_ID, ["secret"], 5)
    # the edit log calibrate reads, written in the same pass
    log = read_log(tmp_path / "kb.edits.csv")
    assert len(log) == 3 + 1 + 13 + 2 and log.n_articles == 16
    # and measured as the report's map measures the shared logs, ages its span allows
    assert "Stale citations by age, from the log's own rows" in out
    assert "1 min: " in out and "30 d: " not in out  # a repository younger than a month
    assert "  Against the atlas: " in out  # placed among its sites, or why not


def test_import_again_appends_only_new_events_and_cursors_stay_valid(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    store = _store(db)
    before = store.all_events(KB_ID)
    cursor = store.head_sequence(KB_ID)
    snapshot = store.snapshot()
    status, out, _ = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0 and "0 new events" in out
    assert _store(db).snapshot() == snapshot  # nothing changed, nothing written
    repo.write("guides/password.md", "# Réinitialiser le mot de passe\n\nNew steps.\n")
    repo.write("draft.md", "---\ntitle: Coming soon\n---\nPublished now.\n")
    repo.write("guides/export.mdx", "# 导出发票\n\nBack again.\n")  # added where it was deleted
    repo.commit(T0 + 4 * DAY)
    status, out, _ = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0 and "3 new events" in out
    store = _store(db)
    assert store.all_events(KB_ID)[: len(before)] == before
    page = store.events_after(KB_ID, cursor, 100)
    assert {(e.type, e.article_id) for e in page.events} == {
        ("saved", "guides/reset"),
        ("published", "draft"),
        ("published", "guides/export"),  # the deleted article's id, published again
    }
    assert store.published_article(KB_ID, "guides/export").content == "# 导出发票\n\nBack again."
    assert store.published_article(KB_ID, "draft").content == "Published now."


def test_an_import_over_an_edited_kb_is_refused_and_writes_nothing(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    store = _store(db)
    store.save(KB_ID, "install", "Changed in the editor.")
    snapshot = store.snapshot()
    repo.write("setup.md", "# Install\n\nThird text.\n")
    repo.commit(T0 + 5 * DAY)
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 1
    assert "Import refused" in err and "edited since its import" in err
    assert _store(db).snapshot() == snapshot


def test_bad_files_in_git_get_one_line_each_and_the_rest_imports(tmp_path, capsys) -> None:
    repo = Repo(tmp_path / "docs")
    repo.write("good.md", "# Good\n\nFine.\n")
    repo.write("binary.md", b"PK\x03\x04\0\0binary")
    repo.write("latin1.md", "# Caf\xe9\n".encode("latin-1"))
    repo.write("huge.md", b"# Huge\n" + b"x" * (1 << 20))
    repo.write("a.md", "# A\n")
    repo.write("a.mdx", "# A again\n")  # the same id as a.md
    (repo.root / "out.md").symlink_to("/etc/hostname")
    (repo.root / "in.md").symlink_to("good.md")
    (repo.root / os.fsdecode(b"caf\xe9.md")).write_text("# Latin-1 name\n")
    repo.commit(T0)
    repo.write("loose.md", "# Not committed\n")
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0, err
    lines = err.splitlines()

    def said(path: str, what: str) -> None:
        assert sum(line.startswith(f"import: {path}: ") for line in lines) == 1, (path, err)
        assert any(line.startswith(f"import: {path}: ") and what in line for line in lines)

    said("binary.md", "binary")
    said("latin1.md", "not UTF-8")
    said("huge.md", "over the 1,048,576-byte limit")
    said("a.mdx", "imported as 'a~2'")
    said("out.md", "symlink out of the folder: skipped")
    said("in.md", "symlink inside the folder: skipped")
    said("loose.md", "not committed")
    said("caf\\xe9.md", "its name is not UTF-8")
    assert sorted(_store(db).article_ids(KB_ID)) == ["a", "a~2", "good"]


def test_bad_files_on_disk_without_git(tmp_path, capsys, monkeypatch) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "ok.md").write_text("---\ntitle: Ünïcode title\n---\nText.\n", encoding="utf-8")
    (root / "sub" / "bin.md").write_bytes(b"\0\1\2")
    (root / "noread.md").write_text("# Locked\n")
    (tmp_path / "secret.md").write_text("# Outside the folder\n")
    (root / "escape.md").symlink_to(tmp_path / "secret.md")
    (root / "outdir").symlink_to(tmp_path)
    real_open = os.open

    def opened(path: Any, flags: int, *args: Any) -> int:  # root reads any file: refuse here
        if os.path.basename(path) == "noread.md":
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", opened)
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(root), "--db", str(db))
    assert status == 0, err
    assert "import: noread.md: cannot be read (Permission denied): skipped" in err
    assert "import: sub/bin.md: binary" in err
    assert "import: escape.md: a symlink out of the folder: skipped" in err
    assert "import: outdir: a symlink to a folder out of the folder: not followed" in err
    assert "not in a git work tree" in err
    store = _store(db)
    assert store.article_ids(KB_ID) == ["ok"]
    assert store.article_state(KB_ID, "ok").title == "Ünïcode title"
    (root / "ok.md").write_text("# Other\n\nNew.\n", encoding="utf-8")
    os.utime(root / "ok.md", (1, 1))  # an older time than the version: still a later version
    head = store.head_sequence(KB_ID)
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    page = _store(db).events_after(KB_ID, head, 10)
    assert [(e.type, e.article_id) for e in page.events] == [("saved", "ok")]


def test_a_folder_with_no_articles_is_refused_and_no_file_is_left(tmp_path, capsys) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "notes.txt").write_text("not markdown")
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(root), "--db", str(db))
    assert status == 1 and "no Markdown article" in err and "Import refused" in err
    assert not db.exists()
    status, _, err = _import(capsys, str(tmp_path / "missing"), "--db", str(db))
    assert status == 2 and "DOCS_DIR" in err and "does not exist" in err


def test_a_foreign_sqlite_file_is_refused_by_import_and_serve(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE articles (x)")
    before = db.read_bytes()
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 1 and "another program (tables articles)" in err
    assert db.read_bytes() == before
    ctrl_c = signal.getsignal(signal.SIGINT)
    with pytest.raises(SystemExit) as done:
        main(["serve", "--db", str(db)])
    assert done.value.code == 2
    assert "not a KB file" in capsys.readouterr().err
    # the refusal leaves this process's Ctrl-C as it was (it had kept serve's handler, which
    # ignores every Ctrl-C after the first: tests/test_pools.py's later ones were lost)
    assert signal.getsignal(signal.SIGINT) == ctrl_c
    assert db.read_bytes() == before


def _answer(client: RawClient, i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    client.send(tool_call(i, name, args))
    answer = client.receive()
    assert answer is not None and answer["id"] == i, answer
    return answer["result"]["structuredContent"]


def test_serve_db_serves_the_imported_articles_over_stdio(tmp_path, capsys, serve_command) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    client = RawClient("--db", str(db), serve=serve_command)
    try:
        client.handshake()
        found = _answer(
            client, 1, "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "installer"}
        )
        assert [h["article_id"] for h in found["hits"]] == ["install"]
        read = _answer(
            client,
            2,
            "read_knowledge_article",
            {"knowledge_base_id": KB_ID, "article_id": "install"},
        )
        assert read["title"] == "Install the app"
        draft = {"knowledge_base_id": KB_ID, "article_id": "draft"}
        client.send(tool_call(9, "read_knowledge_article", draft))
        hidden = client.receive()
        assert hidden is not None and hidden["result"]["isError"] is True  # a draft stays unseen
        assert read["updated_at"] == format_version((T0 + DAY) * 1_000_000)
        events = _answer(
            client,
            3,
            "poll_resource_events",
            {"resource_type": "knowledge_base", "resource_id": KB_ID, "after_sequence": 0},
        )
        assert len(events["events"]) == 18
    finally:
        stderr = client.close()
    assert "Traceback" not in stderr, stderr
