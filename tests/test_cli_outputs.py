"""A careless command line changes no file: an output that is the input, another output,
a folder, a file of the user's, or in a folder that does not exist; a KB or call log that
is some other file; a value no run can take. Each is one line naming the flag and what to
do, exit status 2, before anything is written, and every file keeps its bytes (found by
driving each command with such input as an operator would)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "sim" / "calibrate" / "logs" / "help-centre-edits.csv"
NOTEBOOK = ROOT / "notebooks" / "explore.py"
CALL = {"t": "2026-01-01T00:00:00Z", "client": "c", "tool": "x", "args": {}, "chars": 1,
        "empty": False, "outcome": "ok", "dispatch_us": 1}  # fmt: skip


def _files(tmp: Path) -> None:
    """The user's files the commands below are pointed at."""
    shutil.copy(LOG, tmp / "log.csv")
    (tmp / "mine.csv").write_text("the user's own table\n")
    (tmp / "precious.txt").write_text("keep me\n")
    (tmp / "not-a-notebook.ipynb").write_text("hello\n")
    (tmp / "empty.sqlite").write_bytes(b"")
    (tmp / "folder").mkdir()
    (tmp / "huge.jsonl").write_text(json.dumps(CALL | {"chars": 10**400}) + "\n")


CASES = [
    (["calibrate", "log.csv", "--out", "log.csv", "--force"], "the same file as the edit log"),
    (["calibrate", "log.csv", "--out", "a.png", "--map-figure", "a.png"], "the same file as --out"),
    (["calibrate", "log.csv", "--out", "folder"], "'folder': a folder, not a file"),
    (["calibrate", "log.csv", "--out", ""], "'.': a folder, not a file"),
    (["sweep", "n_articles=60", "--out", "mine.csv"], "the file exists; pass --force"),
    (["sweep", "n_articles=60", "--out", "nowhere/x.csv"], "its folder does not exist"),
    (["sweep", "n_articles=60", "--methods-out", "folder"], "a folder, not a file"),
    (["sweep", "n_articles=60", "--scheduler", "bogus"], "a Dask scheduler's address"),
    (["reproduce", "--quick", "--scheduler", ""], "a Dask scheduler's address"),
    (["notebook", "--path", str(NOTEBOOK), "-p", "SEEDS=1", "--ipynb", "precious.txt"],
     "expected a file name ending in .ipynb"),
    (["notebook", "--path", str(NOTEBOOK), "-p", "SEEDS=1", "--ipynb", "not-a-notebook.ipynb"],
     "exists and is not a notebook"),
    (["notebook", "--path", str(NOTEBOOK), "-p", "SEEDS=1", "--out", "precious.txt"],
     "a file, not a folder"),
    (["notebook", "--path", "precious.txt"], "expected the notebook's .py"),
    (["advise", "--db", "empty.sqlite"], "an empty file, not a KB"),
    (["serve", "--articles", "5", "--call-log", "log.csv"], "exists and is not a call log"),
    (["log-report", "huge.jsonl"], '"chars" must be an integer from 0 to 2**53'),
    (["sweep", "zipf_s="], "grid axis zipf_s: '' is not a value of zipf_s; expected float"),
    (["sweep", "zipf_s=1", "zipf_s=2"], "grid axis zipf_s: given twice"),
    (["sweep", "push=maybe"], "expected true or false"),
    (["serve", "--max-sessions", "5"], "--max-sessions needs --http"),
    (["advise", "--max-days", "2"], "--max-days: only with --edit-log, --edit-shape or --db"),
    (["import", "folder", "--db", "kb.sqlite", "--base-url", "https://me:secretpass@x.org/"],
     "--base-url: an address with a user name or password (not shown)"),
    (["notebook", "--path", str(NOTEBOOK), "--db", "precious.txt"], "is not a KB file"),
    (["reproduce", "--only", "nope"], "--only: 'nope' is not an experiment; expected some of"),
    (["reproduce", "--only", "cas", "cas"], "--only: cas given twice"),
    (["reproduce", "--only", "cas", "--from-rows"], "--only: not with --from-rows"),
    (["reproduce", "--only", "cas", "--quick"], "--only: not with --quick"),
    (["reproduce", "--only", "cas", "--out", "folder"], "--only: folder/seeds lacks"),
    # a mistyped KB file is created by no command (serve's: tests/test_stdio.py)
    (["advise", "--db", "typo.sqlite"], "--db typo.sqlite: no such file"),
    (["export", "out", "--db", "typo.sqlite"], "--db typo.sqlite: is not a file"),
    (["notebook", "--path", str(NOTEBOOK), "--db", "typo.sqlite"], "typo.sqlite is not a file"),
    (["notebook", "--path", str(NOTEBOOK), "--db", "empty.sqlite"], "is not a KB file"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "says"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_careless_command_is_one_line_and_changes_no_file(
    argv: list[str],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sim.__main__ import main

    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and says in err[0], err
    assert "secretpass" not in err[0]
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_shape_of_more_articles_than_any_help_centre_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand-edited shape (log_articles 10**12) was a traceback from deep in the corpus."""
    from sim.__main__ import main

    out = tmp_path / "shape.json"
    assert main(["calibrate", str(LOG), "--boot", "2", "--out", str(out)]) == 0
    shape = json.loads(out.read_text()) | {"log_articles": 10**12}
    out.write_text(json.dumps(shape))
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(["advise", "--edit-shape", str(out)])
    [err] = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and "log_articles: expected an integer from 1 to 1,000,000" in err


def test_a_file_the_system_refuses_mid_run_is_one_line_and_status_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sim.cli

    def refused(argv: list[str]) -> int:
        raise PermissionError(13, "Permission denied", "ro/kb.sqlite")

    monkeypatch.setattr(sim.cli, "main", refused)
    assert sim.cli.entry(["import", "docs"]) == 1
    [err] = capsys.readouterr().err.strip().splitlines()
    assert (
        err == "python -m sim: error: Permission denied: 'ro/kb.sqlite' (the command stopped there)"
    )


def _path_arguments() -> list[tuple[str, str]]:
    """(command, flag or positional name) of every path every command takes."""
    import argparse

    from sim.cli import COMMANDS
    from sim.cli.common import Parser, a_path

    sub = Parser(prog="python -m sim").add_subparsers(dest="command")
    found = []
    for name, (add, _) in COMMANDS.items():
        for action in add(sub)._actions:
            if action.type is a_path:
                assert not isinstance(action, argparse._StoreConstAction)
                found.append((name, action.option_strings[0] if action.option_strings else ""))
    return found


PATHS = _path_arguments()


@pytest.mark.parametrize(("command", "flag"), PATHS, ids=[" ".join(p) for p in PATHS])
@pytest.mark.parametrize("long", ["x" * 300 + ".out", "d" * 300 + "/kb.sqlite"])
def test_a_name_too_long_for_the_file_system_is_one_line_naming_its_flag(
    command: str,
    flag: str,
    long: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file name longer than the file system takes (ENAMETOOLONG) was met by the command
    as it ran: `serve --call-log` ended with status 1 through the generic handler."""
    from sim.__main__ import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main([command, *([flag] if flag else []), long])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1, err
    assert f"argument {flag or ''}" in err[0] and "file name too long" in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_serve_call_log_too_long_is_exit_2_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case met first, as a user runs it (positional and flag paths are all above)."""
    import sim.cli

    assert ("serve", "--call-log") in PATHS
    with pytest.raises(SystemExit) as stop:
        sim.cli.entry(["serve", "--call-log", str(tmp_path / ("c" * 300))])
    assert stop.value.code == 2
    [err] = capsys.readouterr().err.strip().splitlines()
    assert err.startswith("python -m sim serve: error: argument --call-log: file name too long")
