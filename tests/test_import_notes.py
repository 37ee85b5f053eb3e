"""What `import` and `export` say to a docs team's slips: an --exclude glob that matches
nothing, an OUT_DIR that is the KB file, a KB written inside the folder being imported."""

from __future__ import annotations

from pathlib import Path

from tests.test_import import _import
from tests.test_import_safety import _export, _folder


def test_an_exclude_that_matches_nothing_is_named(tmp_path: Path, capsys) -> None:
    root = _folder(tmp_path)
    (root / "i18n").mkdir()
    (root / "i18n" / "b.md").write_text("# Beta\n\nIn another language.\n")
    status, _, err = _import(capsys, str(root), "--db", str(tmp_path / "kb.sqlite"),
                             "--exclude", "nomatch/**", "--exclude", "i18n/**",
                             "--exclude", "i18n")  # fmt: skip
    assert status == 0, err
    said = [line for line in err.splitlines() if "matched no article file" in line]
    assert said == [
        f"import: --exclude 'nomatch/**' matched no article file of {root}: check its spelling "
        "(a glob is matched against paths relative to DOCS_DIR, e.g. 'i18n/**')"
    ]  # both i18n globs matched i18n/b.md: neither is named
    assert "--exclude left out 1 article files" in err


def test_an_output_inside_the_docs_folder_is_refused(tmp_path: Path, capsys) -> None:
    root = _folder(tmp_path)
    before = sorted(p.name for p in root.iterdir())
    for flags, flag in [
        (["--db", str(root / "new.sqlite")], "--db"),
        (["--db", str(root / "sub" / ".." / "kb")], "--db"),
        (["--db", str(tmp_path / "kb.sqlite"), "--edit-log", str(root / "e.csv")], "--edit-log"),
    ]:
        status, _, err = _import(capsys, str(root), *flags)
        assert status == 2, (flags, err)
        assert f"{flag} " in err and f"inside DOCS_DIR {root}" in err and "Traceback" not in err
        assert "name a file outside it" in err and "nothing was written" in err
        assert sorted(p.name for p in root.iterdir()) == before  # nothing left in the docs
    assert not (tmp_path / "kb.sqlite").exists()


def test_export_into_the_kb_file_says_it_is_the_db(tmp_path: Path, capsys) -> None:
    root = _folder(tmp_path)
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(root), "--db", str(db))[0] == 0
    before = db.read_bytes()
    status, _, err = _export(capsys, str(db), "--db", str(db))
    assert status == 2 and f"OUT_DIR {db}: the KB file --db names, not a folder" in err, err
    assert "name a new folder" in err and "nothing was written" in err
    status, _, err = _export(capsys, str(root / "a.md"), "--db", str(db))
    assert status == 2 and f"OUT_DIR {root / 'a.md'}: a file, not a folder" in err, err
    assert db.read_bytes() == before


def test_a_file_name_or_value_with_an_escape_byte_is_printed_escaped(
    tmp_path: Path, capsys
) -> None:
    """A docs file named with an escape sequence, and a draft's front matter holding one,
    reach the terminal as \\x1b text, not as bytes that clear or recolour it."""
    root = _folder(tmp_path)
    (root / "draft\x1b[2J.md").write_text('---\ndraft: true\ntitle: "x\x1b[31m"\n---\n\nNot yet.\n')
    kb = tmp_path / "kb\x1b]0;title\x07.sqlite"
    status, out, err = _import(capsys, str(root), "--db", str(kb))
    assert status == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "draft\\x1b[2J.md" in err or "draft\\x1b[2J.md" in out
    assert "kb\\x1b]0;title\\x07.sqlite" in out
