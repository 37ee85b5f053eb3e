"""MkDocs' config: the titles a site's ``mkdocs.yml`` nav gives its pages, and what decides
their addresses (``use_directory_urls``, the blog plugin's folder and post URL format).

MkDocs titles a page by its nav entry (``- Install: install.md``) before its front matter
or first heading. The config is looked for in DOCS_DIR (the site's root: pages under its
``docs_dir``) and in DOCS_DIR's parent (DOCS_DIR being the ``docs_dir``). Its tags for
Python objects (``!!python/name:...``, ``!ENV``) are read as nothing, by a safe loader. A
config that cannot be read gets one line.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.importer.files import Notes

CONFIG = "mkdocs.yml"


@dataclass(frozen=True)
class MkDocs:
    prefix: str
    """The docs_dir inside DOCS_DIR ("docs/"), "" when DOCS_DIR is the docs_dir."""
    titles: dict[str, str] = field(default_factory=dict)
    """Article path (relative to DOCS_DIR) -> its nav title."""
    directory_urls: bool = True
    blog_dir: str | None = None
    """The blog plugin's folder under docs_dir ("blog/"), None without the plugin."""
    post_url: str = "{date}/{slug}"


@functools.cache
def _lenient() -> type:
    """The safe loader, with any tag it does not know read as null (yaml imported only for
    a site that has a config)."""
    import yaml

    class Lenient(yaml.SafeLoader):
        pass

    Lenient.add_multi_constructor("", lambda loader, suffix, node: None)
    return Lenient


def found(root: Path) -> bool:
    return any(_configs(root))


def _configs(root: Path) -> list[tuple[Path, bool]]:
    return [
        (config, inside)
        for config, inside in ((root / CONFIG, True), (root.parent / CONFIG, False))
        if config.is_file() and not config.is_symlink()
    ]


def read(root: Path, notes: Notes) -> MkDocs | None:
    """The site's config; None without an mkdocs.yml (or one of another folder)."""
    configs = _configs(root)
    if not configs:
        return None
    config, inside = configs[0]
    import yaml

    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_lenient())
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError) as e:
        notes.add(str(config), f"cannot be read ({type(e).__name__}): its nav titles unused")
        return None
    if not isinstance(data, dict):
        return None
    docs_dir = str(data.get("docs_dir") or "docs").strip("/")
    if not inside and (config.parent / docs_dir).resolve() != root.resolve():
        return None  # a config of another folder
    prefix = f"{docs_dir}/" if inside else ""
    titles: dict[str, str] = {}
    _walk(data.get("nav"), prefix, titles)
    blog, post_url = _blog(data.get("plugins"))
    directory_urls = data.get("use_directory_urls") is not False
    return MkDocs(prefix, titles, directory_urls, blog, post_url)


def _blog(plugins: Any) -> tuple[str | None, str]:
    """The blog plugin's (blog_dir with a trailing /, post_url_format), (None, ...) without."""
    if isinstance(plugins, dict):  # MkDocs takes a mapping of plugins as well as a list
        plugins = [{name: options} for name, options in plugins.items()]
    entries = plugins if isinstance(plugins, list) else []
    for entry in entries:
        if not entry or not isinstance(entry, (str, dict)):
            continue
        name, options = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
        if name in ("blog", "material/blog"):
            options = options if isinstance(options, dict) else {}
            blog = str(options.get("blog_dir") or "blog").strip("/")
            fmt = str(options.get("post_url_format") or "{date}/{slug}")
            return ("" if blog == "." else f"{blog}/"), fmt
    return None, "{date}/{slug}"


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
