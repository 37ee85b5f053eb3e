"""A folder's history and the blobs it names, read while git is still writing the log.

``git log --numstat`` diffs every changed file of every commit: on a docs site of 10,000
articles it is a third of the import, all of it git's work on one core. Read one after the
other, the log and then its blobs (``git cat-file``) leave the other core idle; here the
log is read as git writes it, each piece's wanted blobs are asked for at once, and two
threads drain ``cat-file --batch-check`` (which blobs are short enough to read) and
``cat-file --batch`` (their bytes) beside it. What comes back is what reading the whole log
and then ``git.blobs`` of its changes gives (tests/test_import_gitstream.py).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

from sim.importer.git import (
    WALKS,
    Change,
    Commit,
    GitError,
    batch_contents,
    parse_changes,
    split_sizes,
)

LOG_ARGS = (
    "log", *WALKS[False], "--raw", "--numstat", "-M", "-z", "--no-abbrev",
    "--relative", "--format=%x1e%H%x1f%ct%x1f%ae", "--reverse", "HEAD", "--", ".",
)  # fmt: skip
"""The first-parent line of HEAD, oldest first, each commit's sha, time and author's email
after a record separator, then its changes (``git.parse_changes``); ``log_args`` puts
another walk (``git.WALKS``) in its place."""


def log_args(all_commits: bool) -> tuple[str, ...]:
    """LOG_ARGS with the walk ``all_commits`` picks."""
    return ("log", *WALKS[all_commits], *LOG_ARGS[1 + len(WALKS[False]) :])


CHUNK = 1 << 16


def history(
    root: Path, wanted: Callable[[Change], bool], max_bytes: int, all_commits: bool = False
) -> tuple[list[Commit], dict[str, bytes | int]]:
    """Every first-parent commit of HEAD (every commit, with ``all_commits``) that changes
    something under root, oldest first, and
    the bytes of each blob of a change ``wanted`` picks up to ``max_bytes`` long (the size of
    each longer one, never read)."""
    procs: list[tuple[subprocess.Popen[bytes], IO[bytes], str]] = []
    with (
        tempfile.TemporaryFile() as log_err,
        tempfile.TemporaryFile() as check_err,
        tempfile.TemporaryFile() as batch_err,
        ThreadPoolExecutor(2, thread_name_prefix="cat-file") as drains,
    ):
        try:
            log = _start(root, procs, log_err, *log_args(all_commits))
            check = _start(root, procs, check_err, "cat-file", "--batch-check", "--buffer")
            batch = _start(root, procs, batch_err, "cat-file", "--batch", "--buffer")
            sizes = drains.submit(_sizes, check, batch, max_bytes)
            contents = drains.submit(_contents, batch)
            commits = _read_log(log, check, wanted)
            data: dict[str, bytes | int] = {**sizes.result(), **contents.result()}
            for proc, err, what in procs:
                if proc.wait() != 0:
                    raise GitError(f"git {what} failed: {_last_line(err) or proc.returncode}")
            return commits, data
        finally:  # on an error git is stopped, so the drains reach the end of their pipes
            for proc, _, _ in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                for pipe in (proc.stdin, proc.stdout):
                    if pipe is not None:
                        with contextlib.suppress(OSError):
                            pipe.close()


def _start(
    root: Path,
    procs: list[tuple[subprocess.Popen[bytes], IO[bytes], str]],
    err: IO[bytes],
    *args: str,
) -> subprocess.Popen[bytes]:
    """git with its error output in a file (a pipe nobody reads could stall it)."""
    try:
        proc = subprocess.Popen(
            ["git", "-C", str(root), *args],
            stdin=subprocess.PIPE if args[0] == "cat-file" else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    except OSError as e:
        raise GitError(f"cannot run git ({e.strerror}); install git") from None
    procs.append((proc, err, args[0]))
    return proc


def _read_log(
    log: subprocess.Popen[bytes], check: subprocess.Popen[bytes], wanted: Callable[[Change], bool]
) -> list[Commit]:
    """The log's commits as they come; each piece's new wanted blobs asked of ``check`` in
    one write (few, large hand-offs between the threads: each costs a turn of the GIL)."""
    assert log.stdout is not None and check.stdin is not None
    out: list[Commit] = []
    asked: set[str] = set()
    for records in _records(log.stdout, b"\x1e"):
        _ask(check.stdin, _commits(records, out, asked, wanted))
    with contextlib.suppress(BrokenPipeError):
        check.stdin.close()
    return out


def _commits(
    records: list[bytes], out: list[Commit], asked: set[str], wanted: Callable[[Change], bool]
) -> list[str]:
    """The records' commits appended to ``out``; their wanted blobs not asked for before."""
    new = []
    for record in records:
        if not record:  # before the first commit's separator
            continue
        tokens = [t.lstrip("\n") for t in record.decode("utf-8", "surrogateescape").split("\0")]
        sha, ct, email = tokens[0].split("\x1f")
        commit = Commit(sha, int(ct), email, parse_changes(tokens[1:]))
        out.append(commit)
        for c in commit.changes:
            if c.sha not in asked and wanted(c):
                asked.add(c.sha)
                new.append(c.sha)
    return new


def _pieces(pipe: IO[bytes]) -> Iterator[bytes]:
    """What the pipe holds, as it comes, up to CHUNK bytes a read (one system call each)."""
    while piece := os.read(pipe.fileno(), CHUNK):
        yield piece


def _records(pipe: IO[bytes], sep: bytes) -> Iterator[list[bytes]]:
    """The pipe's output split at ``sep`` as it comes: the records each read completes, then
    the last one once the pipe ends."""
    rest = b""
    for piece in _pieces(pipe):
        *records, rest = (rest + piece).split(sep)
        yield records
    yield [rest]


def _ask(pipe: IO[bytes], shas: list[str]) -> None:
    if shas:
        with contextlib.suppress(BrokenPipeError):  # cat-file ended: its status says why
            pipe.write("".join(f"{s}\n" for s in shas).encode())
            pipe.flush()


def _sizes(
    check: subprocess.Popen[bytes], batch: subprocess.Popen[bytes], max_bytes: int
) -> dict[str, int]:
    """The sizes of the blobs longer than max_bytes, from --batch-check; the others asked of
    --batch a piece of output at a time. The check's output is read to its end even if
    --batch has ended."""
    assert check.stdout is not None and batch.stdin is not None
    out: dict[str, int] = {}
    for lines in _records(check.stdout, b"\n"):
        long, short = split_sizes(lines, max_bytes)
        out |= long
        _ask(batch.stdin, short)
    with contextlib.suppress(BrokenPipeError):
        batch.stdin.close()
    return out


def _contents(batch: subprocess.Popen[bytes]) -> dict[str, bytes]:
    """Each blob's bytes from --batch, its output read whole first: the pipe is drained in
    large pieces, and parsed once git is done."""
    assert batch.stdout is not None
    return batch_contents(b"".join(_pieces(batch.stdout)))


def _last_line(err: IO[bytes]) -> str:
    err.seek(0)
    lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""
