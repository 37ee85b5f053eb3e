"""An article's title, body and draft flag, from the text of a Markdown or MDX file.

Front matter is the block between a first line ``---`` and the next ``---``; only its
``key: value`` lines are read (no YAML library: the keys that matter are flat). The title is
front matter's ``title``, else the first ATX heading (``# Title``), else the file's name.
An article is a draft when front matter says ``draft: true``, ``published: false`` or
``status: draft``; anything else is published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

SUFFIXES = (".md", ".markdown", ".mdx")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True, slots=True)
class Parsed:
    title: str
    content: str
    published: bool


def is_article(path: str) -> bool:
    return path.lower().endswith(SUFFIXES)


def article_id(path: str) -> str:
    """The id a path gives: its place in the folder without the suffix (``guides/install``)."""
    p = PurePosixPath(path)
    return str(p.with_suffix("")) if p.suffix.lower() in SUFFIXES else str(p)


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """(keys of the front matter, lower-cased, to their unquoted values; the body after it)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return {}, text  # an unclosed block is text, as Markdown renders it
    keys: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line[:1].isspace():
            keys.setdefault(key.strip().lower(), _unquoted(value.strip()))
    return keys, "\n".join(lines[end + 1 :])


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse(path: str, text: str) -> Parsed:
    keys, body = front_matter(text.replace("\r\n", "\n"))
    title = keys.get("title", "").strip()
    if not title:
        heading = _HEADING.search(body)
        title = heading.group(1).strip() if heading else PurePosixPath(path).stem
    return Parsed(title, body.strip("\n"), not _draft(keys))


def _draft(keys: dict[str, str]) -> bool:
    return (
        keys.get("draft", "").lower() in _TRUE
        or keys.get("published", "").lower() in _FALSE
        or keys.get("status", "").lower() == "draft"
    )


def headings(content: str) -> list[str]:
    """The body's headings, in order: questions a day may ask of the article."""
    return [m.group(1).strip() for m in _HEADING.finditer(content)]
