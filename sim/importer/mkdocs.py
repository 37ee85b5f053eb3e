"""MkDocs' nav: the titles a site's ``mkdocs.yml`` gives its pages.

MkDocs titles a page by its nav entry (``- Install: install.md``) before its front matter
or first heading. The config is looked for in DOCS_DIR (the site's root: pages under its
``docs_dir``) and in DOCS_DIR's parent (DOCS_DIR being the ``docs_dir``). Its tags for
Python objects (``!!python/name:...``, ``!ENV``) are read as nothing: only ``nav`` and
``docs_dir`` are used, by a safe loader. A config that cannot be read gets one line.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from sim.importer.files import Notes

CONFIG = "mkdocs.yml"


@functools.cache
def _lenient() -> type:
    """The safe loader, with any tag it does not know read as null (yaml imported only for
    a site that has a config)."""
    import yaml

    class Lenient(yaml.SafeLoader):
        pass

    Lenient.add_multi_constructor("", lambda loader, suffix, node: None)
    return Lenient


def nav_titles(root: Path, notes: Notes) -> dict[str, str]:
    """Article path (relative to root) -> its nav title; empty without an mkdocs.yml."""
    found = [
        (config, inside)
        for config, inside in ((root / CONFIG, True), (root.parent / CONFIG, False))
        if config.is_file() and not config.is_symlink()
    ]
    if not found:
        return {}
    config, inside = found[0]
    import yaml

    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_lenient())
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as e:
        notes.add(str(config), f"cannot be read ({type(e).__name__}): its nav titles unused")
        return {}
    if not isinstance(data, dict):
        return {}
    docs_dir = str(data.get("docs_dir") or "docs").strip("/")
    if not inside and (config.parent / docs_dir).resolve() != root.resolve():
        return {}  # a config of another folder
    prefix = f"{docs_dir}/" if inside else ""
    titles: dict[str, str] = {}
    _walk(data.get("nav"), prefix, titles)
    return titles


def _walk(nav: Any, prefix: str, titles: dict[str, str]) -> None:
    if isinstance(nav, list):
        for item in nav:
            _walk(item, prefix, titles)
    elif isinstance(nav, dict):
        for title, target in nav.items():
            if isinstance(target, str) and "://" not in target and isinstance(title, str):
                titles.setdefault(prefix + target.lstrip("/"), " ".join(title.split()))
            else:
                _walk(target, prefix, titles)
