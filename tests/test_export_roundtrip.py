"""An agent's edit comes back byte for byte: a real git repository imported, the article edited
through serve's CAS tool as an agent does, exported, the file committed as written and
imported again. The file keeps its layout (front matter, the line breaks around the text)
with only the text replaced, and the KB holds the edit exactly, line endings included (CRLF,
LF, CR or mixed; unicode), appended once."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sim.cli import main
from sim.importer import frontmatter
from sim.importer.frontmatter import normalised
from sim.importer.layout import around, file_text
from sim.importer.markdown import parse
from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from tests.conftest import examples
from tests.test_import import DAY, T0, Repo
from tests.test_import_takeback import _agent_edits

BREAK = st.sampled_from(["\n", "\r\n", "\r"])
WORDS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r\n\ufeff"),
    max_size=12,
)
FRONT = {
    "none": "",
    "yaml": "---{nl}title: Page title{nl}---{nl}",
    "toml": "+++{nl}title = 'Page title'{nl}+++{nl}",
}


@st.composite
def texts(draw: st.DrawFn, fence: str, outer: bool, first: str) -> str:
    """An article's text: lines of any characters, each ending in any line break; with no
    front matter its first line the heading that titles it. With `outer`, line breaks may
    lead and end it (an agent's edit may send them). Its first word is `first`."""
    lines = draw(st.lists(st.tuples(WORDS, BREAK), max_size=5))
    body = first + " " + "".join(w + nl for w, nl in lines) + draw(WORDS) + "."
    if fence == "none":
        body = "# Page title" + draw(BREAK) + body
    if outer:
        body = "".join(draw(st.lists(BREAK, max_size=2))) + body
        body += "".join(draw(st.lists(BREAK, max_size=2)))
    return body


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as e:
            status = int(e.code or 0)
    return status, out.getvalue(), err.getvalue()


@st.composite
def pages(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(head, text, tail) of a file as its team wrote it, and an agent's edit of the text."""
    fence = draw(st.sampled_from(sorted(FRONT)))
    nl = draw(BREAK)
    head = FRONT[fence].format(nl=nl) + "".join(draw(st.lists(BREAK, max_size=2)))
    tail = "".join(draw(st.lists(BREAK, max_size=2)))
    return head, draw(texts(fence, False, "Was")), tail, draw(texts(fence, True, "Now"))


# Each example is a git repository imported three times: make test draws 6 besides the three
# explicit ones (each kind of front matter, each line break, the edit's outer breaks); the
# layout alone takes 100 cheap examples below, and make check draws all 60 here.
@settings(
    max_examples=examples(60, shallow=6),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(page=pages())
@example(  # the case: a CRLF edit of a CRLF file with a blank line after its front matter
    page=("---\r\ntitle: Page title\r\n---\r\n\r\n", "Was.\r\nOld.", "\r\n", "Now.\r\nFixed.\r\n")
)
@example(  # TOML front matter, CR breaks; the edit led and ended by breaks of two kinds
    page=("+++\rtitle = 'Page title'\r+++\r", "Was ü\rold.", "\r\r", "\r\nNow é\rnew.\n\r")
)
@example(  # no front matter: the heading is the text's first line; LF file, mixed-break edit
    page=("\n", "# Page title\nWas .", "", "# Page title\r\nNow x\ry\n.")
)
def test_an_agents_edit_round_trips_byte_for_byte(page: tuple[str, str, str, str]) -> None:
    head, text, tail, edit = page
    with tempfile.TemporaryDirectory() as tmp:
        repo = Repo(Path(tmp) / "docs")
        repo.write("guides/page.md", head + text + tail)
        repo.write("other.md", "# Other\n\nUntouched.\n")
        repo.commit(T0)
        db = Path(tmp) / "kb.sqlite"
        status, _, err = _run("import", str(repo.root), "--db", str(db))
        assert status == 0, err
        store = KBStore(lambda: 0, path=str(db))
        assert store.article_state(KB_ID, "guides/page").content == text  # as written
        store.close()
        _agent_edits(db, {"guides/page": edit})
        store = KBStore(lambda: 0, path=str(db))
        edited, events = store.article_state(KB_ID, "guides/page"), store.all_events(KB_ID)
        store.close()
        assert edited.content == edit
        out = Path(tmp) / "out"
        status, _, err = _run("export", str(out), "--db", str(db))
        assert status == 0 and not err, err
        written = (out / "guides/page.md").read_bytes()
        assert written == (head + edit.strip("\r\n") + tail).encode()  # the layout kept
        repo.write("guides/page.md", written)
        repo.commit(T0 + DAY, "the agent's edit")
        status, said, err = _run("import", str(repo.root), "--db", str(db))
        assert status == 0 and "0 new events" in said, err  # the agent's save, not twice
        store = KBStore(lambda: 0, path=str(db))
        assert store.article_state(KB_ID, "guides/page") == edited  # the same bytes
        assert store.all_events(KB_ID) == events
        store.close()
        assert _run("export", str(Path(tmp) / "again"), "--db", str(db))[1].startswith("No ")
        status, _, err = _run("import", str(repo.root), "--db", str(Path(tmp) / "new.sqlite"))
        assert status == 0, err
        fresh = KBStore(lambda: 0, path=str(Path(tmp) / "new.sqlite"))
        assert fresh.article_state(KB_ID, "guides/page").content == edit.strip("\r\n")
        fresh.close()


@settings(max_examples=examples(300), deadline=None)
@given(page=pages())
def test_a_file_is_its_head_text_and_tail(page: tuple[str, str, str, str]) -> None:
    """The split is the file's bytes, the text the one the sites read (LF line ends), and
    export's file of the same text is the file itself."""
    head, text, tail, _ = page
    raw = head + text + tail
    parsed = parse("guides/page.md", raw)
    assert (parsed.front, parsed.content, parsed.tail) == (head, text, tail)
    assert file_text(parsed.front, parsed.content, parsed.tail) == raw
    assert parsed.title == "Page title"


@pytest.mark.parametrize(
    ("raw", "split"),
    [
        (
            "---\r\ntitle: A\r\n---\r\n\r\nBody\r\n",
            ("---\r\ntitle: A\r\n---\r\n\r\n", "Body", "\r\n"),
        ),
        ("---\ntitle: A\n---", ("---\ntitle: A\n---", "", "")),  # a block closing the file
        ("\ufeff\n# A\r\rText", ("\ufeff\n", "# A\r\rText", "")),
    ],
)
def test_the_split_of_edge_files(raw: str, split: tuple[str, str, str]) -> None:
    lf = normalised(raw)
    assert around(raw, lf[: len(lf) - len(frontmatter.split(lf).body)]) == split
    assert file_text(split[0], "New", split[2]).endswith(f"\nNew{split[2]}")


def test_a_kept_crlf_text_still_gives_its_headings() -> None:
    """The KB holds a CRLF file's text as written; the questions an imported day asks of it
    (its headings) are read as the sites read them."""
    from sim.importer.markdown import headings

    text = "Setup\r\n=====\r\n\r\n<h2>Steps</h2>\r\n\r\n## Done ##\r\n"
    assert list(headings(text)) == ["Setup", "Steps", "Done"]


def test_an_edit_round_trips_through_a_folder_without_git(tmp_path) -> None:
    """Without git the files are compared with the KB: an exported edit copied back is the
    KB's, whatever line breaks the agent's text began or ended with."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_bytes(b"---\r\ntitle: Alpha\r\n---\r\n\r\nOld text.\r\n")
    db = tmp_path / "kb.sqlite"
    assert _run("import", str(docs), "--db", str(db))[0] == 0
    _agent_edits(db, {"a": "New text,\r\nfixed.\r\n"})
    store = KBStore(lambda: 0, path=str(db))
    edited, events = store.article_state(KB_ID, "a"), store.all_events(KB_ID)
    store.close()
    assert _run("export", str(tmp_path / "out"), "--db", str(db))[0] == 0
    written = (tmp_path / "out/a.md").read_bytes()
    assert written == b"---\r\ntitle: Alpha\r\n---\r\n\r\nNew text,\r\nfixed.\r\n"
    (docs / "a.md").write_bytes(written)
    status, said, err = _run("import", str(docs), "--db", str(db))
    assert status == 0 and "0 new events" in said, err
    store = KBStore(lambda: 0, path=str(db))
    assert store.article_state(KB_ID, "a") == edited and store.all_events(KB_ID) == events
    store.close()
    assert _run("export", str(tmp_path / "again"), "--db", str(db))[1].startswith("No ")
