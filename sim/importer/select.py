"""Which paths of the folder are articles: a Markdown suffix, not a partial (a name or
folder starting with ``_``, as the generators treat them), and no ``--exclude`` glob
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

from sim.importer.markdown import is_article, is_partial


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
    """The article test of one import; it counts the article files the globs left out, and
    keeps which globs left out none (a typo the import then names)."""

    def __init__(self, globs: Sequence[str] = ()) -> None:
        self._globs = list(globs)
        self._whole = [compiled(g) for g in globs]
        self._names = [
            compiled(g) if "/" not in g.strip().strip("/") else None for g in self._globs
        ]
        self._used: set[int] = set()
        self.left_out: set[str] = set()
        self.partials: set[str] = set()
        """Markdown files left out as partials (``markdown.is_partial``)."""
        self._seen: dict[str, bool] = {}
        """Each path's answer: a history names most paths in several commits."""

    def excluded(self, path: str) -> bool:
        names = path.split("/")
        prefixes = ["/".join(names[:k]) for k in range(1, len(names) + 1)]
        hit = False
        for i, rx in enumerate(self._whole):  # every glob: each one that matches is used
            alone = self._names[i]
            if any(rx.fullmatch(p) for p in prefixes) or (
                alone is not None and any(alone.fullmatch(n) for n in names)
            ):
                self._used.add(i)
                hit = True
        return hit

    def unmatched(self) -> list[str]:
        """The globs, as given, that left out no article file (so far)."""
        return [g for i, g in enumerate(self._globs) if i not in self._used]

    def __call__(self, path: str) -> bool:
        seen = self._seen.get(path)
        if seen is None:
            seen = self._seen[path] = self._taken(path)
        return seen

    def _taken(self, path: str) -> bool:
        if not is_article(path):
            return False
        if is_partial(path):
            self.partials.add(path)
            return False
        if self._whole and self.excluded(path):
            self.left_out.add(path)
            return False
        return True
