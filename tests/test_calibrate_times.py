"""`calibrate` takes only the times its help documents (UTC ISO 8601 as YYYY-MM-DDTHH:MM:SSZ
in ASCII digits, from 1970 to 2100, a later publish never earlier) and refuses the rest in one
line naming the line, the column, the value escaped and the format; a log at either end of
the years runs in seconds (year 9999 ran for hours); `--git` writes only such rows."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from sim.__main__ import main
from sim.calibrate import logs
from sim.calibrate.gitlog import git_log_text
from tests.test_calibrate_cli import HEADER, _commit, _git, _run

GOOD = "2024-01-01T10:00:00Z,0,u001,a0001,add,5,0\n2024-01-02T10:00:00Z,1,u001,a0001,modify,1,1\n"


@pytest.mark.parametrize(
    ("time_text", "shown", "says"),
    [
        ("2024-01-03T10:00:00+05:00", "'2024-01-03T10:00:00+05:00'", "no offset"),
        ("2024-01-03T10:00:00.250Z", "'2024-01-03T10:00:00.250Z'", "no fraction of a second"),
        ("2024-01-03T23:59:60Z", "'2024-01-03T23:59:60Z'", "a second 60"),
        ("２０２４-01-03T10:00:00Z", r"'\uff12\uff10\uff12\uff14-01-03T10:00:00Z'", "ASCII"),
        ("٢٠٢٤-01-03T10:00:00Z", r"'\u0662\u0660\u0662\u0664-01-03T10:00:00Z'", "ASCII"),
        ("9999-01-03T10:00:00Z", "'9999-01-03T10:00:00Z'", "outside 1970-01-01T00:00:00Z to"),
        ("1969-12-31T23:59:59Z", "'1969-12-31T23:59:59Z'", "outside 1970-01-01T00:00:00Z to"),
        ("2024-01-01T09:00:00Z", "2024-01-01T09:00:00Z of publish 2 is before", "stamped earlier"),
    ],
)
def test_a_time_not_in_the_documented_form_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], time_text: str, shown: str, says: str
) -> None:
    log = tmp_path / "bad.csv"
    log.write_text(HEADER + GOOD + f"{time_text},2,u001,a0001,modify,1,1\n", encoding="utf-8")
    started = time.perf_counter()
    code, out, err = _run(["calibrate", str(log), "--out", str(tmp_path / "s.json")], capsys)
    assert time.perf_counter() - started < 30
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"bad.csv: line 4: time {shown}" in err and says in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]
    with pytest.raises(logs.LogError, match="line 3: time"):  # an import's rows, alike
        rows = [r.split(",") for r in (GOOD.splitlines()[0], log.read_text().splitlines()[-1])]
        logs.from_rows([[*r[:1], int(r[1]), *r[2:5], 1, 1] for r in rows], "rows")


def test_a_publish_number_in_other_digits_is_refused_naming_its_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bad.csv"
    log.write_text(HEADER + GOOD + "2024-01-03T10:00:00Z,٢,u001,a0001,modify,1,1\n")
    code, _, err = _run(["calibrate", str(log), "--out", str(tmp_path / "s.json")], capsys)
    assert code == 2 and r"line 4: publish '\u0662' is not a whole number" in err, err


def test_the_help_states_the_form_and_the_years(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["calibrate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "UTC ISO 8601 as YYYY-MM-DDTHH:MM:SSZ" in text
    assert f"from {logs.TIME_TEXTS[0]} to {logs.TIME_TEXTS[1]}" in text
    assert str(logs.TIMES) == "(0, 4133980799)"  # the two texts in Unix seconds


def test_a_log_at_both_ends_of_the_years_runs_in_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fit's runs draw every clock hour of the log's span: the longest span a log may
    hold is 131 years, some 1.1 M hours a run (year 9999 was 70 M and ran for hours)."""
    log = tmp_path / "ends.csv"
    rows = [f"{logs.TIME_TEXTS[0]},0,u001,a0001,add,5,0"]
    rows += [f"2024-01-0{d}T10:00:00Z,{d},u001,a000{1 + d % 2},modify,1,1" for d in range(1, 8)]
    rows += [f"{logs.TIME_TEXTS[1]},8,u001,a0002,modify,1,1"]
    log.write_text(HEADER + "\n".join(rows) + "\n")
    started = time.process_time()
    code, out, err = _run(
        ["calibrate", str(log), "--out", str(tmp_path / "s.json"), "--boot", "2"], capsys
    )
    assert code == 0, err
    assert "1970-01-01 to 2100-12-31" in out
    assert time.process_time() - started < 20  # CPU seconds, all threads: about 3 alone


def _dated(repo: Path, stamp: int, name: str) -> None:
    """A commit of ``name`` stamped ``stamp`` (Unix seconds)."""
    (repo / name).write_text(f"{name} at {stamp}\n")
    _git(repo, "add", "-A")
    date = f"@{stamp} +0000"
    env = os.environ | {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    who = ["-c", "user.name=W", "-c", "user.email=w@example.com"]
    subprocess.run(["git", "-C", str(repo), *who, "commit", "-qm", name], check=True, env=env)


def test_git_takes_a_commit_stamped_earlier_at_the_time_before_it(tmp_path: Path) -> None:
    repo = tmp_path / "help"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, 0, {"en/a.md": "a\n", "en/b.md": "b\n"})
    _dated(repo, 1_600_000_000, "en/a.md")  # a skewed clock: before the first commit
    _dated(repo, 1_700_100_000, "en/b.md")
    text = git_log_text(repo, "en/")
    times = [line.split(",")[0] for line in text.splitlines()[1:]]
    assert times == ["2023-11-14T22:13:20Z"] * 3 + ["2023-11-16T02:00:00Z"]
    assert len(logs.parse_log(text.encode(), "git")) == 4


def test_git_refuses_a_commit_past_2100_naming_it(tmp_path: Path) -> None:
    repo = tmp_path / "help"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, 0, {"en/a.md": "a\n"})
    _dated(repo, logs.TIMES[1] + 1, "en/a.md")
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with pytest.raises(logs.LogError, match=f"commit {head[:12]} is stamped .* outside 1970"):
        git_log_text(repo, "en/")
