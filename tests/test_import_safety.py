"""What an operator's mistakes cannot cost: an output that is an input or another output is
refused before anything is written; a refused import leaves whatever --db named as it was
(an empty file, a symlink, a device, a socket); a FIFO named like an article is skipped,
never opened; and `export` takes an agent's edits back out as files."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from sim.calibrate.logs import COLUMNS
from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from tests.test_import import T0, _docs, _import

ROOT = Path(__file__).resolve().parents[1]


def _folder(tmp_path: Path, articles: bool = True) -> Path:
    root = tmp_path / "docs"
    root.mkdir(parents=True)
    if articles:
        (root / "a.md").write_text("---\ntitle: Alpha\n---\nThe alpha article.\n")
    (root / "notes.txt").write_text("not an article\n")
    return root


def test_edit_log_equal_to_db_is_refused_before_anything_is_written(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(repo.root), "--db", str(db), "--edit-log", str(db))
    assert status == 2 and "--edit-log" in err and "same file as --db" in err
    assert not db.exists()  # nothing written
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    before = db.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(db)
    hard = tmp_path / "hard.csv"
    os.link(db, hard)
    for log in (str(db), str(tmp_path / "." / "kb.sqlite"), str(link), str(hard)):
        status, _, err = _import(capsys, str(repo.root), "--db", str(db), "--edit-log", log)
        assert status == 2 and "same file as --db" in err, log
        assert db.read_bytes() == before, log
    assert KBStore(lambda: 0, path=str(db)).article_ids(KB_ID)


def test_an_output_that_is_an_article_is_refused(tmp_path, capsys) -> None:
    root = _folder(tmp_path)
    article = root / "a.md"
    before = article.read_bytes()
    for flags in (
        ["--db", str(article)],
        ["--db", str(tmp_path / "kb"), "--edit-log", str(article)],
    ):
        status, _, err = _import(capsys, str(root), *flags)
        assert status == 2 and "one of the articles DOCS_DIR holds" in err, flags
        assert article.read_bytes() == before
    assert not (tmp_path / "kb").exists()


def test_an_edit_log_that_is_someone_elses_file_is_not_replaced(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    notes = tmp_path / "notes.csv"
    notes.write_text("name,phone\nAda,123\n")
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(repo.root), "--db", str(db), "--edit-log", str(notes))
    assert status == 2 and "--edit-log" in err and "is not an edit log" in err
    assert notes.read_text() == "name,phone\nAda,123\n" and not db.exists()
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0  # its own log: replaced
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0


def test_a_log_in_the_edit_logs_format_is_replaced_only_if_an_import_wrote_it(
    tmp_path, capsys
) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    mine = ",".join(COLUMNS) + "\n"  # the edit log's own format
    mine += "2024-01-01T00:00:00Z,0,me,a,add,1,0\n"
    log = tmp_path / "kb.edits.csv"  # where the first import's log goes: the user's own
    log.write_text(mine)
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 2 and f"--edit-log {log}: exists and is not an edit log an import" in err
    assert "name a new file with --edit-log" in err and len(err.strip().splitlines()) == 1
    assert log.read_text() == mine and not db.exists()
    log.unlink()
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    written = log.read_bytes()
    assert written != mine.encode()
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0  # its own: replaced
    assert log.read_bytes() == written
    other = tmp_path / "other.csv"
    other.write_text(mine)  # another file of the user's, named as the log of this KB
    status, _, err = _import(capsys, str(repo.root), "--db", str(db), "--edit-log", str(other))
    assert status == 2 and "is not an edit log an import" in err and other.read_text() == mine
    second = tmp_path / "second.sqlite"  # another KB's log is not this one's either
    status, _, err = _import(capsys, str(repo.root), "--db", str(second), "--edit-log", str(log))
    assert status == 2 and "is not an edit log an import" in err and not second.exists()
    moved = tmp_path / "moved"  # a KB moved with its log: still its own
    moved.mkdir()
    db.rename(moved / "kb.sqlite")
    log.rename(moved / "kb.edits.csv")
    assert _import(capsys, str(repo.root), "--db", str(moved / "kb.sqlite"))[0] == 0


def _socket(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


def test_a_refused_import_leaves_what_db_named_untouched(tmp_path, capsys) -> None:
    """No article in the folder: refused. Before, the refusal removed a --db that existed
    empty: an empty file, a symlink (the link itself), a socket."""
    root = _folder(tmp_path, articles=False)
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    target = tmp_path / "target.sqlite"
    target.touch()
    link = tmp_path / "link.sqlite"
    link.symlink_to(target)
    for db in (empty, link):
        status, _, err = _import(capsys, str(root), "--db", str(db))
        assert status == 1 and "Import refused" in err
        assert db.exists() and db.stat().st_size == 0
    assert link.is_symlink() and target.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "docs",
        "empty.sqlite",
        "link.sqlite",
        "target.sqlite",
    ]  # fmt: skip  (no temporary file left either)
    sock = tmp_path / "kb.sock"
    with _socket(sock):
        status, _, err = _import(capsys, str(_folder(tmp_path / "x")), "--db", str(sock))
        assert status == 2 and "a socket, not a regular file" in err
        assert stat.S_ISSOCK(sock.lstat().st_mode)


def test_a_device_as_db_is_refused_and_kept(tmp_path, capsys) -> None:
    """--db a character device (as /dev/null): refused, not removed. A device node of our
    own where we may make one (root); /dev/null itself, refused before any write, else."""
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        device = Path(os.devnull)
    root = _folder(tmp_path, articles=False)
    status, _, err = _import(capsys, str(root), "--db", str(device))
    assert status == 2 and f"--db {device}: a device, not a regular file" in err
    assert stat.S_ISCHR(device.stat().st_mode)


def test_an_empty_db_file_gets_the_kb_whole(tmp_path, capsys) -> None:
    root = _folder(tmp_path)
    db = tmp_path / "kb.sqlite"
    db.touch(mode=0o640)
    os.chmod(db, 0o640)
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    assert KBStore(lambda: 0, path=str(db)).article_ids(KB_ID) == ["a"]
    assert stat.S_IMODE(db.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "kb.sqlite"]


def test_a_fifo_named_like_an_article_is_skipped_not_opened(tmp_path) -> None:
    root = _folder(tmp_path)
    os.mkfifo(root / "pipe.md")
    done = subprocess.run(
        [sys.executable, "-m", "sim", "import", str(root), "--db", str(tmp_path / "kb.sqlite")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "import: pipe.md: a FIFO, not a regular file: skipped (never read)" in done.stderr
    assert KBStore(lambda: 0, path=str(tmp_path / "kb.sqlite")).article_ids(KB_ID) == ["a"]


def _export(capsys, *argv: str) -> tuple[int, str, str]:
    from sim.__main__ import main

    try:
        status = main(["export", *argv])
    except SystemExit as e:
        status = int(e.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_export_writes_the_edited_articles_back_with_their_front_matter(tmp_path, capsys) -> None:
    repo = _docs(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(repo.root), "--db", str(db))[0] == 0
    out = tmp_path / "edited"
    status, said, _ = _export(capsys, str(out), "--db", str(db))
    assert status == 0 and "nothing written" in said and not out.exists()
    store = KBStore(lambda: 0, path=str(db))
    store.save(
        KB_ID, "install", "Run the installer once.", actor="agent"
    )  # id install, file setup.md
    store.save(KB_ID, "guides/reset", "# Reset\n\nClick *forgot*.", title="Reset", actor="agent")
    store.close()
    status, said, err = _export(capsys, str(out), "--db", str(db))
    assert status == 0, err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md")) == [
        "guides/password.md",  # where the article's file is now
        "setup.md",
    ]
    assert (out / "setup.md").read_text() == (
        "---\ntitle: Install the app\n---\nRun the installer once.\n"
    )
    assert (out / "guides/password.md").read_text() == "# Reset\n\nClick *forgot*.\n"
    assert "Exported 2 articles" in said
    # the repository takes the export back: committed, it imports into a new KB file
    for p in out.rglob("*.md"):
        (repo.root / p.relative_to(out)).write_bytes(p.read_bytes())
    repo.commit(T0 + 9 * 86_400)
    assert _import(capsys, str(repo.root), "--db", str(tmp_path / "new.sqlite"))[0] == 0
    new = KBStore(lambda: 0, path=str(tmp_path / "new.sqlite"))
    assert new.article_state(KB_ID, "install").content == "Run the installer once."
    # refused: an existing folder that is not empty, a file, a --db that is no KB
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.md").write_text("mine\n")
    for target, flags, why in [
        (tmp_path / "full", ["--db", str(db)], "not an empty folder"),
        (repo.root / "setup.md", ["--db", str(db)], "a file, not a folder"),
        (tmp_path / "o2", ["--db", str(tmp_path / "missing.sqlite")], "is not a file"),
        (tmp_path / "o3", ["--db", str(repo.root / "setup.md")], "not a KB file"),
    ]:
        status, _, err = _export(capsys, str(target), *flags)
        assert status in (1, 2) and why in err and "Traceback" not in err, (target, err)
    assert (tmp_path / "full" / "keep.md").read_text() == "mine\n"
    assert not (tmp_path / "o2").exists() and not (tmp_path / "o3").exists()


def test_export_notes_a_title_the_file_does_not_say(tmp_path, capsys) -> None:
    root = _folder(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    KBStore(lambda: 0, path=str(db)).save(KB_ID, "a", "New text.", title="Beta", actor="agent")
    status, _, err = _export(capsys, str(tmp_path / "out"), "--db", str(db))
    assert status == 0
    assert "export: a.md: its title is now 'Beta', which the file does not say" in err
    assert (tmp_path / "out" / "a.md").read_text() == "---\ntitle: Alpha\n---\nNew text.\n"


@pytest.mark.parametrize("glob", ["", "/"])
def test_an_empty_exclude_is_refused(tmp_path, capsys, glob: str) -> None:
    status, _, err = _import(capsys, str(_folder(tmp_path)), "--db", str(tmp_path / "kb"),
                             "--exclude", glob)  # fmt: skip
    assert status == 2 and "--exclude" in err and not (tmp_path / "kb").exists()


@pytest.mark.parametrize("url", ["docs.example.com", "ftp://x.org", "https://x.org/?a=1"])
def test_a_bad_base_url_is_refused(tmp_path, capsys, url: str) -> None:
    status, _, err = _import(capsys, str(_folder(tmp_path)), "--db", str(tmp_path / "kb"),
                             "--base-url", url)  # fmt: skip
    assert status == 2 and "--base-url" in err and repr(url) in err
    assert not (tmp_path / "kb").exists()


def test_without_git_an_import_does_not_undo_an_edit_made_in_the_kb(tmp_path, capsys) -> None:
    """Before, the file's older text was saved over the agent's edit without a word."""
    root = _folder(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    store = KBStore(lambda: 0, path=str(db))
    store.save(KB_ID, "a", "The alpha article, corrected.", actor="agent")
    snapshot = store.snapshot()
    store.close()
    status, _, err = _import(capsys, str(root), "--db", str(db))
    assert status == 1 and "a.md were edited in the KB since its import" in err
    assert "python -m sim export" in err
    assert KBStore(lambda: 0, path=str(db)).snapshot() == snapshot
    out = tmp_path / "out"
    assert _export(capsys, str(out), "--db", str(db))[0] == 0
    (root / "a.md").write_bytes((out / "a.md").read_bytes())  # the team takes the edit in
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    assert _export(capsys, str(tmp_path / "again"), "--db", str(db))[1].startswith("No article")
