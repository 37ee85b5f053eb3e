"""The files a command writes, checked before anything is written, and a KB file written
whole or not at all.

An output is refused when it is not a regular file (a device such as ``/dev/null``, a FIFO,
a socket), when it is another output of the same command or one of the articles read (by
resolved path or by device and inode, so a symlink or a hard link counts as the same file).
An output inside the folder being imported is refused too: it would sit among the docs
as an untracked file. A symlink's target is written, the link kept. A new KB (no file, or
an empty one) is built in a temporary file beside it and renamed over it at the end, so a
refused or failed import leaves what was there untouched; an existing KB is updated in
place in one transaction.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sim.importer.markdown import is_article


class Clash(ValueError):
    """An output cannot be written; the message names the flag and what to do."""


def default_edit_log(db: Path) -> Path:
    """Where an import writes the edit log of the KB file `db`."""
    return db.with_name(f"{db.stem}.edits.csv")


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}.get(
        stat.S_IFMT(mode), "not a regular file"
    )


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: by resolved path, or by device and inode."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(outputs: list[tuple[str, Path]], docs: Path | None = None) -> None:
    """Clash naming the first output (flag, path) that must not be written: not a regular
    file, the same file as an earlier output, or inside `docs` (the folder imported)."""
    for i, (flag, path) in enumerate(outputs):
        try:
            mode = path.stat().st_mode  # follows a symlink: its target is what is written
        except FileNotFoundError:
            mode = None
        except OSError as e:
            raise Clash(f"{flag} {path}: cannot be checked ({e.strerror})") from None
        if mode is not None and not stat.S_ISREG(mode):
            raise Clash(
                f"{flag} {path}: {_kind(mode)}, not a regular file; name a file (it is "
                "created if missing), nothing was written"
            )
        for other, earlier in outputs[:i]:
            if same_file(path, earlier):
                raise Clash(
                    f"{flag} {path}: the same file as {other} {earlier}; name another file, "
                    "nothing was written"
                )
        if docs is not None:
            _outside(flag, path, docs)


def _outside(flag: str, path: Path, docs: Path) -> None:
    """Clash when the output is inside the folder being imported: one of its articles (an
    input), or a new file the import would leave in the docs tree, untracked."""
    where, root = path.resolve(), docs.resolve()
    if not where.is_relative_to(root):
        return
    if is_article(path.name) and where.exists():
        raise Clash(
            f"{flag} {path}: one of the articles DOCS_DIR holds (an input); name a file "
            "outside it, nothing was written"
        )
    raise Clash(
        f"{flag} {path}: inside DOCS_DIR {docs}, the folder being imported (it would be left "
        f"there, untracked, among the docs); name a file outside it, e.g. "
        f"{root.parent / where.name}, nothing was written"
    )


@dataclass
class Draft:
    path: Path
    """The file to write the KB into."""
    keep: bool = False
    """Set once the KB in it is complete and closed: only then does it replace the output."""


@contextlib.contextmanager
def built_whole(path: Path) -> Iterator[Draft]:
    """Where to write a KB: `path`'s target itself when it already holds something, else a
    temporary file beside it that replaces it if the block sets ``keep`` (and is removed,
    with its journal, whatever happens)."""
    target = path.resolve()
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    if st is not None and st.st_size > 0:
        yield Draft(target)
        return
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".importing", dir=target.parent)
    os.close(fd)
    work = Path(name)
    try:
        os.chmod(work, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
        draft = Draft(work)
        yield draft
        if draft.keep:
            os.replace(work, target)
    finally:
        for leftover in (work, work.with_name(work.name + "-journal")):
            leftover.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
