"""Front matter as the docs generators read it: YAML between ``---`` lines (Docusaurus,
Jekyll, MkDocs, Hugo) or TOML between ``+++`` lines (Hugo).

YAML is read by PyYAML's ``safe_load`` (its C loader where built): the reference YAML 1.1
parser of the Python world, which builds only plain data (no object tags), so a page's
front matter cannot run code; folded and literal blocks, quoting rules and trailing
comments are read as the generators' own parsers read them. TOML is the standard
library's ``tomllib``. A block neither can read is *malformed*: the caller is told why in
one line, and skips the file, since a draft flag may be what it fails to say.

An import parses every version of every article, and most blocks are a few ``key: Words``
lines; those (no quote, colon, comment or indent; a value's true/false/null words as YAML
1.1 has them) are read
without building a YAML document, with the result ``safe_load`` gives (a test holds the
two equal on generated blocks), which keeps a 1,000-article history's import as fast as it
was.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

_YAML_BLOCK = re.compile(r"---[ \t]*\n((?:.*\n)*?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_TOML_BLOCK = re.compile(r"\+\+\+[ \t]*\n((?:.*\n)*?)\+\+\+[ \t]*(?:\n|\Z)")
"""A block: its fence alone on the first line, its text, the closing fence on a line."""
_PLAIN_LINE = re.compile(r"^([^\W\d_][\w-]*): +([^\W\d_][\w .,()/!?&+-]*)$", re.M)
_PLAIN_BLOCK = re.compile(r"(?:[^\W\d_][\w-]*: +[^\W\d_][\w .,()/!?&+-]*\n|[ \t]*\n)*")
_KEYWORDS: dict[str, bool | None] = {
    f(word): value
    for word, value in {"yes": True, "no": False, "true": True, "false": False}.items()
    | {"on": True, "off": False, "null": None}.items()
    for f in (str.lower, str.title, str.upper)
}
"""Plain words YAML 1.1 resolves to a boolean or null (PyYAML's resolver's list)."""


class Malformed(ValueError):
    """The front matter cannot be read; the message is one line, without the file's name."""


@dataclass(frozen=True, slots=True)
class FrontMatter:
    keys: dict[str, Any]
    """Top-level keys, lower-cased, to their values as the parser built them."""
    raw: str
    """The block as written, fences included and ending in a newline ("" if none): what an
    export writes back above the article's text."""
    body: str


def normalised(text: str) -> str:
    """The text without a byte-order mark and with LF line ends, as the generators see it."""
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def split(text: str) -> FrontMatter:
    """The front matter of a normalised text and the body after it; Malformed when the block
    is there but cannot be read. An unclosed block is text, as Markdown renders it."""
    block = _YAML_BLOCK.match(text) or _TOML_BLOCK.match(text)
    if block is None:
        return FrontMatter({}, "", text)
    raw = block.group(0)
    keys = _toml(block[1]) if raw.startswith("+") else _yaml(block[1])
    return FrontMatter(keys, raw if raw.endswith("\n") else raw + "\n", text[block.end() :])


@functools.lru_cache(maxsize=1 << 16)
def _yaml_cached(block: str) -> tuple[tuple[str, Any], ...] | str:
    """The block's keys (or why it is malformed), once per distinct block: a history
    repeats most blocks from version to version."""
    plain = _plain(block)
    if plain is not None:
        return plain
    import yaml  # here: most imports never need it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(block, Loader=loader)  # a safe loader: plain data only
    except RecursionError:
        return "its YAML front matter nests too deeply to be read"
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        return f"its YAML front matter cannot be read ({problem}{where})"
    if data is None:
        return ()
    if not isinstance(data, dict):
        return f"its YAML front matter is a {type(data).__name__}, not key: value pairs"
    return tuple((str(k).lower(), v) for k, v in data.items())


def _plain(block: str) -> tuple[tuple[str, str | bool | None], ...] | None:
    """The keys of a block of ``key: Plain words`` lines only, else None (YAML reads it)."""
    if not _PLAIN_BLOCK.fullmatch(block):
        return None
    keys: dict[str, str | bool | None] = {}
    for key, value in _PLAIN_LINE.findall(block):
        if key in _KEYWORDS:
            return None
        value = value.rstrip(" ")
        keys[key] = _KEYWORDS.get(value, value)  # a repeated key: the last, as YAML's
    return tuple((k.lower(), v) for k, v in keys.items())


def _yaml(block: str) -> dict[str, Any]:
    got = _yaml_cached(block)
    if isinstance(got, str):
        raise Malformed(got)
    return dict(got)


def _toml(block: str) -> dict[str, Any]:
    import tomllib

    try:
        data = tomllib.loads(block)
    except tomllib.TOMLDecodeError as e:
        raise Malformed(f"its TOML front matter cannot be read ({e})") from None
    except RecursionError:
        raise Malformed("its TOML front matter nests too deeply to be read") from None
    return {k.lower(): v for k, v in data.items()}


def flag(keys: dict[str, Any], key: str) -> bool | None:
    """A yes/no key as the generators take it (a YAML or TOML boolean, or the words true
    and false quoted); None when absent or not a yes/no."""
    value = keys.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def text(keys: dict[str, Any], key: str) -> str:
    """A key's value as one line of text ("" when absent, a list or a table)."""
    value = keys.get(key)
    if value is None or isinstance(value, (dict, list, bool)):
        return ""
    return " ".join(str(value).split())
