"""Where an article's text sits in its file, as written: what lets ``export`` write an edited
article back byte for byte, with only its text replaced.

A file is its *head* (the front matter block as written and the line breaks after it), its
*text* (what the KB holds, line endings as written: CRLF, LF, CR or mixed) and its *tail*
(the line breaks that end it, none if it has none). The generators read the text with LF
line ends (``frontmatter.normalised``), and so does the importer for titles, flags and
headings; the text it stores is the file's own, so that an agent's edit with CRLF line
endings, exported and committed, imports back as the same bytes.
"""

from __future__ import annotations

import re
from itertools import islice

_BREAK = re.compile(r"\r\n?|\n")
_BREAKS = re.compile(r"[\r\n]*")
LINE_BREAKS = "\r\n"
"""The characters a text's outer line breaks are made of (stripped as layout, not text)."""


def around(raw: str, block: str) -> tuple[str, str, str]:
    """(head, text, tail) of a file's text whose front matter block, read from its LF text
    (``frontmatter.normalised``), is `block` ("" if none): ``head + text + tail == raw``."""
    pos = 1 if raw.startswith("\ufeff") else 0
    if "\r" not in raw:  # most files: the LF text is the file's
        pos += len(block)
    else:
        for found in islice(_BREAK.finditer(raw, pos), block.count("\n")):  # the block's own
            pos = found.end()
        if block and not block.endswith("\n"):  # a block that closes the text
            pos = len(raw)
    lead = _BREAKS.match(raw, pos)
    first = end = lead.end() if lead else pos
    if first < len(raw):  # the text's end: before the breaks that end the file (few)
        end = len(raw)
        while raw[end - 1] in LINE_BREAKS:
            end -= 1
    return raw[:first], raw[first:end], raw[end:]


def file_text(head: str, text: str, tail: str) -> str:
    """The file an article's text makes in its page's layout: its head and tail as they were,
    the text's own outer line breaks left out (the importer takes them as layout, so the
    file imports back as this text). A head that ends without a line break (a block closing
    the file) gets one of the file's kind."""
    if head and not head.endswith(("\n", "\r")):
        head += "\r\n" if "\r\n" in head else "\n"
    return f"{head}{text.strip(LINE_BREAKS)}{tail}"
