"""An article's title, body, visibility, id and address, from a Markdown or MDX file.

Front matter is read by ``frontmatter.py`` (YAML or Hugo's TOML). The title is the MkDocs
nav's for the page (``mkdocs.py``), else front matter's ``title``, else the first heading
(ATX ``# Title``, setext ``Title`` over ``===``/``---``, or an HTML ``<h1>Title</h1>``
line) outside fenced code, else the file's name (a Hugo ``_index.md``: its folder's); a
page's address is ``routes.py``'s. A partial (``is_partial``: a name or folder
starting with ``_``) is not an article. An article is not published when front
matter says ``draft: true`` (every generator), ``published: false`` (Jekyll), ``unlisted:
true`` (Docusaurus: out of the site's search, so out of the agent's) or ``status: draft``,
or when it has no text. Its id is its path without the suffix, a Docusaurus ``id`` in
place of the file's name, a Hugo ``_index.md`` its folder's path.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

from sim.importer.frontmatter import flag, normalised, split, text
from sim.importer.layout import around
from sim.importer.routes import PLAIN, Site, route

SUFFIXES = (".md", ".markdown", ".mdx")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:[-+*>|<]|\d+[.)][ \t]|import |export )| {4}")
_HEADING_ID = re.compile(r"[ \t]*\{#[^}]*\}$")
_DOCSIFY_ATTRS = re.compile(r"(?:[ \t]+:(?:id=\S*|docsify-ignore(?:-all)?))+[ \t]*$")
_HTML_HEADING = re.compile(r" {0,3}<h([1-6])(?:[ \t][^>]*)?>(.*?)</h\1>[ \t]*$", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
EMPTY = "empty (no text after its front matter)"


@dataclass(frozen=True, slots=True)
class Parsed:
    title: str
    content: str
    published: bool
    hidden: str = ""
    """Why it is not published ("" when it is)."""
    wanted_id: str = ""
    route: str = ""
    front: str = ""
    """The file's text before the article's: its front matter block and the line breaks
    after it, as written (``layout.py``: what an export writes back around an edit)."""
    tail: str = ""
    """The line breaks that end the file, as written."""
    unaddressed: str = ""
    """Why the page has no address ("" when it has one)."""


def is_article(path: str) -> bool:
    return path.lower().endswith(SUFFIXES)


def is_partial(path: str) -> bool:
    """A file the generators render into pages but never as a page of its own: its name or
    one of its folders starts with ``_`` (docsify's ``_sidebar.md``, ``_navbar.md`` and
    ``_coverpage.md``, Docusaurus' partials, Jekyll's ``_includes``), but for Hugo's
    ``_index.md`` (a section's page) and Jekyll's ``_posts`` (its pages)."""
    *folders, name = path.split("/")
    if name.startswith("_") and _parts(path)[1].lower() != "_index":
        return True
    return any(f.startswith("_") and f != "_posts" for f in folders)


def article_id(path: str) -> str:
    """The id a path gives: its place in the folder without the suffix (``guides/install``)."""
    folder, stem = _parts(path)
    return folder + stem if is_article(path) else path


def _parts(path: str) -> tuple[str, str]:
    """(the folder with a trailing / or "", the name without its suffix): string work, as
    an import parses every version of every article."""
    folder, _, name = path.rpartition("/")
    stem, dot, _ = name.rpartition(".")
    return (f"{folder}/" if folder else ""), (stem if dot and stem else name)


def parse(path: str, raw: str, site: Site = PLAIN) -> Parsed:
    """The article a file's text is in the `site` (whose nav may title it); frontmatter.
    Malformed when its front matter is malformed."""
    lf = normalised(raw)
    fm = split(lf)
    body = fm.body.strip("\n")  # titles, flags and headings are read as the sites read them
    keys = fm.keys
    folder, stem = _parts(path)
    name = folder.rstrip("/").rpartition("/")[2] if stem == "_index" and folder else stem
    title = site.titles.get(path) or text(keys, "title") or next(headings(body), "") or name
    hidden = _hidden(keys) or ("" if body.strip() else EMPTY)
    address, why = route(site, path, keys, title)
    wanted = _wanted_id(path, folder, stem, keys)
    head, content, tail = around(raw, lf[: len(lf) - len(fm.body)])  # the file's own bytes
    return Parsed(title, content, not hidden, hidden, wanted, address, head, tail, why)


def _hidden(keys: dict) -> str:
    if flag(keys, "draft"):
        return "a draft (draft: true)"
    if flag(keys, "published") is False:
        return "not published (published: false)"
    if flag(keys, "unlisted"):
        return "unlisted (unlisted: true)"
    if text(keys, "status").lower() == "draft":
        return "a draft (status: draft)"
    return ""


def _wanted_id(path: str, folder: str, stem: str, keys: dict) -> str:
    own = text(keys, "id")
    if own and "/" not in own:
        return folder + own
    if stem == "_index" and folder:
        return folder.rstrip("/")
    return article_id(path)


def headings(content: str) -> Iterator[str]:
    """The body's headings in order (ATX, setext, and a line that is one HTML ``<hN>``
    element; none inside fenced code): the title when front matter has none, and questions
    a day may ask of the article. A heading's ``{#id}`` (MkDocs, Hugo) and its trailing
    docsify attributes (`` :id=name``, `` :docsify-ignore``, `` :docsify-ignore-all``) are
    not part of it, as the sites do not show them."""
    fence = ""
    paragraph: list[str] = []
    for line in normalised(content).split("\n"):  # a KB keeps a file's own line ends
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened:
            fence, paragraph = opened.group(1), []
            continue
        atx = _ATX.match(line)
        if atx:
            paragraph = []
            heading = _DOCSIFY_ATTRS.sub("", _HEADING_ID.sub("", atx.group(1) or "")).strip()
            if heading:
                yield heading
            continue
        element = _HTML_HEADING.match(line)
        if element:
            paragraph = []
            heading = " ".join(html.unescape(_TAG.sub("", element.group(2))).split())
            if heading:
                yield heading
            continue
        if paragraph and _UNDERLINE.match(line):
            yield " ".join(paragraph)
            paragraph = []
            continue
        if not line.strip() or (_NOT_PARAGRAPH.match(line) and not paragraph):
            paragraph = []
            continue
        paragraph.append(line.strip())
