"""The folder's git history and its files at HEAD, through the git command line.

We call ``git`` itself (as ``sim.calibrate.gitlog`` does): it is the reference
implementation of rename detection (``-M``) and needs no library. History is the
first-parent line of HEAD, oldest first, a merge counting as one commit with its diff
against the first parent (what the site published, merge by merge); with ``all_commits``
every commit reachable from HEAD, a side branch's each its own (``WALKS``). Paths are
relative to the folder (``--relative``); it is read, with its blobs, by ``gitstream``.
Here: its records, their changes' parsing, and git's plain calls.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

SYMLINK_MODE = "120000"


WALKS = {
    False: ("--first-parent", "-m"),
    True: ("--date-order", "--no-merges"),
}
"""``git log``'s walk by ``all_commits``: the first-parent line, each merge one commit with
its diff against the first parent; or every commit, oldest first by date, merges left out
(their changes are their branches' commits, each counted where it was made; so a merge's
own conflict resolution is no version of its own, the next commit to the file carries it)."""
COUNTED = {
    False: "first-parent commits of HEAD (a merged branch counts as one publish, its merge)",
    True: "every commit reachable from HEAD, a merged branch's each one publish (merges none)",
}
"""Which commits a log counts, as --help and the outputs say it."""


class GitError(Exception):
    """git could not be run or refused; the message is one line."""


@dataclass(frozen=True, slots=True)
class Change:
    status: str
    """git's status letter: A, M, D, R, C or T."""
    old_path: str
    path: str
    mode: str
    """The new file's mode (the old one's for a deletion); 120000 is a symlink."""
    sha: str
    """The new blob (the old one for a deletion)."""
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    time_s: int
    author: str
    changes: tuple[Change, ...]


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False
        )
    except OSError as e:
        raise GitError(f"cannot run git ({e.strerror}); install git") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {err[-1] if err else done.returncode}")
    return done.stdout


def has_history(root: Path) -> bool:
    """Whether root is in a git work tree with at least one commit."""
    try:
        return _git(root, "rev-parse", "--is-inside-work-tree").strip() == b"true" and bool(
            _git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}").strip()
        )
    except GitError:
        return False


def parse_changes(tokens: list[str]) -> tuple[Change, ...]:
    """One commit's entries of `git log --raw --numstat -z` (the tokens after its header),
    with the lines each path gained and lost (0 and 0 for a binary file)."""
    raw: list[tuple[str, str, str, str, str]] = []
    lines: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith(":"):
            old_mode, new_mode, old_sha, new_sha, status = tok[1:].split()[:5]
            letter = status[0]
            if letter in "RC":
                old, new = tokens[i + 1], tokens[i + 2]
                i += 3
            else:
                old = new = tokens[i + 1]
                i += 2
            if letter == "D":
                raw.append((letter, old, new, old_mode, old_sha))
            else:
                raw.append((letter, old, new, new_mode, new_sha))
            continue
        if tok.count("\t") == 2:
            added, removed, path = tok.split("\t")
            if not path:  # a rename: the two paths follow
                path = tokens[i + 2]
                i += 2
            lines[path] = (_count(added), _count(removed))
        i += 1
    return tuple(Change(*r, *lines.get(r[2], (0, 0))) for r in raw)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0  # "-" for a binary file


def head_files(root: Path) -> dict[str, tuple[str, str]]:
    """The files under root at HEAD: relative path → (mode, blob sha)."""
    out = {}
    for entry in _git(root, "ls-tree", "-r", "-z", "HEAD", ".").split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind == "blob":
            out[path.decode("utf-8", "surrogateescape")] = (mode, sha)
    return out


def blobs(root: Path, shas: list[str], max_bytes: int) -> dict[str, bytes | int]:
    """The bytes of each blob up to max_bytes long, read by one ``git cat-file --batch``;
    the size of each longer one (never read)."""
    if not shas:
        return {}
    sizes = _git(root, "cat-file", "--batch-check", stdin="\n".join(shas).encode() + b"\n")
    long, short = split_sizes(sizes.split(b"\n"), max_bytes)
    if not short:
        return {**long}
    data = _git(root, "cat-file", "--batch", stdin="\n".join(short).encode() + b"\n")
    return {**long, **batch_contents(data)}


def split_sizes(lines: list[bytes], max_bytes: int) -> tuple[dict[str, int], list[str]]:
    """``cat-file --batch-check``'s lines: the blobs longer than max_bytes with their sizes,
    and the shas of the others; a blank line, or a blob git does not have (a submodule's
    commit, a partial clone's: "<sha> missing"), in neither."""
    long: dict[str, int] = {}
    short = []
    for line in lines:
        sha, *kind_size = line.decode().split() or [""]
        if len(kind_size) != 2:
            continue
        if int(kind_size[1]) > max_bytes:
            long[sha] = int(kind_size[1])
        else:
            short.append(sha)
    return long, short


def batch_contents(data: bytes) -> dict[str, bytes]:
    """``cat-file --batch``'s output: each object's bytes by sha (a header line, the bytes,
    a newline)."""
    out = {}
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        sha, _, size = data[at:end].decode().split()
        out[sha] = data[end + 1 : end + 1 + int(size)]
        at = end + 1 + int(size) + 1
    return out


def untracked(root: Path) -> list[str]:
    """Files under root git does not know and does not ignore."""
    text = _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".")
    return [p for p in text.decode("utf-8", "surrogateescape").split("\0") if p]


def uncommitted(root: Path) -> list[str]:
    """Files under root whose working text differs from HEAD's."""
    text = _git(root, "diff", "--name-only", "--relative", "-z", "HEAD", "--", ".")
    return [p for p in text.decode("utf-8", "surrogateescape").split("\0") if p]
