"""`python -m sim serve` when its environment fails: a damaged, locked or read-only KB file,
a call log that cannot be written, a client that stops reading. Each fault is injected for
real; each answer carries a defined JSON-RPC code and this server's words, and no
traceback reaches stderr."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sim.bench.stdio import ROOT, RawClient, tool_call
from sim.kb.store import KBStore
from sim.model.opening import KB_ID, open_kb
from sim.serve import open_store
from sim.server.calllog import CallLog
from sim.server.screen import Drop, Forward, Screen
from sim.server.tools import KBServer
from tests.conftest import examples

URI = f"kb://{KB_ID}/articles/art-00001"


def _kb_file(path: Path, articles: int = 40) -> Path:
    store = open_store(1, articles, path, create=True)
    store._db.close()
    return path


def _request(i: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}


def _ask(client: RawClient, i: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    client.send(_request(i, method, params))
    answer = client.receive(timeout_s=30)
    assert answer is not None and answer["id"] == i, answer
    return answer


def _read_tool(client: RawClient, i: int) -> dict[str, Any]:
    client.send(
        tool_call(
            i, "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": "art-00001"}
        )
    )
    answer = client.receive(timeout_s=30)
    assert answer is not None and answer["id"] == i
    return answer


def _edit(client: RawClient, i: int, version: str, key: str) -> dict[str, Any]:
    args = {
        "knowledge_base_id": KB_ID,
        "article_id": "art-00001",
        "content": f"New body {key}.",
        "expected_version": version,
        "idempotency_key": key,
    }
    client.send(tool_call(i, "edit_knowledge_article", args))
    answer = client.receive(timeout_s=30)
    assert answer is not None and answer["id"] == i
    return answer


def _version(client: RawClient, i: int) -> str:
    return _read_tool(client, i)["result"]["structuredContent"]["updated_at"]


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def _refused(answer: dict[str, Any], code: int, *words: str) -> None:
    assert "error" in answer, answer
    assert answer["error"]["code"] == code, answer
    for w in words:
        assert w in answer["error"]["message"], answer


# -- 1: a cursor the server never issued ------------------------------------------------


def test_resources_list_refuses_every_cursor_it_did_not_issue(serve_command: list[str]) -> None:
    client = RawClient("--articles", "250", serve=serve_command)
    client.handshake()
    first = _ask(client, 1, "resources/list", {})["result"]
    issued = first["nextCursor"]
    second = _ask(client, 2, "resources/list", {"cursor": issued})["result"]
    assert len(first["resources"]) == len(second["resources"]) == 100
    assert not {r["uri"] for r in first["resources"]} & {r["uri"] for r in second["resources"]}
    for i, cursor in enumerate(["²", "9" * 5_000, "100", "0", "7", "-1", "", issued + "0"], 3):
        _refused(_ask(client, i, "resources/list", {"cursor": cursor}), -32602, "cursor")
    stderr = client.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0


# -- 3: a call log that cannot be written ------------------------------------------------


def test_a_call_log_on_a_full_disk_never_turns_a_committed_edit_into_a_failure(
    tmp_path: Path, serve_command: list[str]
) -> None:
    db = _kb_file(tmp_path / "kb.sqlite")
    client = RawClient("--db", str(db), "--call-log", "/dev/full", serve=serve_command)
    client.handshake()
    version = _version(client, 1)
    saved = _edit(client, 2, version, "k1")
    assert saved["result"]["isError"] is False, saved
    assert saved["result"]["structuredContent"]["previous_version"] == version
    assert _version(client, 3) == saved["result"]["structuredContent"]["updated_at"]
    stderr = client.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0
    said = [x for x in stderr.splitlines() if "call log" in x]
    assert len(said) == 1 and "/dev/full" in said[0] and "without" in said[0], stderr


def test_a_call_log_fifo_whose_reader_goes_away_is_said_once_and_serving_goes_on(
    tmp_path: Path, serve_command: list[str]
) -> None:
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read_one_line() -> None:
        with fifo.open("rb") as f:
            got.append(f.readline())

    reader = threading.Thread(target=read_one_line, daemon=True)
    reader.start()
    client = RawClient("--articles", "40", "--call-log", str(fifo), serve=serve_command)
    client.handshake()
    _read_tool(client, 1)
    reader.join(timeout=30)
    assert got and b"read_knowledge_article" in got[0]
    for i in range(2, 6):
        answer = _read_tool(client, i)
        assert answer["result"]["isError"] is False
    stderr = client.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0
    assert len([x for x in stderr.splitlines() if "call log" in x]) == 1, stderr


# -- 6: a damaged KB file ----------------------------------------------------------------


def _zero_page_of(db: Path, index: str) -> None:
    con = sqlite3.connect(db)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (index,)).fetchone()
    (page_size,) = con.execute("PRAGMA page_size").fetchone()
    con.close()
    with db.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(bytes(page_size))


def test_a_damaged_kb_file_gets_a_clean_refusal_from_resources_and_tools(
    tmp_path: Path, serve_command: list[str]
) -> None:
    db = _kb_file(tmp_path / "kb.sqlite")
    _zero_page_of(db, "sqlite_autoindex_articles_1")
    client = RawClient("--db", str(db), serve=serve_command)
    client.handshake()
    for i, (method, params) in enumerate(
        [
            ("resources/list", {}),
            ("resources/read", {"uri": URI}),
            ("resources/subscribe", {"uri": URI}),
        ],
        1,
    ):
        answer = _ask(client, i, method, params)
        _refused(answer, -32603, "damaged", str(db))
        assert answer["error"]["data"]["error"]["code"] == "kb_file_damaged"
    tool = _read_tool(client, 9)["result"]
    assert tool["isError"] is True
    assert tool["structuredContent"]["error"]["code"] == "kb_file_damaged"
    stderr = client.close()
    _no_traceback(stderr)


# -- 7: a read-only KB file ----------------------------------------------------------------


@pytest.fixture()
def read_only_db(tmp_path: Path) -> Any:
    """A KB file nobody may write, root included (the tests may run as root)."""
    db = _kb_file(tmp_path / "kb.sqlite")
    subprocess.run(["chattr", "+i", str(db)], check=True)
    try:
        yield db
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)


@pytest.mark.parametrize(
    "flags", [["--write-gate"], ["--human-edits-per-minute", "600"]], ids=["gate", "editor"]
)
def test_flags_that_need_writes_refuse_a_read_only_file_at_start(
    read_only_db: Path, flags: list[str], serve_command: list[str]
) -> None:
    run = subprocess.run(
        [*serve_command, "--db", str(read_only_db), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "read-only" in run.stderr and flags[0] in run.stderr
    _no_traceback(run.stderr)


def test_an_edit_refused_by_a_read_only_file_is_an_error_result_and_writes_nothing(
    read_only_db: Path, serve_command: list[str]
) -> None:
    before = read_only_db.read_bytes()
    client = RawClient("--db", str(read_only_db), serve=serve_command)
    client.handshake()
    version = _version(client, 1)
    answer = _edit(client, 2, version, "k1")["result"]
    assert answer["isError"] is True
    assert answer["structuredContent"]["error"]["code"] == "kb_read_only"
    assert "read-only" in answer["content"][0]["text"]
    assert _version(client, 3) == version
    stderr = client.close()
    _no_traceback(stderr)
    assert read_only_db.read_bytes() == before


def test_the_editor_failing_on_a_file_made_read_only_after_start_says_so_and_serving_goes_on(
    tmp_path: Path, serve_command: list[str]
) -> None:
    """The file turns immutable mid-session: the editor's next save fails at commit, leaving
    SQLite's journal to undo it. The editor stops with one line; every call is still answered
    (a KB-file refusal while the journal cannot be rolled back); once the file is writable
    again the journal is rolled back and reads work, nothing half-written."""
    db = _kb_file(tmp_path / "kb.sqlite")
    client = RawClient("--db", str(db), "--human-edits-per-minute", "6000", serve=serve_command)
    client.handshake()
    subprocess.run(["chattr", "+i", str(db)], check=True)
    try:
        time.sleep(0.5)
        for i in range(1, 4):
            answer = _read_tool(client, i)["result"]
            if answer["isError"]:
                assert answer["structuredContent"]["error"]["code"].startswith("kb_"), answer
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=True)
    assert _read_tool(client, 4)["result"]["isError"] is False
    stderr = client.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0
    stopped = [x for x in stderr.splitlines() if x.startswith("human editor: stopped")]
    assert len(stopped) == 1 and str(db) in stopped[0], stderr
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone() == ("ok",)


# -- 8: a KB file locked by another process -------------------------------------------------


LOCKER = (
    "import sqlite3, sys, time\n"
    "con = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "con.execute('BEGIN EXCLUSIVE')\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.fixture()
def locker() -> Any:
    """Another process holding an exclusive lock on a file until told to let go."""
    procs: list[subprocess.Popen[str]] = []

    def lock(db: Path) -> None:
        p = subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert p.stdout is not None and p.stdout.readline().strip() == "locked"
        procs.append(p)

    yield lock
    for p in procs:
        p.communicate(timeout=10)


def test_a_locked_file_at_start_is_said_to_be_busy_not_no_kb(
    tmp_path: Path, locker: Any, serve_command: list[str]
) -> None:
    db = _kb_file(tmp_path / "kb.sqlite")
    locker(db)
    started = time.monotonic()
    run = subprocess.run(
        [*serve_command, "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert time.monotonic() - started < 20
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "busy" in run.stderr and "not a KB file" not in run.stderr
    _no_traceback(run.stderr)


def test_a_file_locked_after_start_gets_a_busy_refusal_within_a_bounded_wait(
    tmp_path: Path, locker: Any, serve_command: list[str]
) -> None:
    db = _kb_file(tmp_path / "kb.sqlite")
    client = RawClient("--db", str(db), serve=serve_command)
    client.handshake()
    locker(db)
    started = time.monotonic()
    answer = _ask(client, 1, "resources/read", {"uri": URI})
    assert time.monotonic() - started < 4
    _refused(answer, -32603, "busy")
    assert answer["error"]["data"]["error"]["code"] == "kb_busy"
    tool = _read_tool(client, 2)["result"]
    assert tool["isError"] is True and tool["structuredContent"]["error"]["code"] == "kb_busy"
    stderr = client.close()
    _no_traceback(stderr)


# -- a client that stops reading -------------------------------------------------------------


def test_a_client_that_stops_reading_ends_the_server_cleanly(serve_command: list[str]) -> None:
    client = RawClient("--articles", "40", serve=serve_command)
    client.handshake()
    assert client.proc.stdout is not None
    client.proc.stdout.close()
    for i in range(1, 20):
        try:
            client.send(
                tool_call(
                    i, "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "reset"}
                )
            )
        except BrokenPipeError:
            break
    assert client.proc.stdin is not None and client.proc.stderr is not None
    with contextlib.suppress(BrokenPipeError):
        client.proc.stdin.close()
    client.proc.wait(timeout=30)
    stderr = client.proc.stderr.read().decode()
    client.proc.stderr.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0, stderr
    said = [x for x in stderr.splitlines() if "stopped reading" in x]
    assert len(said) == 1, stderr


# -- a reply id "22" is not request 22 -------------------------------------------------------


def test_a_response_whose_id_is_a_string_answers_none_of_this_servers_requests() -> None:
    """The server's own requests (elicitation/create) carry integer ids; the SDK would match
    "22" to request 22, so the screen drops such a response and says why."""
    screen = Screen(lambda name, args: None)
    for line in (
        b'{"jsonrpc":"2.0","id":"22","result":{"action":"accept"}}',
        b'{"jsonrpc":"2.0","id":"0","error":{"code":-1,"message":"no"}}',
    ):
        verdict = screen(line)
        assert isinstance(verdict, Drop) and "string" in verdict.why, verdict
    assert isinstance(screen(b'{"jsonrpc":"2.0","id":22,"result":{}}'), Forward)


# -- the call log's sink fails mid-session -----------------------------------------------------


class _FailingSink(io.StringIO):
    name = "calls.jsonl"

    def __init__(self, error: OSError, after: int) -> None:
        super().__init__()
        self.error, self.left = error, after

    def write(self, text: str) -> int:
        if self.left <= 0:
            raise self.error
        self.left -= 1
        return super().write(text)


@pytest.mark.parametrize(
    "error",
    [OSError(errno.ENOSPC, "No space left on device"), BrokenPipeError(errno.EPIPE, "Broken pipe")],
    ids=["full", "epipe"],
)
def test_a_failing_sink_is_said_once_and_every_call_still_gets_its_true_result(
    error: OSError, capsys: pytest.CaptureFixture[str]
) -> None:
    store = KBStore(lambda: 1_794_000_000_000_000)
    open_kb(store, 1, 5)
    sink = _FailingSink(error, after=1)
    session = KBServer(store, lambda: 1_794_000_000_000_000, CallLog(sink, keep=False)).connect(
        "c", [KB_ID]
    )
    read = {"knowledge_base_id": KB_ID, "article_id": "art-00001"}
    version = session.call("read_knowledge_article", read).structured["updated_at"]
    saved = session.call(
        "edit_knowledge_article",
        {**read, "content": "New.", "expected_version": version, "idempotency_key": "k"},
    )
    assert not saved.is_error and saved.structured["previous_version"] == version
    assert store.article_state(KB_ID, "art-00001").content == "New."
    for _ in range(3):
        assert not session.call("read_knowledge_article", read).is_error
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "calls.jsonl" in said[0] and "call 2" in said[0], said
    assert sink.getvalue().count("\n") == 1


# -- any JSON in any field of resources/* --------------------------------------------------------


RESOURCE_METHODS = [
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
]
DEFINED = {-32700, -32600, -32601, -32602, -32603, -32002}


@pytest.fixture(scope="module")
def resource_client(serve_command: list[str]) -> Any:
    client = RawClient("--articles", "120", serve=serve_command)
    client.handshake()
    yield client
    stderr = client.close()
    _no_traceback(stderr)
    assert client.proc.returncode == 0


_FUZZ_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
    | st.sampled_from(["²", "9" * 5_000, URI, "kb://x/articles/", "100", "0." + "0" * 16]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=5,
)
_COUNTER = iter(range(1_000, 10**9))


@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    method=st.sampled_from(RESOURCE_METHODS),
    params=st.dictionaries(st.sampled_from(["cursor", "uri", "_meta", "x"]), _FUZZ_JSON)
    | _FUZZ_JSON,
)
@example(method="resources/list", params={"cursor": "²"})
@example(method="resources/list", params={"cursor": "9" * 5_000})
@example(method="resources/read", params={"uri": URI + "²"})
def test_any_json_in_any_resources_field_gets_one_answer_with_a_defined_code(
    resource_client: RawClient, method: str, params: Any
) -> None:
    i = next(_COUNTER)
    resource_client.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    answer = resource_client.receive(timeout_s=30)
    assert answer is not None and answer["id"] == i, answer
    if "error" in answer:
        assert answer["error"]["code"] in DEFINED, answer
        assert answer["error"]["message"] and len(answer["error"]["message"]) < 2_000
    if method == "resources/subscribe" and "result" in answer:
        resource_client.send(_request(i, "resources/unsubscribe", params))
        assert resource_client.receive(timeout_s=30) is not None
