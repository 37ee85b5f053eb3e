"""Extract an edit log from a git repository of markdown articles, with the git CLI.

Each first-parent commit of the checked-out (default) branch that changes a markdown file
under the folder is one publish, at its committer time: a new file is ``add``, a changed one
``modify``, a rename (git's rename detection, ``-M``) ``rename`` keeping the article's id, a
deletion ``delete``. Merge commits count as one publish with their diff against the first
parent (``-m --first-parent``); with ``all_commits`` every commit reachable from HEAD is
one, merges none (``sim.importer.git.WALKS``). Authors and articles get pseudonyms in order of first
appearance (u001, a0001), so the output holds facts only. We call ``git`` itself through
subprocess rather than a Python git library: it is the reference implementation of rename
detection and needs no new dependency.
"""

from __future__ import annotations

import csv
import io
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from sim.calibrate.logs import COLUMNS, LogError
from sim.importer.git import WALKS, parse_changes

MARKDOWN = (".md", ".markdown")
_FORMAT = "%x1e%H%x1f%ct%x1f%ae"


def git_log_text(repo: str | Path, folder: str, all_commits: bool = False) -> str:
    """The log of ``folder`` in ``repo`` as CSV text in the shared format."""
    return git_log(repo, folder, all_commits)[0]


def git_log(repo: str | Path, folder: str, all_commits: bool = False) -> tuple[str, dict[str, str]]:
    """``git_log_text``, and each article id's last path (the file a caller names)."""
    cmd = [
        "git", "-C", str(repo), "log", *WALKS[all_commits], "--raw", "--numstat", "-M",
        "-z", f"--format={_FORMAT}", "--reverse", "HEAD", "--", folder,
    ]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, check=False)
    except OSError as e:
        raise LogError(f"--git: cannot run git ({e.strerror}); install git") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LogError(f"--git {repo}: git log failed: {err[-1] if err else done.returncode}")
    paths: dict[str, str] = {}
    rows = _rows(done.stdout.decode("utf-8", "replace"), paths)
    if not rows:
        raise LogError(f"--git {repo} --path {folder}: no commit changes a markdown file there")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return out.getvalue(), paths


def _rows(text: str, paths: dict[str, str]) -> list[tuple]:
    ids = _Ids()
    authors: dict[str, str] = {}
    rows: list[tuple] = []
    publish = 0
    for record in text.split("\x1e")[1:]:
        tokens = [t.lstrip("\n") for t in record.split("\0")]
        _, ct, email = tokens[0].split("\x1f")
        when = datetime.fromtimestamp(int(ct), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        emitted = False
        for c in parse_changes(tokens[1:]):
            row = _change(c.status, c.old_path, c.path, ids)
            if row is None:
                continue
            change, article, paths[article] = row
            author = authors.setdefault(email, f"u{len(authors) + 1:03d}")
            rows.append((when, publish, author, article, change, c.added, c.removed))
            emitted = True
        publish += emitted
    return rows


def _change(status: str, old: str, new: str, ids: _Ids) -> tuple[str, str, str] | None:
    """(change, article id, path) of one raw entry, or None when no markdown article moves."""
    was, now = old.lower().endswith(MARKDOWN), new.lower().endswith(MARKDOWN)
    if status == "R" and was and now:
        article = ids.pop(old, None) or ids.new()
        ids[new] = article
        return "rename", article, new
    if status in "AC" or (status == "R" and now):
        if not now:
            return None
        ids[new] = ids.new()
        return "add", ids[new], new
    if status == "D" or (status == "R" and was):
        if not was or old not in ids:
            return None
        return "delete", ids.pop(old), old
    if not now:
        return None
    if new not in ids:  # changed but never seen added (history cut by the pathspec)
        ids[new] = ids.new()
    return "modify", ids[new], new


class _Ids(dict):
    """Path → article id; ids are never reused, so a deleted article's id stays its own."""

    issued = 0

    def new(self) -> str:
        self.issued += 1
        return f"a{self.issued:04d}"
