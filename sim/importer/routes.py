"""A page's address under the site's base URL, by the rule of the generator that builds it.

Docusaurus (``slug.ts`` of its docs plugin): a ``slug`` starting with ``/`` is the page's
path; a file named ``index`` or ``README`` or like its folder (a category index) is its
folder's path; else the ``slug``, the ``id`` or the file's name without its number prefix
(``01-intro`` -> ``intro``) resolved in the folder, number prefixes stripped from the folders;
all under ``routeBasePath``. MkDocs: ``page/`` (``use_directory_urls``) or ``page.html``, an
``index.md`` or ``README.md`` its folder; the blog plugin's posts at ``blog/YYYY/MM/DD/slug/``
from their ``date`` and their ``slug`` or slugified title. Hugo: ``url``, else the folder and
``slug`` or name, lower-cased, ending in ``/`` (``_index.md`` and ``index.md`` the folder).
Jekyll: ``permalink``, else ``name.html`` (``name/`` for ``permalink: pretty``) and a
``_posts`` file's ``/YYYY/MM/DD/title.html``. A site whose generator is not known takes the
keys of all (``permalink``, ``url``, then Docusaurus' rule). An address with a scheme and host
is the page's own, taken as is when it is a valid http(s) URL; every other is
percent-encoded, so a ``slug`` with a space, ``?`` or ``#`` gives a valid address.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from sim.importer.frontmatter import text

_SAFE = "/-._~!$&'()*+,;=:@%"
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_URL_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
_NUMBER_PREFIX = re.compile(r"(\d+)(\s*[-_.]+\s*)([^-_.\s].*)")
_NOT_A_PREFIX = re.compile(r"(?:\d{2}|\d{4})[-_.]\d{2}(?:[-_.](?:\d{2}|\d{4}))?|\d+[-_.]\d+")
_SLUG_DROPPED = re.compile(r"[^\w\- ]")
_TAGS = re.compile(r"</?[^>]*>")
_PLACEHOLDER = re.compile(r"(?:^|/):[a-z_]")
_POST_NAME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})-(.+)")


@dataclass(frozen=True)
class Site:
    kind: str = ""
    """docusaurus, mkdocs, hugo, jekyll, or "" (no config file found)."""
    prefix: str = ""
    """The content folder inside DOCS_DIR ("docs/", "content/"), "" when DOCS_DIR is it."""
    route_base: str = ""
    """Docusaurus' routeBasePath of its docs ("/docs")."""
    blog_dir: str | None = None
    """The blog's folder relative to the content folder, with a trailing / (MkDocs: under
    docs_dir; Docusaurus: beside docs/), None without one."""
    directory_urls: bool = True
    trailing_slash: bool | None = None
    """Docusaurus' trailingSlash (None: each route as its rule makes it)."""
    post_url: str = "{date}/{slug}"
    jekyll_permalink: str = "date"
    titles: dict[str, str] = field(default_factory=dict)
    """MkDocs' nav titles, by article path."""


PLAIN = Site()
"""A site no config file names: the keys of every generator read."""


def url_problem(value: str) -> str:
    """Why `value` is not a valid absolute http(s) address ("" when it is one): a scheme and
    host, a port in range, no user name or password, only the characters a URL may hold."""
    if not _URL_CHARS.fullmatch(value):
        bad = next(c for c in value if not _URL_CHARS.fullmatch(c))
        return f"it holds {bad!r}, which an address must percent-encode"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as e:
        return f"it cannot be parsed ({e})"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "it is not an http:// or https:// address with a host"
    if parts.username is not None or parts.password is not None:
        return "it holds a user name or password"
    if port == 0:
        return "its port is 0"
    return ""


def encoded(route: str) -> str:
    """The route percent-encoded (a space, ``?``, ``#`` and non-ASCII letters), a ``%`` that
    already starts an escape kept."""
    return _LONE_PERCENT.sub("%25", quote(route, safe=_SAFE))


def route(site: Site, path: str, keys: dict[str, Any], title: str) -> tuple[str, str]:
    """(the page's address: a path under the base URL, one ``/`` first, or an absolute URL,
    "") or ("", why the page has no address)."""
    address, why = _route(site, path, keys, title)
    if address.startswith("//"):  # a slug "//x" is a path, never another host
        address = "/" + address.lstrip("/")
    return address, why


def _route(site: Site, path: str, keys: dict[str, Any], title: str) -> tuple[str, str]:
    for key in ("permalink", "url") if site.kind in ("", "hugo", "jekyll") else ():
        own = text(keys, key)
        if key == "permalink" and _PLACEHOLDER.search(own):
            return "", f"its permalink {own!r} has placeholders (:name) not filled here"
        if "://" in own or own.startswith("//"):
            why = url_problem(own)
            return ("", f"its {key} {own!r} is not a valid address ({why})") if why else (own, "")
        if own.startswith("/") or (own and site.kind == "hugo"):
            return encoded("/" + own.lstrip("/")), ""
    if site.kind == "docusaurus" and site.blog_dir and path.startswith(site.blog_dir):
        post = _docusaurus_post(site.blog_dir, path.removeprefix(site.blog_dir), keys)
        return encoded(_slashed(post, site.trailing_slash)), ""
    rel = path.removeprefix(site.prefix) if path.startswith(site.prefix) else None
    if site.kind == "docusaurus" and rel is not None:
        doc = site.route_base.rstrip("/") + _docs(rel, keys, numbered=True)
        return encoded(_slashed(doc, site.trailing_slash)), ""
    if site.kind == "mkdocs" and rel is not None:
        return _mkdocs(site, rel, keys, title)
    if site.kind == "hugo" and rel is not None:
        return encoded(_hugo(rel, keys)), ""
    if site.kind == "jekyll":
        return encoded(_jekyll(site, path, keys)), ""
    return encoded(_docs(path, keys, numbered=False)), ""


def _slashed(route: str, trailing: bool | None) -> str:
    """Docusaurus' applyTrailingSlash: every route ending in ``/`` (true) or none but the
    root (false)."""
    if trailing is None or route == "/":
        return route
    return route.rstrip("/") + "/" if trailing else route.rstrip("/") or "/"


def _split(rel: str) -> tuple[list[str], str]:
    folder, _, name = rel.rpartition("/")
    stem, dot, _ = name.rpartition(".")
    return (folder.split("/") if folder else []), (stem if dot and stem else name)


def _unprefixed(name: str) -> str:
    """Docusaurus' default number prefix parser: ``01-intro`` -> ``intro``; a date or a
    version (``2021-01-02``, ``1.2``) is not a prefix."""
    if _NOT_A_PREFIX.match(name):
        return name
    m = _NUMBER_PREFIX.fullmatch(name)
    return m.group(3) if m else name


def _docs(rel: str, keys: dict[str, Any], numbered: bool) -> str:
    """Docusaurus' docs plugin's slug (without routeBasePath)."""
    dirs, stem = _split(rel)
    strip = _unprefixed if numbered else str
    folder = "/" + "".join(f"{strip(d)}/" for d in dirs)
    slug = text(keys, "slug")
    if slug.startswith("/"):
        return slug
    index = {"index", "readme", "_index", dirs[-1].lower() if dirs else "."}
    own_id = text(keys, "id")
    if not slug and (stem.lower() in index or (not numbered and own_id.lower() in index)):
        return folder
    return _resolved(slug or own_id or strip(stem), folder)


def _resolved(slug: str, folder: str) -> str:
    """`slug` resolved in `folder` (``/dir/``) as Docusaurus' resolvePathname does: ``.`` and
    ``..`` taken, a trailing ``/`` kept (a path, so ``a://b`` is no other host)."""
    out = [p for p in folder.split("/") if p]
    parts = slug.split("/")
    for part in parts:
        if part == "..":
            out = out[:-1]
        elif part not in (".", ""):
            out.append(part)
    return "/" + "/".join(out) + ("/" if out and parts[-1] in ("", ".", "..") else "")


def _docusaurus_post(blog: str, rel: str, keys: dict[str, Any]) -> str:
    """The blog plugin's post: ``/blog/<slug>``, else ``/blog/YYYY/MM/DD/name`` from a dated
    file or folder name, else ``/blog/<path>``."""
    slug = text(keys, "slug")
    if slug:
        return f"/{blog}{slug.lstrip('/')}"
    dirs, stem = _split(rel)
    name = "/".join([*dirs, stem] if stem.lower() != "index" else dirs)
    m = _POST_NAME.fullmatch(name.replace("/", "-", 3)) if name[:4].isdigit() else None
    if m:
        year, month, day, rest = m.groups()
        name = f"{year}/{int(month):02d}/{int(day):02d}/{rest}"
    return f"/{blog}{name}"


def _mkdocs(site: Site, rel: str, keys: dict[str, Any], title: str) -> tuple[str, str]:
    dirs, stem = _split(rel)
    posts = site.blog_dir + "posts/" if site.blog_dir is not None else None
    if posts is not None and rel.startswith(posts):
        created = _date(keys.get("date"))
        if created is None:
            return "", "a blog post without a readable date: no page address"
        slug = text(keys, "slug") or slugified(title)
        cats = keys.get("categories")
        first = slugified(str(cats[0])) if isinstance(cats, list) and cats else ""
        try:
            path = site.post_url.format(
                date=created.strftime("%Y/%m/%d"), slug=slug, file=stem, categories=first
            )
        except (KeyError, IndexError, ValueError, AttributeError):
            return "", f"the blog plugin's post_url_format {site.post_url!r} cannot be filled"
        path = "/".join(p for p in path.split("/") if p)
        return encoded(f"/{site.blog_dir}{path}" + ("/" if site.directory_urls else ".html")), ""
    folder = "".join(f"{d}/" for d in dirs)
    if stem in ("index", "README"):
        return encoded(f"/{folder}" + ("" if site.directory_urls else "index.html")), ""
    return encoded(f"/{folder}{stem}" + ("/" if site.directory_urls else ".html")), ""


def slugified(title: str) -> str:
    """A title as the blog plugin slugifies it (``pymdownx.slugs.slugify(case="lower")``):
    tags out, lower case, only word characters, ``-`` and spaces, each space a ``-``."""
    slug = _TAGS.sub("", unicodedata.normalize("NFC", title)).strip().lower()
    return _SLUG_DROPPED.sub("", slug).replace(" ", "-")


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dict):
        value = value.get("created")
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _hugo(rel: str, keys: dict[str, Any]) -> str:
    """Hugo's default: the section path and the ``slug`` or name, lower-cased, spaces as
    hyphens, ending in ``/``; a section's ``_index.md`` and a bundle's ``index.md`` the
    folder."""
    dirs, stem = _split(rel)
    folder = "/" + "".join(f"{d}/" for d in dirs)
    if stem in ("_index", "index"):
        return folder.lower().replace(" ", "-")
    name = text(keys, "slug") or stem
    return f"{folder}{name}/".lower().replace(" ", "-")


def _jekyll(site: Site, rel: str, keys: dict[str, Any]) -> str:
    """Jekyll's default permalinks (``date``, ``pretty`` or ``none`` in ``_config.yml``)."""
    dirs, stem = _split(rel)
    pretty = site.jekyll_permalink == "pretty"
    end = "/" if pretty else ".html"
    post = _POST_NAME.fullmatch(stem) if "_posts" in dirs else None
    if post:
        year, month, day, title = post.groups()
        cats = keys.get("categories") or keys.get("category") or []
        cats = cats.split() if isinstance(cats, str) else [str(c) for c in cats]
        cats = [d for d in dirs[: dirs.index("_posts")]] + cats
        where = "".join(f"{c}/" for c in cats)
        if site.jekyll_permalink == "none":
            return f"/{where}{title}.html"
        return f"/{where}{year}/{int(month):02d}/{int(day):02d}/{title}{end}"
    folder = "/" + "".join(f"{d}/" for d in dirs)
    return folder if stem == "index" else f"{folder}{stem}{end}"
