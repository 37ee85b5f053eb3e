"""A generated docs site in git, for timing `import` and `advise --db` at a real site's size.

`n` Markdown articles in topic folders, then a year of working-hour commits: most touch one
article (Zipf-popular), some many at once (a bulk publish), some rename an article, add a
draft or delete one. Built with one ``git fast-import`` (seconds at 10,000 articles, where a
commit a process would take minutes); the same `n` and seed give the same repository.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sim.popularity import zipf_weights

WORDS = [
    "invoice",
    "account",
    "password",
    "export",
    "import",
    "team",
    "billing",
    "login",
    "report",
    "webhook",
    "alert",
    "backup",
    "profile",
    "plan",
    "seat",
    "invite",
    "audit",
    "token",
    "folder",
    "filter",
    "search",
    "share",
]
START_S = 1_672_560_000  # 2023-01-01T08:00:00Z


def _article(rng: np.random.Generator, i: int, rev: int, draft: bool = False) -> str:
    words = rng.choice(WORDS, 3, replace=False)
    title = f"How to {words[0]} the {words[1]} {i}"
    body = "\n\n".join(
        f"## Step {k + 1}\n\n" + " ".join(rng.choice(WORDS, 40)) + f". Revision {rev}."
        for k in range(3)
    )
    flag = "draft: true\n" if draft else ""
    return f"---\ntitle: {title}\n{flag}---\n# {title}\n\n{body}\n"


def build(
    root: Path, n: int, commits: int | None = None, seed: int = 1, mean_gap_s: float = 3 * 3600
) -> Path:
    """Write the repository under root (a new folder) and return it; commits come a mean
    ``mean_gap_s`` apart in working hours (a quiet site's history spans years)."""
    rng = np.random.default_rng(seed)
    commits = commits if commits is not None else 2 * n
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    paths = [f"topic-{i % 20:02d}/article-{i:05d}.md" for i in range(n)]
    weights = zipf_weights(n, 0.9)
    stream: list[bytes] = []
    mark = 0

    def commit(
        at: int,
        files: dict[str, str],
        renames: Sequence[tuple[str, str]] = (),
        deletes: Sequence[str] = (),
    ) -> None:
        nonlocal mark
        mark += 1
        msg = b"edit"
        head = (
            f"commit refs/heads/main\nmark :{mark}\n"
            f"committer Writer <w@example.org> {at} +0000\ndata {len(msg)}\n"
        ).encode()
        stream.append(head + msg + b"\n")
        if mark > 1:
            stream.append(f"from :{mark - 1}\n".encode())
        for old, new in renames:
            stream.append(f'R "{old}" "{new}"\n'.encode())
        for path in deletes:
            stream.append(f'D "{path}"\n'.encode())
        for path, text in files.items():
            data = text.encode()
            stream.append(f'M 100644 inline "{path}"\ndata {len(data)}\n'.encode() + data + b"\n")

    commit(START_S, {p: _article(rng, i, 0) for i, p in enumerate(paths)})
    rev = [0] * n
    at = START_S
    for _ in range(commits):
        at += int(rng.exponential(mean_gap_s)) + 1
        if (at - START_S) % 86_400 > 10 * 3600:  # evenings and nights: next morning
            at += 86_400 - (at - START_S) % 86_400
        kind = rng.random()
        picked: np.ndarray | list[int]
        if kind < 0.03:  # a bulk publish
            picked = rng.choice(n, min(n, 50), replace=False, p=weights)
        else:
            picked = [int(rng.choice(n, p=weights))]
        files = {}
        for i in picked:
            rev[i] += 1
            files[paths[i]] = _article(rng, int(i), rev[i])
        renames: list[tuple[str, str]] = []
        deletes: list[str] = []
        if kind > 0.98:
            i = int(rng.integers(n))
            new = paths[i].replace(".md", "-renamed.md")
            renames.append((paths[i], new))
            files.pop(paths[i], None)
            paths[i] = new
        elif kind > 0.97:
            files[f"drafts/draft-{at}.md"] = _article(rng, n, 0, draft=True)
        commit(at, files, renames, deletes)
    subprocess.run(
        ["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(stream), check=True
    )
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "main"], check=True)
    return root
