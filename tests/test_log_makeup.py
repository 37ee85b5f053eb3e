"""What a log is made of: which commits count (first-parent, or every one with
--all-commits) in `calibrate --git` and `import`, a file holding more than 20 % of the saves
named with its share and the answer without it, and a gzip log read as its CSV."""

from __future__ import annotations

import csv
import gzip
import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sim.calibrate.gitlog import git_log_text
from sim.calibrate.logs import LogError, read_log
from sim.studymap import dominant
from tests.test_calibrate_cli import _run

HEADER = "time,publish,author,article,change,lines_added,lines_removed"


def _git(repo: Path, *args: str, when: int = 0) -> None:
    stamp = f"{1_700_000_000 + when} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Writer",
        "GIT_AUTHOR_EMAIL": "w@example.com",
        "GIT_COMMITTER_NAME": "Writer",
        "GIT_COMMITTER_EMAIL": "w@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit(repo: Path, when: int, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"commit {when}", when=when)


@pytest.fixture
def merged(tmp_path: Path) -> Path:
    """main: one commit; a side branch of 3 commits to docs/, merged with --no-ff."""
    repo = tmp_path / "site"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, 0, {"docs/a.md": "# A\n\nfirst\n", "docs/b.md": "# B\n\nfirst\n"})
    _git(repo, "checkout", "-q", "-b", "side")
    for i, name in enumerate("aba"):
        _commit(repo, 3600 * (i + 1), {f"docs/{name}.md": f"# {name}\n\nedit {i}\n"})
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", when=20_000)
    return repo


def _publishes(text: str) -> list[int]:
    rows = list(csv.reader(text.splitlines()))[1:]
    return sorted({int(r[1]) for r in rows})


def test_first_parent_counts_a_merge_once_and_all_commits_each_commit(merged: Path) -> None:
    assert len(_publishes(git_log_text(merged, "docs/"))) == 1 + 1  # the first, the merge
    assert len(_publishes(git_log_text(merged, "docs/", all_commits=True))) == 1 + 3


def test_calibrate_says_which_commits_count(merged: Path, tmp_path: Path, capsys) -> None:
    code, out, _ = _run(["calibrate", "--help"], capsys)
    assert code == 0 and "--all-commits" in out and "first-parent" in out
    for flag, words, publishes in (([], "first-parent", 2), (["--all-commits"], "every", 4)):
        log_out = tmp_path / f"log{len(flag)}.csv"
        argv = ["calibrate", "--git", str(merged), "--path", "docs/", "--boot", "5"]
        argv += ["--out", str(tmp_path / f"s{len(flag)}.json"), "--log-out", str(log_out)]
        code, out, err = _run([*argv, *flag], capsys)
        assert code == 0, err
        assert f"Commits counted: {words}" in out
        assert len(_publishes(log_out.read_text())) == publishes
    code, _, err = _run(["calibrate", "x.csv", "--all-commits"], capsys)
    assert code == 2 and "--all-commits goes with --git" in err


def test_import_says_which_commits_count(merged: Path, tmp_path: Path, capsys) -> None:
    code, out, _ = _run(["import", "--help"], capsys)
    assert code == 0 and "--all-commits" in out and "first-parent" in out
    for flag, words, publishes in (([], "first-parent", 2), (["--all-commits"], "every", 4)):
        db, log = tmp_path / f"kb{len(flag)}.db", tmp_path / f"kb{len(flag)}.csv"
        argv = ["import", str(merged / "docs"), "--db", str(db), "--edit-log", str(log)]
        code, out, err = _run([*argv, *flag], capsys)
        assert code == 0, err
        assert f"commits counted: {words}" in out
        assert len(_publishes(log.read_text())) == publishes


def _log_rows(n_big: int, n_small: int) -> list[tuple]:
    """A changelog saved every day, and five articles saved once a month each."""
    rows: list[tuple] = []
    day = 86_400
    events = [(i * day, "changelog") for i in range(n_big)]
    events += [(i * 30 * day + 3600 * k, f"page{k}") for i in range(n_small) for k in range(1, 6)]
    seen: set[str] = set()
    for p, (t, article) in enumerate(sorted(events)):
        when = datetime.fromtimestamp(1_600_000_000 + t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        rows.append((when, p, "u001", article, "modify" if article in seen else "add", 1, 1))
        seen.add(article)
    return rows


def test_a_dominating_file_is_named_with_its_share_and_the_answer_without_it() -> None:
    rows = _log_rows(400, 12)  # 400 of 460 rows
    d = dominant.find(rows, "log")
    assert d is not None and d.article == "changelog" and d.rows == 400 and d.total == 460
    assert d.share == pytest.approx(400 / 460)
    got = {(r["age_s"], r["draw"]): r["measured"] for r in d.without}
    assert set(got) == {(a, w) for a in dominant.AGES_S for w in ("popularity", "uniform")}
    text = dominant.render(d, [])
    assert "One file holds 87 % of the log's saves: changelog, 400 of 460 rows" in text
    assert dominant.find(_log_rows(10, 12), "log") is None  # 10 of 70: not above 20 %


def test_calibrate_and_import_name_a_dominating_file(tmp_path: Path, capsys) -> None:
    log = tmp_path / "log.csv"
    with log.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([HEADER.split(","), *_log_rows(400, 12)])
    argv = ["calibrate", str(log), "--boot", "5", "--out", str(tmp_path / "s.json")]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "One file holds 87 % of the log's saves: changelog" in out
    assert "Without it, stale within 1 d popularity" in out
    code, out, err = _run([*argv, "--json", "--force"], capsys)
    assert code == 0, err
    named = json.loads(out)["dominant_file"]
    assert (named["article"], named["rows"], named["of_rows"]) == ("changelog", 400, 460)
    repo = tmp_path / "site"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, 0, {f"docs/p{k}.md": f"# P{k}\n\ntext\n" for k in range(4)})
    for i in range(12):
        _commit(repo, 86_400 * (i + 1), {"docs/release-notes.md": f"# Notes\n\n{i}\n"})
    code, out, err = _run(["import", str(repo / "docs"), "--db", str(tmp_path / "kb.db")], capsys)
    assert code == 0, err
    assert "One file holds 75 % of the log's saves: release-notes, 12 of 16 rows" in out


def test_a_gzip_log_reads_as_its_csv_and_a_broken_one_is_one_line(tmp_path: Path) -> None:
    text = f"{HEADER}\n2024-01-01T10:00:00Z,0,u001,a0001,add,5,0\n"
    plain, packed = tmp_path / "log.csv", tmp_path / "log.csv.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode(), mtime=0))
    a, b = read_log(plain), read_log(packed)
    assert (a.epoch_s == b.epoch_s).all() and a.n_articles == b.n_articles == 1
    packed.write_bytes(gzip.compress(text.encode(), mtime=0)[:-9])
    with pytest.raises(LogError, match="gzip file that cannot be decompressed"):
        read_log(packed)


def test_import_writes_a_log_calibrate_reads_from_a_clock_that_went_back(
    tmp_path: Path, capsys
) -> None:
    """A commit stamped before its parent (a skewed clock): import's edit log takes it at the
    parent's time, as `calibrate --git` does, so the log it writes is one calibrate reads."""
    repo = tmp_path / "docs"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, 3_600, {"a.md": "# A\n\nfirst\n", "b.md": "# B\n\nfirst\n"})
    _commit(repo, 0, {"a.md": "# A\n\nsecond\n"})  # an hour before its parent
    _commit(repo, 7_200, {"b.md": "# B\n\nsecond\n"})
    db = tmp_path / "kb.sqlite"
    code, _out, err = _run(["import", str(repo), "--db", str(db)], capsys)
    assert code == 0, err
    log_path = tmp_path / "kb.edits.csv"
    times = [row["time"] for row in csv.DictReader(log_path.open())]
    assert times == sorted(times) and len(times) == 4
    assert times[2] == times[0]  # the skewed commit at its parent's time
    assert read_log(log_path).n_articles == 2
