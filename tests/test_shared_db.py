"""One truth across processes: a server's search, read and notifications take in every
commit to its --db file, whoever made it (another connection, `python -m sim import` while
it serves, another `serve --http` process), by the next call after the commit (search and
read) and within the follow interval (notifications). Real processes, the SDK's clients,
loopback only; every wait bounded."""

from __future__ import annotations

import json
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from sim.bench.http_process import HttpServer
from sim.kb.search import INDEX_MIN_ROWS
from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from sim.server import resources
from sim.server.edit import EDIT_TOOL

ROOT = Path(__file__).resolve().parents[1]
NEW_WORD = "zebracorn"
HEAR_S = 10.0


def _clock() -> int:
    return time.time_ns() // 1000


def _ids(store: KBStore, *words: str) -> list[str]:
    return [h.article_id for h in store.search(KB_ID, list(words), 50)[1]]


@pytest.mark.parametrize("index_min_rows", [INDEX_MIN_ROWS, 1])  # the matrix, the postings
def test_a_store_searches_what_another_connection_committed_and_stays_exact(
    tmp_path: Path, index_min_rows: int
) -> None:
    db = str(tmp_path / "kb.sqlite")
    mine = KBStore(_clock, path=db, index_min_rows=index_min_rows)
    mine.create_kb(KB_ID)
    mine.create_articles(
        KB_ID, [(f"a{i}", f"Calendar {i}", f"Sync calendar {i}.") for i in range(6)]
    )
    other = KBStore(_clock, path=db, index_min_rows=index_min_rows)
    assert _ids(mine, "calendar") == _ids(other, "calendar") and len(_ids(mine, "calendar")) == 6
    other.set_published(KB_ID, "a1", False)
    other.save(KB_ID, "a2", f"Sync calendar 2, now with {NEW_WORD}.")
    other.create_articles(KB_ID, [("a9", "Exports", f"Export the {NEW_WORD} report.")])
    assert "a1" not in _ids(mine, "calendar")  # made draft elsewhere: gone at the next call
    assert sorted(_ids(mine, NEW_WORD)) == ["a2", "a9"]  # a new word: found
    mine.save(KB_ID, "a3", "Calendar three.")
    other.save(KB_ID, "a5", "Calendar gamma.")
    other.create_articles(KB_ID, [("a8", "Fresh", "A fresh calendar.")])
    # no search between: each write takes in the other's commits first
    mine.save(KB_ID, "a5", "Calendar delta.")
    mine.save(KB_ID, "a8", "A fresh calendar, saved here.")
    other.set_published(KB_ID, "a1", True)
    assert _ids(mine, "gamma") == [] and _ids(mine, "delta") == ["a5"]
    for words in (["calendar"], [NEW_WORD], ["sync", "export"], ["three"]):
        assert mine.search(KB_ID, words, 50) == mine.search_fts5(KB_ID, words, 50)
        assert mine.search(KB_ID, words, 50) == other.search(KB_ID, words, 50)
    mine.close()
    other.close()


def _import(serve_command: list[str], docs: Path, db: Path) -> None:
    """`python -m sim import DOCS --db DB` in a process of its own, forked from this worker's
    zygote (tests/forkserve.py): another process writing the file, as before, without an
    interpreter's start and the project's imports each time."""
    assert serve_command[-1] == "serve", serve_command
    done = subprocess.run(
        [*serve_command[:-1], "import", str(docs), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr


def test_an_import_while_serving_reaches_search_read_and_a_subscriber(
    serve_command: list[str], tmp_path: Path
) -> None:
    """`serve --db` over stdio (the SDK's client); `python -m sim import` run again while it
    serves makes one article draft and adds a word to another: the very next search no
    longer finds the draft and finds the word, read refuses the draft, and the subscriber
    of the article in a folder hears of its change."""
    docs, db = tmp_path / "docs", tmp_path / "kb.sqlite"
    (docs / "guide").mkdir(parents=True)
    calendar, billing = docs / "guide" / "calendar.md", docs / "billing.md"
    calendar.write_text("# Calendar\n\nSync your calendar with the app.\n")
    billing.write_text("# Billing\n\nInvoices and calendar exports.\n")
    _import(serve_command, docs, db)
    uri = resources.uri(KB_ID, "guide/calendar")
    params = StdioServerParameters(
        command=serve_command[0], args=[*serve_command[1:], "--db", str(db)], cwd=str(ROOT)
    )
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(message.params.uri)

    async def search(client: Client, query: str) -> list[str]:
        found = await client.call_tool(
            "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": query}
        )
        return sorted(h["article_id"] for h in found.structured_content["hits"])

    async def main() -> tuple[Any, ...]:
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            before = await search(client, "calendar")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # subscribe is deprecated in the 2026 era
                await client.subscribe_resource(uri)
            time.sleep(0.01)  # a file time the import can tell from the first
            billing.write_text("---\ndraft: true\n---\n# Billing\n\nInvoices and calendar.\n")
            calendar.write_text(f"# Calendar\n\nSync your calendar with the {NEW_WORD} app.\n")
            await anyio.to_thread.run_sync(_import, serve_command, docs, db)
            after = await search(client, "calendar")  # the next call: no wait, no retry
            new = await search(client, NEW_WORD)
            read = await client.call_tool(
                "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": "billing"}
            )
            content = json.loads((await client.read_resource(uri)).contents[0].text)["content"]
            with anyio.fail_after(HEAR_S):
                while not heard:
                    await anyio.sleep(0.02)
            return before, after, new, read.is_error, content

    before, after, new, draft_refused, content = anyio.run(main)
    assert before == ["billing", "guide/calendar"]
    assert after == ["guide/calendar"] and new == ["guide/calendar"]
    assert draft_refused and NEW_WORD in content
    assert heard == [uri]


def test_two_serve_http_processes_and_an_import_agree_on_search_at_the_next_call(
    serve_command: list[str], tmp_path: Path
) -> None:
    """Two `serve --http` processes on one imported --db: an import that makes an article
    draft takes it out of both processes' next search; a word saved through B is found by
    A's next search; a third writer's unpublish likewise; each answer is the search of
    record's (FTS5, read through another connection)."""
    docs, db = tmp_path / "docs", tmp_path / "kb.sqlite"
    (docs / "guide").mkdir(parents=True)
    pages = {
        "guide/calendar": "# Calendar\n\nSync your calendar with the app.\n",
        "billing": "# Billing\n\nInvoices and calendar exports.\n",
        "faq": "# FAQ\n\nWhy does my calendar not sync?\n",
        "teams": "# Teams\n\nShare a team calendar.\n",
    }
    for name, text in pages.items():
        (docs / f"{name}.md").write_text(text)
    _import(serve_command, docs, db)

    def of_record(word: str) -> list[str]:
        reader = KBStore(_clock, path=str(db))
        try:
            return sorted(h.article_id for h in reader.search_fts5(KB_ID, [word], 20)[1])
        finally:
            reader.close()

    def session(url: str) -> Client:
        return Client(streamable_http_client(url, http_client=httpx2.AsyncClient()))

    async def hits(client: Client, query: str) -> list[str]:
        found = await client.call_tool(
            "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": query, "limit": 20}
        )
        assert not found.is_error, found.structured_content
        return sorted(h["article_id"] for h in found.structured_content["hits"])

    with (
        HttpServer(serve_command, "--db", str(db), cwd=ROOT) as a,
        HttpServer(serve_command, "--db", str(db), cwd=ROOT) as b,
    ):

        async def main() -> dict[str, Any]:
            seen: dict[str, Any] = {}
            async with session(a.url) as ca, session(b.url) as cb:
                with anyio.fail_after(120):
                    seen["before"] = await hits(ca, "calendar"), await hits(cb, "calendar")
                    (docs / "billing.md").write_text("---\ndraft: true\n---\n" + pages["billing"])
                    await anyio.to_thread.run_sync(_import, serve_command, docs, db)
                    seen["imported"] = await hits(ca, "calendar"), await hits(cb, "calendar")
                    seen["imported_record"] = of_record("calendar")
                    article = {"knowledge_base_id": KB_ID, "article_id": "faq"}
                    read = (
                        await cb.call_tool("read_knowledge_article", article)
                    ).structured_content
                    saved = await cb.call_tool(
                        EDIT_TOOL,
                        {
                            **article,
                            "content": f"{read['content']} Try {NEW_WORD}.",
                            "expected_version": read["updated_at"],
                            "idempotency_key": "shared-db-1",
                        },
                    )
                    assert not saved.is_error, saved.content
                    seen["saved"] = await hits(ca, NEW_WORD)
                    third = KBStore(_clock, path=str(db))
                    third.set_published(KB_ID, "teams", False)
                    third.close()
                    seen["third"] = await hits(ca, "calendar"), await hits(cb, "calendar")
                    seen["third_record"] = of_record("calendar")
            return seen

        seen = anyio.run(main)
    everything = ["billing", "faq", "guide/calendar", "teams"]
    assert seen["before"] == (everything, everything)
    drafted = ["faq", "guide/calendar", "teams"]
    assert seen["imported"] == (drafted, drafted) and seen["imported_record"] == drafted
    assert seen["saved"] == ["faq"]
    assert seen["third"] == (["faq", "guide/calendar"],) * 2
    assert seen["third_record"] == ["faq", "guide/calendar"]
