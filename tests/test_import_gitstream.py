"""The history read while git writes it (``sim.importer.gitstream``) is the history read
whole and then its blobs (the way `import` read it before, kept here as the reference): on a
repository with renames, deletions, a symlink, a file past the size limit, a non-UTF-8
name, a merge and more history than a pipe holds; and git's refusals are one-line errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sim.bench.docsrepo import build
from sim.importer import git, gitstream
from sim.importer.git import Change, Commit
from tests.test_import import T0, Repo

LIMIT = 2_000


def _reference(
    root: Path, wanted: object, max_bytes: int
) -> tuple[list[Commit], dict[str, bytes | int]]:
    """The whole log in one read, then one ``git.blobs`` of its wanted changes."""
    text = subprocess.run(
        ["git", "-C", str(root), *gitstream.LOG_ARGS], capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    commits = []
    for record in text.split("\x1e")[1:]:
        tokens = [t.lstrip("\n") for t in record.split("\0")]
        sha, ct, email = tokens[0].split("\x1f")
        commits.append(Commit(sha, int(ct), email, git.parse_changes(tokens[1:])))
    shas = [c.sha for k in commits for c in k.changes if wanted(c)]  # type: ignore[operator]
    return commits, git.blobs(root, list(dict.fromkeys(shas)), max_bytes)


def _wanted(c: Change) -> bool:
    return c.status != "D" and c.mode != git.SYMLINK_MODE and c.path.endswith((".md", ".mdx"))


def _assorted(tmp_path: Path) -> Path:
    repo = Repo(tmp_path / "docs")
    repo.write("a.md", "# A\n\nfirst\n")
    repo.write("guides/b.md", "# B\n\n" + "long line\n" * 400)  # past LIMIT bytes
    repo.write("c.txt", "not an article\n")
    repo.commit(T0)
    repo.git("mv", "a.md", "renamed.md")
    (repo.root / "link.md").symlink_to("renamed.md")
    repo.write("caf\xe9.md".encode("latin-1").decode("utf-8", "surrogateescape"), "# Café\n")
    repo.commit(T0 + 60)
    repo.git("checkout", "-q", "-b", "side")
    repo.write("side.md", "# Side\n\nfrom a branch\n")
    repo.commit(T0 + 120)
    repo.git("checkout", "-q", "main")
    repo.write("guides/b.md", "# B\n\nshort now\n")
    repo.commit(T0 + 180)
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side", at=T0 + 240)
    repo.git("rm", "-q", "renamed.md")
    repo.commit(T0 + 300)
    return repo.root


def test_an_assorted_history_reads_as_the_whole_log_then_its_blobs(tmp_path: Path) -> None:
    root = _assorted(tmp_path)
    got = gitstream.history(root, _wanted, LIMIT)
    assert got == _reference(root, _wanted, LIMIT)
    commits, data = got
    assert len(commits) == 5  # the merge is one commit on the first-parent line
    assert any(isinstance(v, int) and v > LIMIT for v in data.values())  # sized, not read
    assert {c.status for k in commits for c in k.changes} >= {"A", "M", "R", "D"}


def test_more_history_than_a_pipe_holds_reads_the_same(tmp_path: Path) -> None:
    """Some 200 kB of log and 600 blobs: every pipe fills many times while the others wait."""
    root = build(tmp_path / "site", 200)
    got = gitstream.history(root, _wanted, LIMIT)
    assert got == _reference(root, _wanted, LIMIT)
    assert sum(isinstance(v, bytes) for v in got[1].values()) > 200


def test_a_folder_outside_git_is_a_one_line_git_error(tmp_path: Path) -> None:
    with pytest.raises(git.GitError, match=r"^git log failed: fatal: not a git repository"):
        gitstream.history(tmp_path, _wanted, LIMIT)


def test_a_repository_without_commits_is_a_one_line_git_error(tmp_path: Path) -> None:
    Repo(tmp_path / "empty")
    with pytest.raises(git.GitError, match=r"^git log failed: fatal: .*") as e:
        gitstream.history(tmp_path / "empty", _wanted, LIMIT)
    assert "\n" not in str(e.value)
