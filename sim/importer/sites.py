"""Which generator builds the site a folder is, from its config file, and the settings of
it that decide a page's address (``routes.py``).

A config file is looked for in DOCS_DIR and in its parent (DOCS_DIR being the site's
content folder): ``docusaurus.config.*`` (Docusaurus: its docs under ``docs/``, its blog
under ``blog/``, at ``routeBasePath``), ``mkdocs.yml`` (``mkdocs.py``), ``hugo.*`` or a
``config.*`` beside ``content/`` (Hugo: its pages under ``content/``), ``_config.yml``
(Jekyll). Docusaurus' config is JavaScript and is not run: ``routeBasePath`` is read when
it is written once as a plain string; else one line says the addresses are taken relative
to ``--base-url``, which should then be the docs' own root. Without a config the keys of
every generator are read.
"""

from __future__ import annotations

import re
from pathlib import Path

from sim.importer import mkdocs
from sim.importer.files import Notes
from sim.importer.routes import Site

_DOCUSAURUS = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "mts", "cjs"))
_HUGO = tuple(f"{name}.{ext}" for name in ("hugo", "config") for ext in ("toml", "yaml", "json"))
_ROUTE_BASE = re.compile(r"""routeBasePath\s*:\s*(['"`])([^'"`]*)\1""")


def detect(root: Path, notes: Notes) -> Site:
    """The site DOCS_DIR `root` is (a plain Site when no config file says)."""
    for where, inside in ((root, True), (root.parent, False)):
        for name in _DOCUSAURUS:
            if (where / name).is_file():
                return _docusaurus(where / name, inside, notes)
        if mkdocs.found(root) and inside:
            break
        if any((where / name).is_file() for name in _HUGO) and (where / "content").is_dir():
            if inside or root.name == "content":
                return Site("hugo", "content/" if inside else "")
        if inside and (root / "_config.yml").is_file():
            return Site("jekyll", jekyll_permalink=_jekyll_permalink(root / "_config.yml"))
    found = mkdocs.read(root, notes)
    if found is None:
        return Site()
    return Site(
        "mkdocs", found.prefix, blog_dir=found.blog_dir, directory_urls=found.directory_urls,
        post_url=found.post_url, titles=found.titles,
    )  # fmt: skip


def _docusaurus(config: Path, inside: bool, notes: Notes) -> Site:
    try:
        source = config.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        notes.add(str(config), f"cannot be read ({e.strerror}): routeBasePath taken as /docs")
        source = ""
    bases = {m.group(2) for m in _ROUTE_BASE.finditer(source)}
    if len(bases) > 1:
        notes.add(
            str(config),
            f"routeBasePath has {len(bases)} values ({', '.join(sorted(bases))}): addresses "
            "are taken relative to --base-url, which should be the docs' own root",
        )
        base = ""
    else:
        base = "/" + (bases.pop() if bases else "docs").strip("/")
    return Site("docusaurus", "docs/" if inside else "", base, "blog/" if inside else None)


def _jekyll_permalink(config: Path) -> str:
    """The site's permalink style (date, pretty, none); "date" when unread or custom."""
    import yaml

    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return "date"
    style = data.get("permalink") if isinstance(data, dict) else None
    return style if style in ("date", "pretty", "none") else "date"
