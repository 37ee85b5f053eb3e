"""Which paths of the folder are articles: a Markdown suffix, and no ``--exclude`` glob
matching it.

A glob is matched against the path relative to the folder, ``/`` separating names: ``*``
and ``?`` stay within a name, ``**`` spans any number of folders. A path is left out when a
glob matches it or one of its folders (``i18n`` and ``i18n/**`` both leave out all of
``i18n/``), and a glob without ``/`` (``*.mdx``, ``drafts``) is also tried on each name
alone, as ``.gitignore`` does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sim.importer.markdown import is_article


def _segment(name: str) -> str:
    return re.escape(name).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")


def compiled(glob: str) -> re.Pattern[str]:
    """The regular expression of one glob (ValueError for an empty one)."""
    parts = [p for p in glob.strip().strip("/").split("/") if p]
    if not parts:
        raise ValueError("an empty glob")
    rx = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            rx += ".*" if last else "(?:[^/]+/)*"
        else:
            rx += _segment(part) + ("" if last else "/")
    return re.compile(rx)


class Taken:
    """The article test of one import; it counts the article files the globs left out."""

    def __init__(self, globs: Sequence[str] = ()) -> None:
        self._whole = [compiled(g) for g in globs]
        self._names = [compiled(g) for g in globs if "/" not in g.strip().strip("/")]
        self.left_out: set[str] = set()

    def excluded(self, path: str) -> bool:
        names = path.split("/")
        for rx in self._whole:
            if any(rx.fullmatch("/".join(names[:k])) for k in range(1, len(names) + 1)):
                return True
        return any(rx.fullmatch(n) for rx in self._names for n in names)

    def __call__(self, path: str) -> bool:
        if not is_article(path):
            return False
        if self._whole and self.excluded(path):
            self.left_out.add(path)
            return False
        return True
