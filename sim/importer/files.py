"""Which files of the folder become articles, and one line for each that does not.

The same checks hold for a file on disk and a blob in git: too large, binary (a NUL byte)
or not UTF-8 text is skipped with a line naming the file. On disk a symlink is never
followed (one out of the folder is named as such), an unreadable file is skipped, and
hidden folders (``.git``) are not entered. Only a regular file is opened: a FIFO, device or
socket named like an article is skipped with a line (opening a FIFO would wait for a writer
for ever), checked before the open and again on the open file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sim.importer.select import Taken
from sim.prog import PROG
from sim.server.describe import terminal

MAX_ARTICLE_BYTES = 1 << 20
"""A larger file is skipped: a help article is some kilobytes, and a megabyte of one is a
generated or pasted file no agent should cite whole."""


@dataclass
class Notes:
    """The lines an import prints, one per file it did not take as it is."""

    lines: list[str] = field(default_factory=list)

    def add(self, path: str, what: str) -> None:
        """A file's line, escaped as printed: a name or front matter value holding an escape
        byte cannot move or recolour the user's terminal."""
        self.lines.append(terminal(f"{path}: {what}"))


def named(path: str) -> bool:
    """Whether a file name is UTF-8 text (an id must be)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


NOT_NAMED = "its name is not UTF-8 text, and an article's id is its name: skipped"


def shown(path: str) -> str:
    """A name as printed: bytes that are not UTF-8 as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def decoded(data: bytes | int) -> tuple[str | None, str]:
    """(the text, "") of an article's bytes, or (None, why it is skipped); an int is the
    size of a file too large to have been read."""
    size = data if isinstance(data, int) else len(data)
    if isinstance(data, int) or size > MAX_ARTICLE_BYTES:
        return None, (
            f"{size:,} bytes, over the {MAX_ARTICLE_BYTES:,}-byte limit for an article: skipped"
        )
    if b"\0" in data:
        return None, "binary (it holds NUL bytes), not Markdown text: skipped"
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 text (byte {e.start:,} is not): skipped; save it as UTF-8"


def outside(root: Path, link: Path) -> bool:
    """Whether a symlink under root points out of it (or nowhere)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return True
    return not target.is_relative_to(root.resolve())


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"


def _read(path: Path) -> bytes | str:
    """The bytes of a regular file, or why it is not read (a FIFO is never waited on)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        return _why(e)
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return f"{_kind(mode)}, not a regular file: skipped (never read)"
        return f.read()


def on_disk(root: Path, notes: Notes, select: Taken) -> dict[str, tuple[str, int]]:
    """Every article file under root: relative path → (text, modification time in µs)."""
    found: dict[str, tuple[str, int]] = {}
    for folder, dirs, names in os.walk(root, onerror=lambda e: notes.add(e.filename, _why(e))):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for d in dirs:
            if (base / d).is_symlink():
                rel = (base / d).relative_to(root).as_posix()
                where = "out of the folder" if outside(root, base / d) else "inside the folder"
                notes.add(rel, f"a symlink to a folder {where}: not followed")
        for name in sorted(names):
            path = base / name
            rel = path.relative_to(root).as_posix()
            if not select(rel):
                continue
            if not named(rel):
                notes.add(shown(rel), NOT_NAMED)
                continue
            if path.is_symlink():
                if outside(root, path):
                    notes.add(rel, "a symlink out of the folder: skipped")
                else:
                    notes.add(rel, "a symlink inside the folder: skipped (its target counts)")
                continue
            try:
                st = path.lstat()
            except OSError as e:
                notes.add(rel, _why(e))
                continue
            if not stat.S_ISREG(st.st_mode):
                notes.add(rel, f"{_kind(st.st_mode)}, not a regular file: skipped (never read)")
                continue
            if st.st_size > MAX_ARTICLE_BYTES:
                notes.add(rel, decoded(st.st_size)[1])
                continue
            data = _read(path)
            if isinstance(data, str):
                notes.add(rel, data)
                continue
            mtime_us = st.st_mtime_ns // 1000
            text, why = decoded(data)
            if text is None:
                notes.add(rel, why)
            else:
                found[rel] = (text, mtime_us)
    return found


def _why(e: OSError) -> str:
    return f"cannot be read ({e.strerror or e}): skipped"


def take_back(db: Path, folder: Path) -> str:
    """What to do when an import finds an agent's edits in the KB that the repository does
    not carry: the loop that takes them back into the same KB file."""
    return (
        f"Take them back: {PROG} export OUT_DIR --db {db}, copy OUT_DIR's files over "
        f"{folder} as written (set a changed title by hand, as export says), commit them, and "
        f"import again with --db {db}"
    )
