"""Which generator builds the site a folder is, from its config file, and the settings of
it that decide a page's address (``routes.py``).

A config file is looked for in DOCS_DIR and in its parent (DOCS_DIR being the site's
content folder): ``docusaurus.config.*`` (there or in a ``website/`` folder beside; it is
Docusaurus' when its docs, ``docs/`` beside it or a ``path:`` it names, are DOCS_DIR or in
it; its blog under ``blog/``; its pages at ``routeBasePath``), ``mkdocs.yml``
(``mkdocs.py``), ``hugo.*`` or a ``config.*`` beside ``content/`` (Hugo: its pages under
``content/``), ``_config.yml`` (Jekyll). Docusaurus' config is JavaScript and is not run:
``routeBasePath`` is read when it is written as a plain string, one value (``/docs`` when
none); several get one line saying the addresses are taken relative to ``--base-url``,
which should then be the docs' own root. Without a config the keys of every generator are
read.
"""

from __future__ import annotations

import re
from pathlib import Path

from sim.importer import mkdocs
from sim.importer.files import Notes
from sim.importer.routes import PLAIN, Site

_DOCUSAURUS = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "mts", "cjs"))
_HUGO = tuple(f"{name}.{ext}" for name in ("hugo", "config") for ext in ("toml", "yaml", "json"))
_ROUTE_BASE = re.compile(r"""routeBasePath\s*:\s*(['"`])([^'"`]*)\1""")
_TRAILING = re.compile(r"\btrailingSlash\s*:\s*(true|false)\b")
_PATH = re.compile(r"""\bpath\s*:\s*(['"`])([^'"`]+)\1""")


def detect(root: Path, notes: Notes) -> Site:
    """The site DOCS_DIR `root` is (a plain Site when no config file says)."""
    for where in (root, root / "website", root.parent, root.parent / "website"):
        for name in _DOCUSAURUS:
            site = _docusaurus(where / name, root, notes) if (where / name).is_file() else None
            if site is not None:
                return site
    found = mkdocs.read(root, notes)
    if found is not None:
        return Site(
            "mkdocs", found.prefix, blog_dir=found.blog_dir, directory_urls=found.directory_urls,
            post_url=found.post_url, titles=found.titles,
        )  # fmt: skip
    for where in (root, root.parent):
        content = where / "content"
        configured = any((where / name).is_file() for name in _HUGO) and content.is_dir()
        if configured and (where == root or content.resolve() == root.resolve()):
            for config in (where / name for name in _HUGO if (where / name).is_file()):
                if "permalinks" in _text(config):
                    notes.add(str(config), _UNREAD.format("Hugo's permalinks", "Hugo's"))
            return Site("hugo", "content/" if where == root else "")
    if (root / "_config.yml").is_file():
        style = _jekyll_permalink(root / "_config.yml")
        if style not in ("date", "pretty", "none"):
            notes.add(str(root / "_config.yml"), _UNREAD.format(f"permalink {style!r}", "Jekyll's"))
        return Site("jekyll", jekyll_permalink=style)
    return PLAIN


def _docusaurus(config: Path, root: Path, notes: Notes) -> Site | None:
    """The Docusaurus site whose docs folder (``docs`` beside the config, or a ``path:`` the
    config names) is `root` or inside it; None when its docs are elsewhere."""
    source = _text(config)
    here, top = config.parent, root.resolve()
    named = ["docs", *(m[1] for m in _PATH.findall(source) if "\0" not in m[1])]
    found = (_resolved(here / name) for name in named)
    docs = next((f for f in found if f.is_relative_to(top) and _is_dir(f)), None)
    if docs is None:
        return None
    blog = (here / "blog").resolve()
    bases = {m[1] for m in _ROUTE_BASE.findall(source)}
    base = "/" + (next(iter(bases)) if bases else "docs").strip("/")
    if len(bases) > 1:
        notes.add(
            str(config),
            f"routeBasePath has {len(bases)} values ({', '.join(sorted(bases))}): addresses "
            "are taken relative to --base-url, which should be the docs' own root",
        )
        base = ""
    slash = _TRAILING.search(source)
    return Site(
        "docusaurus",
        _inside(docs, top) or "",
        base,
        _inside(blog, top) if blog.is_relative_to(top) and blog != top else None,
        trailing_slash=None if slash is None else slash[1] == "true",
    )


def _text(config: Path) -> str:
    try:
        return config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links, a name too long
        return path


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _inside(folder: Path, top: Path) -> str | None:
    """`folder` relative to `top` with a trailing / ("" when it is `top`)."""
    return "" if folder == top else f"{folder.relative_to(top).as_posix()}/"


_UNREAD = "{} not applied: pages take {} default addresses, which may not be the site's"


def _jekyll_permalink(config: Path) -> str:
    """The site's permalink style (date, pretty, none, or a pattern); "date" when unread."""
    import yaml

    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return "date"
    style = data.get("permalink") if isinstance(data, dict) else None
    return style if isinstance(style, str) and style else "date"
