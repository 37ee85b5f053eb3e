"""`export` on a KB file holding any bytes: a path or title a KB file may hold (it is a file
anyone can write) is printed escaped, a path no file can have (a NUL) is refused in one line
naming the article with nothing written, and no stored byte ends in a traceback."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from tests.conftest import examples
from tests.test_export_roundtrip import _run


def _kb(folder: Path) -> Path:
    """A KB imported from a folder of two articles, one edited by an agent since."""
    docs = folder / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("---\ntitle: Alpha\n---\nThe alpha article.\n")
    (docs / "b.md").write_text("# Beta\n\nThe beta article.\n")
    db = folder / "kb.sqlite"
    status, _, err = _run("import", str(docs), "--db", str(db))
    assert status == 0, err
    store = KBStore(lambda: 0, path=str(db))
    store.save(KB_ID, "a", "Edited by the agent.", actor="agent")
    store.close()
    return db


def _stored(
    db: Path, path: str | bytes, title: str | bytes | None = None, front: str | bytes = ""
) -> None:
    """Article a's page path (and title, front matter) set as a KB file may hold them: bytes
    as they are, valid UTF-8 or not."""
    kb = sqlite3.connect(db)
    kb.execute("UPDATE imported_pages SET path = CAST(? AS TEXT) WHERE article_id = 'a'", (path,))
    if title is not None:
        kb.execute("UPDATE articles SET title = CAST(? AS TEXT) WHERE article_id = 'a'", (title,))
    if front:
        kb.execute(
            "UPDATE imported_pages SET front_matter = CAST(? AS TEXT) WHERE article_id = 'a'",
            (front,),
        )
    kb.commit()
    kb.close()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _kb(tmp_path_factory.mktemp("kb"))


def test_a_nul_in_a_stored_path_is_one_line_naming_the_article(imported: Path, tmp_path) -> None:
    db = tmp_path / "kb.sqlite"
    shutil.copy(imported, db)
    _stored(db, "guides/a\0b.md")
    status, out, err = _run("export", str(tmp_path / "out"), "--db", str(db))
    assert status == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "article 'a': its stored path 'guides/a\\x00b.md' holds a NUL byte" in err
    assert "Nothing was written" in err and not (tmp_path / "out").exists()


def test_a_stored_paths_escape_bytes_are_printed_escaped(imported: Path, tmp_path) -> None:
    db = tmp_path / "kb.sqlite"
    shutil.copy(imported, db)
    _stored(db, "guides/\x1b]0;pwned\x07a.md")
    status, out, err = _run("export", str(tmp_path / "out"), "--db", str(db))
    assert status == 0 and "  guides/\\x1b]0;pwned\\x07a.md" in out, (out, err)
    assert "\x1b" not in out + err and (tmp_path / "out/guides/\x1b]0;pwned\x07a.md").is_file()


STORED = (
    st.text(max_size=30)
    | st.binary(max_size=30)
    | st.sampled_from(["", ".", "/", "..", "a/../../b.md", "/etc/x.md", "a/", "x" * 300])
)


@settings(
    max_examples=examples(90),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    path=STORED,
    title=st.none() | st.text(max_size=20) | st.binary(max_size=20),
    front=st.text(max_size=20) | st.binary(max_size=20),
)
def test_any_stored_path_or_title_exports_or_refuses_in_lines(
    imported: Path, path: str | bytes, title: str | bytes | None, front: str | bytes
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "kb.sqlite"
        shutil.copy(imported, db)
        _stored(db, path, title, front)
        out = Path(tmp) / "out"
        status, said, err = _run("export", str(out), "--db", str(db))  # no traceback
        assert status in (0, 1), err
        assert all(c.isprintable() or c == "\n" for c in said + err), (said, err)
        if status == 1 and "NUL" in err:
            assert not out.exists()
        written = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
        assert all(p.resolve().is_relative_to(out.resolve()) for p in written)


def test_an_edit_that_would_read_as_front_matter_is_noted(imported: Path, tmp_path) -> None:
    db = tmp_path / "kb.sqlite"
    shutil.copy(imported, db)
    store = KBStore(lambda: 0, path=str(db))
    store.save(KB_ID, "b", "---\nfoo: 1\n---\n# Beta\n\nNew.", actor="agent")
    store.close()
    status, _, err = _run("export", str(tmp_path / "out"), "--db", str(db))
    assert status == 0 and "export: b.md: its new text changes how the file reads" in err


def test_a_kb_imported_before_the_files_tails_were_kept_exports_as_then(
    imported: Path, tmp_path
) -> None:
    db = tmp_path / "kb.sqlite"
    shutil.copy(imported, db)
    kb = sqlite3.connect(db)
    kb.execute("DROP TABLE imported_tails")
    kb.commit()
    kb.close()
    assert _run("export", str(tmp_path / "out"), "--db", str(db))[0] == 0
    assert (tmp_path / "out/a.md").read_text() == "---\ntitle: Alpha\n---\nEdited by the agent.\n"
