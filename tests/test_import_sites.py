"""`python -m sim import` on docs sites as their generators read them: a fixture per
generator (Docusaurus, Hugo, Jekyll, MkDocs) and an extract of a real public one
(Prettier's documentation, MIT; tests/fixtures/sites/README.md says what and from where)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from sim.bench.stdio import RawClient
from sim.importer.corpus import _own
from sim.importer.frontmatter import Malformed, _plain
from sim.importer.markdown import headings, parse
from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from tests.test_import import T0, Repo, _answer, _import

SITES = Path(__file__).parent / "fixtures" / "sites"


def _site(tmp_path: Path, name: str) -> Path:
    """A copy of the fixture out of this repository's work tree: no git history."""
    return Path(shutil.copytree(SITES / name, tmp_path / name))


def _imported(tmp_path, capsys, name: str, *flags: str) -> tuple[KBStore, str]:
    db = tmp_path / f"{name}.sqlite"
    status, _, err = _import(capsys, str(_site(tmp_path, name)), "--db", str(db), *flags)
    assert status == 0, err
    assert "Traceback" not in err
    return KBStore(lambda: 0, path=str(db)), err


def _view(store: KBStore) -> dict[str, tuple[str, bool, str | None]]:
    """Article id -> (title, published, page address)."""
    out = {}
    for aid in store.article_ids(KB_ID):
        a = store.article_state(KB_ID, aid)
        out[aid] = (a.title, a.published, store.page_url(KB_ID, aid))
    return out


def test_a_docusaurus_site(tmp_path, capsys) -> None:
    store, err = _imported(
        tmp_path, capsys, "docusaurus",
        "--exclude", "i18n/**", "--exclude", "blog", "--base-url", "https://docs.example.com/",
    )  # fmt: skip
    assert _view(store) == {
        "docs/getting-started": (
            "Getting started with the app",
            True,
            "https://docs.example.com/start",
        ),
        "docs/setup": ("It's quoted", True, "https://docs.example.com/docs/setup-guide"),
        "docs/guide/calendar": (
            "Calendar sync",
            True,
            "https://docs.example.com/docs/guide/calendar",
        ),
        "docs/wip": ("Billing changes", False, "https://docs.example.com/docs/wip"),
        "docs/hidden": ("Beta features", False, "https://docs.example.com/docs/hidden"),
    }
    assert "--exclude left out 2 article files" in err
    assert store.search(KB_ID, ["billing"], 5) == (0, [])  # the draft is not served
    assert store.search(KB_ID, ["beta"], 5) == (0, [])  # nor the unlisted page
    assert store.page_url(KB_ID, "no-such-article") is None


def test_a_hugo_site_with_toml_front_matter(tmp_path, capsys) -> None:
    store, _ = _imported(tmp_path, capsys, "hugo", "--base-url", "https://example.org/help")
    assert _view(store) == {  # a section's _index.md is the section: its id, its address
        "content": ("Help centre", True, "https://example.org/help/content/"),
        "content/posts": ("Release notes", True, "https://example.org/help/content/posts/"),
        "content/posts/first": (
            "Version 2 is coming",
            False,
            "https://example.org/help/content/posts/first",
        ),
        "content/posts/second": (
            "Version 1.9",
            True,
            "https://example.org/help/content/posts/v1-9",
        ),
        "content/about": ("About the team", True, "https://example.org/help/about-us/"),
    }


def test_hugo_content_folder_imported_itself(tmp_path, capsys) -> None:
    """DOCS_DIR the content folder: the root _index.md is the home page, "/"."""
    site = _site(tmp_path, "hugo")
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(site / "content"), "--db", str(db), "--base-url",
                             "https://example.org")  # fmt: skip
    assert status == 0, err
    store = KBStore(lambda: 0, path=str(db))
    assert store.article_state(KB_ID, "_index").title == "Help centre"
    assert store.page_url(KB_ID, "_index") == "https://example.org/"


def test_a_jekyll_site_bom_and_crlf(tmp_path, capsys) -> None:
    assert b"\r\n" in (SITES / "jekyll" / "windows.md").read_bytes()  # kept as saved
    store, _ = _imported(tmp_path, capsys, "jekyll", "--base-url", "https://site.example")
    assert _view(store) == {
        "index": ("Welcome", True, "https://site.example/"),
        "guide": ("Guide: the basics", False, "https://site.example/guide"),
        "faq": ("FAQ", True, "https://site.example/help/faq/"),
        "windows": ("Saved on Windows", True, "https://site.example/windows"),
    }
    # read with LF line ends (the title above), kept with the file's own: an edit exports back
    assert store.article_state(KB_ID, "windows").content == "Line one.\r\nLine two."


def test_a_mkdocs_site_fences_empty_pages_and_malformed_front_matter(tmp_path, capsys) -> None:
    store, err = _imported(tmp_path, capsys, "mkdocs")
    view = _view(store)
    assert view["docs/index"] == ("Home", True, None)  # mkdocs.yml's nav names it
    assert view["docs/user-guide/writing"] == ("Writing the docs", True, None)
    assert view["docs/empty"][0] == "empty"
    assert view["docs/empty"][1] is False and view["docs/blank"][1] is False
    assert "docs/broken" not in view  # skipped: its draft flag cannot be read
    lines = [line for line in err.splitlines() if "docs/" in line]
    assert (
        "import: docs/empty.md: empty (no text after its front matter): imported, not "
        "published" in lines
    )
    assert any(line.startswith("import: docs/blank.md: empty") for line in lines)
    [broken] = [line for line in lines if "broken.md" in line]
    assert "YAML front matter cannot be read" in broken and "at line 3" in broken
    assert "skipped" in broken
    assert store.search(KB_ID, ["readers"], 5) == (0, [])


def test_mkdocs_docs_dir_imported_itself_finds_the_nav_above_it(tmp_path, capsys) -> None:
    site = _site(tmp_path, "mkdocs")
    db = tmp_path / "kb.sqlite"
    assert _import(capsys, str(site / "docs"), "--db", str(db))[0] == 0
    store = KBStore(lambda: 0, path=str(db))
    assert store.article_state(KB_ID, "user-guide/writing").title == "Writing the docs"
    (site / "mkdocs.yml").unlink()  # without the nav: the first heading, never the fence's
    assert _import(capsys, str(site / "docs"), "--db", str(tmp_path / "b.sqlite"))[0] == 0
    store = KBStore(lambda: 0, path=str(tmp_path / "b.sqlite"))
    assert store.article_state(KB_ID, "index").title == "Installation"


def test_prettier_docs_a_real_docusaurus_site(tmp_path, capsys) -> None:
    """Prettier's docs as its site serves them at https://prettier.io/docs/: the repository
    root imported, its versioned copy and its blog left out."""
    store, err = _imported(
        tmp_path, capsys, "prettier", "--exclude", "website/versioned_docs/**",
        "--exclude", "website/blog/**", "--base-url", "https://prettier.io",
    )  # fmt: skip
    assert _view(store) == {
        "docs/index": ("What is Prettier?", True, "https://prettier.io/docs/"),
        "docs/install": ("Install", True, "https://prettier.io/docs/install"),
        "docs/ignore": ("Ignoring Code", True, "https://prettier.io/docs/ignore"),
        "docs/vim": ("Vim Setup", True, "https://prettier.io/docs/vim"),
    }
    assert "--exclude left out 2 article files" in err
    ignore = store.article_state(KB_ID, "docs/ignore").content
    asked = _own("Ignoring Code", ignore)  # the questions a simulated day asks of it
    assert "Ignoring Files: .prettierignore" in asked
    assert "Ignore artifacts:" not in asked  # a comment in a fenced .prettierignore
    _, hits = store.search(KB_ID, ["prettierignore"], 5)
    assert hits[0].article_id == "docs/ignore"


def test_prettier_without_excludes_takes_every_copy(tmp_path, capsys) -> None:
    store, _ = _imported(tmp_path, capsys, "prettier")
    ids = store.article_ids(KB_ID)
    assert len(ids) == 6
    assert "website/versioned_docs/version-stable/install" in ids


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("---\ntitle: >-\n  Folded\n  title\n---\nx", "Folded title"),
        ("---\ntitle: 'It''s quoted'\n---\nx", "It's quoted"),
        ('+++\ntitle = "From TOML"\n+++\nx', "From TOML"),
        ("Setext title\n============\n\nx", "Setext title"),
        ("Two line\nsetext\n---\n\nx", "Two line setext"),
        ("```bash\n# install the tool\n```\n\n# Real title\n", "Real title"),
        ("~~~~\n# not this\n~~~\n# nor this\n~~~~\n## This one {#custom-id}\n", "This one"),
        ("# C# basics\n", "C# basics"),
        ("#hashtag\n\n    # indented code\n\nx\n", "page"),
        ("---\ntitle: 2024\n---\nx", "2024"),
        ("# Docsify Page :id=foo\n", "Docsify Page"),  # docsify's heading attributes
        ("## Hidden :docsify-ignore\n", "Hidden"),
        ("# All hidden :docsify-ignore-all :id=x\n", "All hidden"),
        ("# The :idea=1 stays\n", "The :idea=1 stays"),
        ("<h1>HTML Title</h1>\n\nText.\n", "HTML Title"),
        ('<h1 align="center"><img src="x.png"> Q&amp;A <em>now</em></h1>\n', "Q&A now"),
        ("```html\n<h1>not this</h1>\n```\n<H2>This</H2>\n", "This"),
    ],
)
def test_titles_as_the_generators_read_them(text: str, title: str) -> None:
    assert parse("docs/page.md", text).title == title


@pytest.mark.parametrize(
    "front",
    [
        "---\ndraft: true # still being written\n---\n",
        "---\ndraft: yes\n---\n",
        "---\ndraft: 'true'\n---\n",
        "+++\ndraft = true\n+++\n",
        "---\npublished: false\n---\n",
        "---\nunlisted: true\n---\n",
        "---\nstatus: draft\n---\n",
        "\ufeff---\r\ndraft: true\r\n---\r\n",
    ],
)
def test_drafts_as_the_generators_mark_them(front: str) -> None:
    parsed = parse("a.md", front + "Text.\n")
    assert not parsed.published


@pytest.mark.parametrize(
    "front",
    [
        "---\ndraft: false # done\n---\n",
        "+++\ndraft = false\n+++\n",
        "---\npublished: true\n---\n",
        "---\nunlisted: false\nstatus: live\n---\n",
        "---\ntitle: 'Draft: a word in a title'\n---\n",
    ],
)
def test_published_pages_stay_published(front: str) -> None:
    assert parse("a.md", front + "Text.\n").published


def test_headings_skip_fences_and_keep_setext() -> None:
    body = "Intro\n=====\n\n```\n# code\n```\n\nPart two\n--------\n\n- item\n---\n\n## Three\n"
    assert list(headings(body)) == ["Intro", "Part two", "Three"]


_LINE = st.tuples(
    st.from_regex(r"[^\W\d_][\w-]{0,8}", fullmatch=True),
    st.sampled_from([" ", "  "]),
    st.one_of(
        st.from_regex(r"[^\W\d_][\w .,()/!?&+-]{0,24}", fullmatch=True),
        st.sampled_from(["true", "No", "OFF", "null", "yes please", "Q&A: how", "It's", "a #b"]),
    ),
    st.sampled_from(["", " ", "\n"]),
)


@given(st.lists(_LINE, max_size=8))
def test_the_plain_block_shortcut_reads_what_yaml_reads(lines: list) -> None:
    """Blocks of `key: Plain words` lines skip building a YAML document: where the shortcut
    takes a block, its keys are safe_load's, lower-cased as every block's are."""
    block = "".join(f"{k}:{gap}{v}{tail}\n" for k, gap, v, tail in lines)
    fast = _plain(block)
    if fast is not None:
        data = yaml.safe_load(block) or {}
        assert fast == tuple((str(k).lower(), v) for k, v in data.items())
    assert _plain("title: Install the app\nid: install\n") == (
        ("title", "Install the app"), ("id", "install"),
    )  # fmt: skip


@pytest.mark.parametrize(
    "front",
    [
        "---\nx: " + "[" * 100_000 + "]" * 100_000 + "\n---\n",
        "+++\nx = " + "[" * 100_000 + "]" * 100_000 + "\n+++\n",
        "---\n- a list\n---\n",
        "+++\ntitle = \n+++\n",
    ],
)
def test_hostile_front_matter_is_malformed_not_a_crash(front: str) -> None:
    with pytest.raises(Malformed, match="front matter"):
        parse("a.md", front + "Body.\n")


def test_aliases_do_not_blow_up_a_title() -> None:
    front = "---\na: &a [x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\ntitle: *c\n---\n"
    assert parse("docs/a.md", front + "# Heading\n").title == "Heading"


def test_in_git_a_draft_comment_unpublishes_and_malformed_keeps_the_last(tmp_path, capsys) -> None:
    repo = Repo(tmp_path / "docs")
    repo.write("a.md", "---\ntitle: Alpha\n---\nAlpha text.\n")
    repo.write("b.md", '+++\ntitle = "Beta"\n+++\nBeta text.\n')
    repo.commit(T0)
    repo.write("a.md", "---\ntitle: Alpha\ndraft: true # still being written\n---\nAlpha text.\n")
    repo.write("b.md", '+++\ntitle = "Beta"\ndraft = true\n+++\nBeta text.\n')
    repo.write("empty.md", "")
    repo.commit(T0 + 60)
    repo.write("a.md", "---\ntitle: [Alpha\ndraft: false\n---\nAlpha text, public.\n")
    repo.commit(T0 + 120)
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(repo.root), "--db", str(db))
    assert status == 0, err
    store = KBStore(lambda: 0, path=str(db))
    events = [(e.type, e.article_id) for e in store.all_events(KB_ID)]
    assert ("unpublished", "a") in events and ("unpublished", "b") in events
    a = store.article_state(KB_ID, "a")
    assert (a.published, a.content) == (False, "Alpha text.")  # its last readable version
    assert not store.article_state(KB_ID, "empty").published
    assert "import: a.md: its YAML front matter cannot be read" in err
    assert "the KB keeps its last readable version" in err
    assert "import: empty.md: empty (no text after its front matter): imported, not" in err
    assert store.search(KB_ID, ["alpha"], 5) == (0, []) == store.search(KB_ID, ["beta"], 5)


def test_prettier_docs_are_served_over_stdio(tmp_path, capsys, serve_command) -> None:
    store, _ = _imported(
        tmp_path, capsys, "prettier", "--exclude", "website/**", "--base-url", "https://prettier.io"
    )
    store.close()
    client = RawClient("--db", str(tmp_path / "prettier.sqlite"), serve=serve_command)
    try:
        client.handshake()
        found = _answer(
            client, 1, "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "vim"}
        )
        # each citation carries the page a person opens, beside its stable id
        assert found["hits"][0] == {
            "article_id": "docs/vim",
            "title": "Vim Setup",
            "updated_at": found["hits"][0]["updated_at"],
            "url": "https://prettier.io/docs/vim",
        }
        read = _answer(
            client, 2, "read_knowledge_article",
            {"knowledge_base_id": KB_ID, "article_id": "docs/install"},
        )  # fmt: skip
        assert read["title"] == "Install" and "npm install" in read["content"]
        assert read["url"] == "https://prettier.io/docs/install"
    finally:
        stderr = client.close()
    assert "Traceback" not in stderr, stderr


def test_partials_are_not_articles_but_hugo_sections_and_jekyll_posts_are(tmp_path, capsys) -> None:
    """docsify's `_sidebar.md`/`_navbar.md`/`_coverpage.md` and files under `_media/` (or a
    Docusaurus partial) are rendered into pages, never served as one: left out, and named.
    Hugo's `_index.md` is a section's page and Jekyll's `_posts/` its posts: imported."""
    site = tmp_path / "site"
    files = {
        "README.md": "# Home\n\nWelcome.\n",
        "_sidebar.md": "- [Home](/)\n",
        "_coverpage.md": "# docsify <small>5</small>\n",
        "_media/example.md": "# An example\n",
        "guide/_partial.mdx": "Shared text.\n",
        "guide/_index.md": "# The guide\n\nIts sections.\n",
        "_posts/2024-01-01-hello.md": "# Hello\n\nA post.\n",
    }
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(site), "--db", str(db))
    assert status == 0, err
    ids = set(KBStore(lambda: 0, path=str(db)).article_ids(KB_ID))
    assert ids == {"README", "guide", "_posts/2024-01-01-hello"}
    assert "left out 4 partials" in err and "_sidebar.md" in err
