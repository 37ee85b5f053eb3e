"""`python -m sim log-report` on a file that is not quite a call log: every bad line is
named by its number and problem in one line on stderr, exit status 2, with or without
--json; any bytes in any line, any JSON value, never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.__main__ import main
from sim.bench.stdio import ROOT
from tests.conftest import examples
from tests.test_kb_fuzz import ANY_CHAR

GOOD = json.dumps(
    {
        "t": "2026-11-06T21:20:00.000000Z",
        "client": "c",
        "tool": "search_knowledge_base",
        "args": {},
        "chars": 10,
        "empty": False,
        "outcome": "ok",
        "dispatch_us": 5,
    }
)


def _run(path: Path, *flags: str) -> tuple[int, str, str]:
    """log-report in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["log-report", str(path), *flags])
        except SystemExit as e:
            status = int(e.code or 0)
    return status, out.getvalue(), err.getvalue()


BAD_LINES = [
    b"[1,2]",
    b'"x"',
    b"null",
    b"42",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    b"\xff\xfe\x00garbage",
    b"{",
    b"9" * 5_000,
    GOOD.replace('"chars": 10', '"chars": "10"').encode(),
    GOOD.replace('"args": {}', '"args": [1]').encode(),
    GOOD.replace('"t": "2026-11-06T21:20:00.000000Z"', '"t": 5').encode(),
    GOOD.replace('"empty": false', '"empty": 0').encode(),
    b'{"kind": "call"}',
    b"NaN",
]


@pytest.mark.parametrize("bad", BAD_LINES, ids=range(len(BAD_LINES)))
@pytest.mark.parametrize("flags", [[], ["--json"]], ids=["table", "json"])
def test_a_bad_line_is_named_by_number_and_exits_2(
    tmp_path: Path, bad: bytes, flags: list[str]
) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(GOOD.encode() + b"\n\n" + bad + b"\n" + GOOD.encode() + b"\n")
    status, out, err = _run(path, *flags)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "line 3" in err and str(path) in err and "Traceback" not in err
    assert len(err) < 600


def _log_report(serve_command: list[str], *args: str) -> list[str]:
    """`python -m sim log-report ARGS` in a process of its own, forked from this worker's
    zygote (tests/forkserve.py): the command's own streams and exit status, without an
    interpreter's start and imports each (test_forkserve holds a forked command to the real
    start's status and words)."""
    assert serve_command[-1] == "serve", serve_command
    return [*serve_command[:-1], "log-report", *args]


def test_the_command_line_itself_gives_one_line_and_exit_2(
    tmp_path: Path, serve_command: list[str]
) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + b"[" * 100_000 + b"\n")
    for flags in ([], ["--json"]):
        run = subprocess.run(
            _log_report(serve_command, str(path), *flags),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2 and run.stdout == ""
        assert len(run.stderr.strip().splitlines()) == 1 and "line 2" in run.stderr, run.stderr


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(ANY_CHAR, max_size=20)
    | st.sampled_from(["\ud800", "2026-11-08T09:00:00Z", "-1", ""])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
LINE = (
    st.binary(max_size=60)
    | st.integers(1, 100_000).map(lambda n: b"[" * n + b"]" * n)
    | JSON.map(lambda v: json.dumps(v).encode())
    | st.just(GOOD.encode())
    | st.dictionaries(
        st.sampled_from(["t", "client", "tool", "args", "chars", "empty", "outcome", "kind"]),
        JSON,
    ).map(lambda d: json.dumps({**json.loads(GOOD), **d}).encode())
)


@settings(max_examples=examples(150), deadline=None)
@given(lines=st.lists(LINE, min_size=1, max_size=4), as_json=st.booleans())
def test_any_bytes_in_any_line_get_a_report_or_one_line_naming_the_line(
    lines: list[bytes], as_json: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.jsonl"
        path.write_bytes(b"\n".join(x.replace(b"\n", b" ") for x in lines) + b"\n")
        status, out, err = _run(path, *(["--json"] if as_json else []))
    assert status in (0, 2), err
    assert "Traceback" not in err
    if status == 2:
        assert len(err.strip().splitlines()) == 1 and " line " in err, err
    else:
        assert err == "" and out
    out.encode("utf-8")  # printable to any UTF-8 terminal
    assert all(c.isprintable() or c == "\n" for c in out + err)  # no byte of the log raw


def test_a_logs_escape_bytes_are_shown_escaped(tmp_path: Path) -> None:
    """A tool name or a file name holding a terminal's escape sequences (a title change, a
    colour) is printed with them spelt out, and a ``|`` stays in its table cell."""
    path = tmp_path / "calls\x1b[2J.jsonl"
    path.write_text(GOOD.replace("search_knowledge_base", "\\u001b]0;pwned\\u0007x|y") + "\n")
    status, out, err = _run(path)
    assert status == 0 and err == ""
    assert "calls\\x1b[2J.jsonl" in out and "| \\x1b]0;pwned\\x07x\\|y | 1 |" in out
    assert "\x1b" not in out and "\x07" not in out
    path.write_bytes(b"[" * 10 + b"\n")
    status, _, err = _run(path)
    assert status == 2 and "calls\\x1b[2J.jsonl" in err and "\x1b" not in err


def _rows(out: str) -> Any:
    return json.loads(out)


def test_a_good_log_still_reports(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text(GOOD + "\n" + GOOD + "\n")
    status, out, err = _run(path, "--json")
    assert status == 0 and err == ""
    assert _rows(out)[-1]["calls"] == 2


def test_a_reader_that_leaves_early_gets_one_line_not_a_blame_on_the_log(
    tmp_path: Path, serve_command: list[str]
) -> None:
    """`log-report LOG | head -1`: the closed pipe is said as such on stderr (it was
    reported as the log being unreadable), exit status 1, no traceback."""
    log = tmp_path / "calls.jsonl"
    log.write_text(GOOD + "\n", encoding="utf-8")
    reader = subprocess.Popen(
        _log_report(serve_command, str(log), "--json"),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # the reader leaves before a line: the output has nowhere to go
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 1
    assert "output was closed by its reader" in err and "Traceback" not in err
    assert "cannot read it" not in err
