"""Each page's address as its generator serves it: Docusaurus (category indexes, `slug`,
`id`, number prefixes, routeBasePath), MkDocs (`use_directory_urls`, the blog plugin's
dated posts), Hugo, Jekyll; absolute and hostile front matter; a strict `--base-url`; and
ids a person can follow across a rename. Three extracts of real sites
(tests/fixtures/sites/README.md) are checked against the addresses their sites serve."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.cli import main
from sim.importer.routes import Site, _docs, encoded, route, slugified, url_problem
from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from sim.server import reads
from tests.test_import import DAY, T0, Repo, _import

SITES = Path(__file__).parent / "fixtures" / "sites"


def _urls(tmp_path: Path, capsys, root: Path, *flags: str) -> tuple[dict[str, str | None], str]:
    """Article id -> its page's address, and what the import said."""
    tmp_path.mkdir(exist_ok=True)
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(root), "--db", str(db), *flags)
    assert status == 0, err
    assert "Traceback" not in err
    store = KBStore(lambda: 0, path=str(db))
    return {a: store.page_url(KB_ID, a) for a in store.article_ids(KB_ID)}, err


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(SITES / name, tmp_path / name))


def test_docusaurus_category_indexes_prefixes_and_route_base(tmp_path, capsys) -> None:
    """Before: `guides/android/android.md` was `/guides/android/android`; `01-intro` kept its
    number; routeBasePath was not read."""
    site = _write(tmp_path / "site", {
        "docusaurus.config.js": "module.exports = {presets: [['classic', {docs: "
                                "{routeBasePath: '/help'}}]]};\n",
        "docs/guides/android/android.md": "# Android\n\nSet up.\n",
        "docs/guides/ios/index.md": "# iOS\n\nSet up.\n",
        "docs/guides/web/README.md": "# Web\n\nSet up.\n",
        "docs/01-start/02-install.md": "# Install\n\nRun it.\n",
        "docs/01-start/03-renamed.md": "---\nid: moved\n---\n# Moved\n\nText.\n",
        "docs/01-start/04-slugged.md": "---\nslug: ../elsewhere\n---\n# Slugged\n\nText.\n",
        "docs/2021-01-02-notes.md": "# Dated\n\nNot a number prefix.\n",
        "docs/top.md": "---\nslug: /top-page\n---\n# Top\n\nText.\n",
        "blog/2024-03-05-launch.md": "# Launch\n\nNews.\n",
    })  # fmt: skip
    urls, _ = _urls(tmp_path, capsys, site, "--base-url", "https://docs.example.com")
    base = "https://docs.example.com"
    assert urls == {
        "docs/guides/android/android": f"{base}/help/guides/android/",
        "docs/guides/ios/index": f"{base}/help/guides/ios/",
        "docs/guides/web/README": f"{base}/help/guides/web/",
        "docs/01-start/02-install": f"{base}/help/start/install",
        "docs/01-start/moved": f"{base}/help/start/moved",
        "docs/01-start/04-slugged": f"{base}/help/elsewhere",
        "docs/2021-01-02-notes": f"{base}/help/2021-01-02-notes",
        "docs/top": f"{base}/help/top-page",
        "blog/2024-03-05-launch": f"{base}/blog/2024/03/05/launch",
    }


@pytest.mark.parametrize(
    ("setting", "index", "page"),
    [("true", "/guides/", "/guides/setup/"), ("false", "/guides", "/guides/setup")],
)
def test_docusaurus_trailing_slash(tmp_path, capsys, setting: str, index: str, page: str) -> None:
    site = _write(tmp_path / "site", {
        "docusaurus.config.ts": f"export default {{trailingSlash: {setting}, url: 'x'}};\n",
        "docs/guides/index.md": "# Guides\n\nText.\n",
        "docs/guides/setup.md": "# Setup\n\nText.\n",
    })  # fmt: skip
    urls, _ = _urls(tmp_path, capsys, site, "--base-url", "https://d.example")
    assert urls == {
        "docs/guides/index": f"https://d.example/docs{index}",
        "docs/guides/setup": f"https://d.example/docs{page}",
    }


def test_a_category_index_without_a_config_is_its_folder(tmp_path, capsys) -> None:
    site = _write(tmp_path / "docs", {"guides/android/android.md": "# Android\n\nSet up.\n"})
    urls, _ = _urls(tmp_path, capsys, site, "--base-url", "https://kb.example")
    assert urls == {"guides/android/android": "https://kb.example/guides/android/"}


@pytest.mark.parametrize(
    ("rel", "slug", "want"),
    [  # Docusaurus' own cases (packages/docusaurus-plugin-content-docs/src/__tests__/slug.test.ts)
        ("dir/doc.md", "", "/dir/doc"),
        ("dir/subdir/doc.md", "", "/dir/subdir/doc"),
        ("dir/subdir/index.md", "", "/dir/subdir/"),
        ("dir/subdir/inDEx.mdx", "", "/dir/subdir/"),
        ("dir/subdir/readme.md", "", "/dir/subdir/"),
        ("dir/subdir/reADMe.mdx", "", "/dir/subdir/"),
        ("dir/subdir/subdir.md", "", "/dir/subdir/"),
        ("dir/subdir/suBDir.mdx", "", "/dir/subdir/"),
        ("dir/subdir/index.md", "/my/frontMatterSlug", "/my/frontMatterSlug"),
        ("001-dir1/002-dir2/doc.md", "", "/dir1/dir2/doc"),
        ("doc.md", "", "/doc"),
        ("any/any/doc.md", "/abc/def", "/abc/def"),
        ("doc.md", "abc/def", "/abc/def"),
        ("dir/doc.md", "abc/def", "/dir/abc/def"),
        ("dir/subdir/doc.md", "abc/def", "/dir/subdir/abc/def"),
        ("dir/doc.md", "./abc/def", "/dir/abc/def"),
        ("dir/doc.md", "./abc/../def", "/dir/def"),
        ("dir/subdir/doc.md", "../abc/def", "/dir/abc/def"),
        ("dir/subdir/doc.md", "../../../../../abc/../def", "/def"),
    ],
)
def test_docusaurus_slugs_as_its_own_tests_have_them(rel: str, slug: str, want: str) -> None:
    assert _docs(rel, {"slug": slug} if slug else {}, numbered=True) == want


def test_mkdocs_blog_posts_are_dated_and_pages_end_in_a_slash(tmp_path, capsys) -> None:
    """Material for MkDocs' own site: before, its posts were `/blog/posts/<file>` and its
    pages had no trailing slash."""
    base = "https://squidfunk.github.io/mkdocs-material"
    urls, err = _urls(tmp_path, capsys, _copy(tmp_path, "mkdocs-material"), "--base-url", base)
    assert urls == {
        "docs/index": f"{base}/",
        "docs/philosophy": f"{base}/philosophy/",
        "docs/tutorials/index": f"{base}/tutorials/",
        "docs/blog/index": f"{base}/blog/",
        "docs/blog/posts/chinese-search-support": f"{base}/blog/2022/05/05/chinese-search-support/",
        "docs/blog/posts/git-sparse-checkout": f"{base}/blog/2023/09/22/"
        "using-git-sparse-checkout-for-faster-documentation-builds/",
        "docs/blog/posts/sunsetting-gitter": f"{base}/blog/2023/10/02/"
        "sunsetting-gitter-towards-efficient-community-engagement/",
        "docs/blog/posts/mkdocs-2.0": f"{base}/blog/2026/02/18/mkdocs-2.0/",
    }
    assert "without a page address" not in err


def test_mkdocs_without_directory_urls_and_a_post_without_a_date(tmp_path, capsys) -> None:
    site = _write(tmp_path / "site", {
        "mkdocs.yml": "site_name: x\nuse_directory_urls: false\nplugins:\n  - blog:\n"
                      "      blog_dir: news\n",
        "docs/index.md": "# Home\n\nHi.\n",
        "docs/guide/index.md": "# Guide\n\nHi.\n",
        "docs/guide/setup.md": "# Setup\n\nHi.\n",
        "docs/news/posts/a.md": "---\ndate: 2024-02-03T10:00:00\n---\n# Hello, World!\n\nHi.\n",
        "docs/news/posts/b.md": "# No date\n\nHi.\n",
    })  # fmt: skip
    urls, err = _urls(tmp_path, capsys, site, "--base-url", "https://m.example/")
    assert urls == {
        "docs/index": "https://m.example/index.html",
        "docs/guide/index": "https://m.example/guide/index.html",
        "docs/guide/setup": "https://m.example/guide/setup.html",
        "docs/news/posts/a": "https://m.example/news/2024/02/03/hello-world.html",
        "docs/news/posts/b": None,
    }
    assert (
        "import: docs/news/posts/b.md: a blog post without a readable date: no page address: "
        "imported without a page address" in err.splitlines()
    )


@pytest.mark.parametrize(
    ("config", "url"),
    [
        ("plugins:\n  blog: {}\n", "https://m.example/blog/2024/02/03/hi/"),  # a mapping
        ("plugins:\n  - blog:\n      post_url_format: '{file}'\n", "https://m.example/blog/a/"),
        ("plugins:\n  - blog:\n      post_url_format: '{nope}/{0}'\n", None),
        ("plugins:\n  - blog: [1]\n  - 7\n  - {}\n", "https://m.example/blog/2024/02/03/hi/"),
        ("plugins: 5\n", "https://m.example/blog/posts/a/"),
    ],
)
def test_a_mkdocs_blog_config_of_any_shape(tmp_path, capsys, config: str, url) -> None:
    site = _write(tmp_path / "site", {
        "mkdocs.yml": "site_name: x\n" + config,
        "docs/blog/posts/a.md": "---\ndate: 2024-02-03\n---\n# Hi\n\nText.\n",
    })  # fmt: skip
    urls, err = _urls(tmp_path, capsys, site, "--base-url", "https://m.example")
    assert urls == {"docs/blog/posts/a": url}
    assert (url is None) == ("post_url_format '{nope}/{0}' cannot be filled" in err)


def test_a_docusaurus_config_naming_odd_paths(tmp_path, capsys) -> None:
    site = _write(tmp_path / "site", {
        "docusaurus.config.js": "module.exports = {docs: {path: 'x\0y', routeBasePath: '/'}, "
                                "blog: {path: '" + "n" * 5000 + "'}};\n",
        "docs/a/a.md": "# A\n\nText.\n",
    })  # fmt: skip
    urls, _ = _urls(tmp_path, capsys, site, "--base-url", "https://d.example")
    assert urls == {"docs/a/a": "https://d.example/a/"}


def test_slugify_is_the_blog_plugins() -> None:
    assert slugified("Chinese search support – 中文搜索\u200b支持") == (
        "chinese-search-support--中文搜索支持"
    )
    assert slugified("Using `git sparse-checkout` <em>now</em>") == (
        "using-git-sparse-checkout-now"
    )


def test_hugo_and_jekyll_by_their_config(tmp_path, capsys) -> None:
    hugo = _write(tmp_path / "hugo", {
        "hugo.toml": "baseURL = 'https://h.example/'\n",
        "content/_index.md": "# Home\n\nHi.\n",
        "content/Posts/_index.md": "# Posts\n\nHi.\n",
        "content/Posts/First Post.md": "# First\n\nHi.\n",
        "content/Posts/second.md": "---\nslug: v2\n---\n# Second\n\nHi.\n",
        "content/about.md": "---\nurl: about-us/\n---\n# About\n\nHi.\n",
        "content/bundle/index.md": "# Bundle\n\nHi.\n",
    })  # fmt: skip
    urls, _ = _urls(tmp_path, capsys, hugo, "--base-url", "https://h.example")
    assert urls == {
        "content": "https://h.example/",
        "content/Posts": "https://h.example/posts/",
        "content/Posts/First Post": "https://h.example/posts/first-post/",
        "content/Posts/second": "https://h.example/posts/v2/",
        "content/about": "https://h.example/about-us/",
        "content/bundle/index": "https://h.example/bundle/",
    }
    jekyll = _write(tmp_path / "jekyll", {
        "_config.yml": "title: x\npermalink: pretty\n",
        "index.md": "# Home\n\nHi.\n",
        "about.md": "# About\n\nHi.\n",
        "faq.md": "---\npermalink: /help/faq/\n---\n# FAQ\n\nHi.\n",
        "tags.md": "---\npermalink: /:title/\n---\n# Tags\n\nHi.\n",
        "_posts/2024-05-06-release.md": "---\ncategories: news\n---\n# Release\n\nHi.\n",
    })  # fmt: skip
    urls, err = _urls(tmp_path / "j", capsys, jekyll, "--base-url", "https://j.example")
    assert urls == {
        "index": "https://j.example/",
        "about": "https://j.example/about/",
        "faq": "https://j.example/help/faq/",
        "tags": None,
        "_posts/2024-05-06-release": "https://j.example/news/2024/05/06/release/",
    }
    assert "tags.md: its permalink '/:title/' has placeholders" in err
    (hugo / "hugo.toml").write_text("[permalinks]\nposts = '/:year/:slug/'\n")
    (jekyll / "_config.yml").write_text("permalink: /:categories/:title/\n")
    said = {
        hugo: "hugo.toml: Hugo's permalinks not applied: pages take Hugo's default addresses",
        jekyll: "_config.yml: permalink '/:categories/:title/' not applied: pages take Jekyll's",
    }
    for site, line in said.items():
        _, err = _urls(tmp_path / f"{site.name}-again", capsys, site)
        assert line in err, err


def test_an_absolute_url_is_the_pages_own_address(tmp_path, capsys) -> None:
    """Before: `https://docs.example.comhttps://other.example/x`."""
    site = _write(tmp_path / "docs", {
        "a.md": "---\nurl: https://other.example/x\n---\n# A\n\nHi.\n",
        "b.md": "---\npermalink: http://other.example:8080/b?x=1\n---\n# B\n\nHi.\n",
        "c.md": "---\nurl: https://bad host.example/c\n---\n# C\n\nHi.\n",
        "d.md": "---\nurl: https://other.example:99999/d\n---\n# D\n\nHi.\n",
    })  # fmt: skip
    urls, err = _urls(tmp_path, capsys, site, "--base-url", "https://docs.example.com")
    assert urls == {
        "a": "https://other.example/x",
        "b": "http://other.example:8080/b?x=1",
        "c": None,
        "d": None,
    }
    lines = err.splitlines()
    assert any(line.startswith("import: c.md: its url 'https://bad host.example/c' is not a")
               for line in lines)  # fmt: skip
    assert any(line.startswith("import: d.md: its url") and "port" in line for line in lines)


@pytest.mark.parametrize(
    "slug", ["with space", "what?", "a#b", "100%", "naïve", "50%25", "//evil.example/x", "a://b"]
)
def test_a_hostile_slug_gives_a_valid_address(tmp_path, capsys, slug: str) -> None:
    """Before: a space, `?` or `#` went into the address as it was."""
    site = _write(tmp_path / "docs", {"page.md": f"---\nslug: '{slug}'\n---\n# P\n\nHi.\n"})
    urls, _ = _urls(tmp_path, capsys, site, "--base-url", "https://kb.example")
    url = urls["page"]
    assert url is not None and url.startswith("https://kb.example/")
    assert url_problem(url) == "" and not set(" ?#") & set(url), url
    assert encoded("/50%25") == "/50%25"  # an escape already there is kept


_KINDS = [
    Site(),
    Site("docusaurus", "docs/", "/docs", "blog/"),
    Site("mkdocs", blog_dir="blog/"),
    Site("hugo"),
    Site("jekyll"),
]
_PATHS = ["a.md", "docs/g/g.md", "blog/posts/x.md", "blog/2024-01-02-y/index.md",
          "_posts/2024-01-02-x.md", "docs/01-a/02-b.md"]  # fmt: skip
_VALUES = st.text(max_size=12) | st.integers() | st.none() | st.dates().map(str)


@given(
    st.sampled_from(_KINDS),
    st.sampled_from(_PATHS),
    st.dictionaries(st.sampled_from(["slug", "url", "permalink", "id", "date"]), _VALUES),
    st.text(max_size=12),
)
def test_any_front_matter_gives_a_valid_address_or_a_reason(site, path, keys, title) -> None:
    address, why = route(site, path, keys, title)
    assert bool(address) != bool(why)
    if address.startswith("/"):
        assert not address.startswith("//") and not set("?# ") & set(address)
        address = "https://kb.example" + address
    assert not address or url_problem(address) == "", (address, keys)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("http://[::1", "cannot be parsed"),
        ("https://docs.example.com:99999/", "cannot be parsed"),
        ("https://docs.example.com/my docs", "' '"),
        ("https://docs.example.com/?q=1", "?query"),
        ("ftp://docs.example.com/", "http:// or https://"),
        ("https://", "http:// or https://"),
    ],
)
def test_base_url_is_checked_strictly(tmp_path, capsys, value: str, said: str) -> None:
    """Before: `http://[::1` was a traceback, and a port of 99999 or a space was taken."""
    site = _write(tmp_path / "docs", {"a.md": "# A\n\nHi.\n"})
    db = tmp_path / "kb.sqlite"
    status, _, err = _import(capsys, str(site), "--db", str(db), "--base-url", value)
    assert status == 2
    [line] = [x for x in err.splitlines() if "--base-url" in x]
    assert said in line and "Traceback" not in err
    assert not db.exists()


def test_real_docusaurus_sites(tmp_path, capsys) -> None:
    """react-redux's config beside its docs (routeBasePath '/', ids for names), and
    typescript-eslint's docs without their config: as https://react-redux.js.org/ and
    https://typescript-eslint.io/ serve them."""
    rr = _copy(tmp_path, "react-redux")
    urls, _ = _urls(tmp_path / "a", capsys, rr / "docs", "--base-url", "https://react-redux.js.org")
    assert urls == {
        "api/provider": "https://react-redux.js.org/api/provider",
        "troubleshooting": "https://react-redux.js.org/troubleshooting",
        "tutorials/typescript-quick-start": "https://react-redux.js.org/tutorials/"
        "typescript-quick-start",
    }
    ts = _copy(tmp_path, "typescript-eslint")
    urls, _ = _urls(
        tmp_path / "b", capsys, ts / "docs", "--base-url", "https://typescript-eslint.io"
    )
    assert urls == {
        "users/index": "https://typescript-eslint.io/users/",
        "contributing": "https://typescript-eslint.io/contributing",
        "getting-started/quickstart": "https://typescript-eslint.io/getting-started/",
    }


def test_a_renamed_file_keeps_its_id_and_cites_its_current_page(tmp_path, capsys) -> None:
    """mkdocs-material's own history: `conventions.md` renamed to `philosophy.md`, then a new
    `conventions.md`. The old id still reads the renamed article, whose citation carries its
    new address; the new file's `~2` id is explained in a line naming the holder."""
    repo = Repo(tmp_path / "site")
    repo.write("mkdocs.yml", "site_name: x\n")
    repo.write("docs/conventions.md", "# Philosophy\n\nOur design principles.\n")
    repo.commit(T0)
    repo.git("mv", "docs/conventions.md", "docs/philosophy.md")
    repo.commit(T0 + DAY)
    repo.write("docs/conventions.md", "# Conventions\n\nHow the docs are written.\n")
    repo.commit(T0 + 2 * DAY)
    db = tmp_path / "kb.sqlite"
    base = "https://example.org/site"
    status, _, err = _import(capsys, str(repo.root), "--db", str(db), "--base-url", base)
    assert status == 0, err
    assert (
        "import: docs/conventions.md: id 'docs/conventions' is already docs/philosophy.md's (an "
        "id is its article's first path and is never reused): imported as 'docs/conventions~2'"
        in err.splitlines()
    )
    store = KBStore(lambda: 0, path=str(db))
    read = reads.read(store, KB_ID, "docs/conventions").structured
    assert read["title"] == "Philosophy" and read["url"] == f"{base}/philosophy/"
    hits = reads.search(store, KB_ID, "design principles", 5).structured["hits"]
    assert [(h["article_id"], h["url"]) for h in hits] == [
        ("docs/conventions", f"{base}/philosophy/")
    ]
    again = reads.read(store, KB_ID, "docs/conventions~2").structured
    assert again["title"] == "Conventions" and again["url"] == f"{base}/conventions/"
    by_path = reads.read(store, KB_ID, "docs/philosophy")  # the file's path now, as an id
    assert by_path.structured["article_id"] == "docs/conventions"
    assert "(asked as docs/philosophy, its file's path now)" in by_path.text
    assert reads.read(store, KB_ID, "docs/nothing").structured["error"]["code"] == (
        "article_not_found"
    )


def test_without_git_a_renamed_file_keeps_its_id(tmp_path, capsys) -> None:
    """Without git, a file moved with its text unchanged is its article renamed (as git's
    rename), so the id a citation holds still reads it, at its new address; before, the old
    id was unpublished and the file imported under a new one."""
    docs = _write(tmp_path / "docs", {
        "conventions.md": "# Philosophy\n\nOur design principles.\n",
        "other.md": "# Other\n\nText.\n",
    })  # fmt: skip
    flags = ("--base-url", "https://kb.example")
    first, _ = _urls(tmp_path / "a", capsys, docs, *flags)
    assert first == {
        "conventions": "https://kb.example/conventions",
        "other": "https://kb.example/other",
    }
    (docs / "conventions.md").rename(docs / "philosophy.md")
    db = tmp_path / "a" / "kb.sqlite"
    status, _, err = _import(capsys, str(docs), "--db", str(db), *flags)
    assert status == 0, err
    store = KBStore(lambda: 0, path=str(db))
    assert sorted(store.article_ids(KB_ID)) == ["conventions", "other"]
    read = reads.read(store, KB_ID, "conventions").structured
    assert read["title"] == "Philosophy" and read["url"] == "https://kb.example/philosophy"


def test_import_help_states_the_id_rule(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the path in the folder the file was first imported at" in text
    assert "never changed nor reused" in text and "~2" in text
    assert "a read of the file's path now, as an id, reads it too" in text
