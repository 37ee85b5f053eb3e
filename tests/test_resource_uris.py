"""Every article is a resource, whatever its id holds: ids with '/', spaces, '?', '#', '%'
and non-ASCII letters (a docs site's folders and file names) get one RFC 3986 URI that
resources/list lists and resources/read, subscribe and unsubscribe take, and notifications
carry, through the SDK's client over stdio against a real `serve --db` process; a URI in
any other spelling is refused, saying the one to send."""

from __future__ import annotations

import json
import re
import time
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.kb.store import KBStore
from sim.model.opening import KB_ID
from sim.server import resources
from tests.conftest import examples

ROOT = Path(__file__).resolve().parents[1]
IDS = {
    "guide/calendar": "guide%2Fcalendar",
    "a b?#%": "a%20b%3F%23%25",
    "café/naïve": "caf%C3%A9%2Fna%C3%AFve",
    "docs/2024/q&a+faq": "docs%2F2024%2Fq%26a%2Bfaq",
    "plain-id_1.0~x": "plain-id_1.0~x",
}
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[A-Za-z0-9._~%!$&'()*+,;=:@/-]*")
"""RFC 3986's URI without query or fragment: no space, '?', '#', or non-ASCII."""


def _uri(encoded: str) -> str:
    return f"kb://{KB_ID}/articles/{encoded}"


def _db(tmp_path: Path) -> Path:
    db = tmp_path / "kb.sqlite"
    store = KBStore(lambda: time.time_ns() // 1000, path=str(db))
    store.create_kb(KB_ID)
    store.create_articles(KB_ID, [(i, f"Title of {i}", f"Body of {i}.") for i in IDS])
    store.close()
    return db


def test_each_id_has_one_uri_that_parses_back_to_it() -> None:
    for article_id, encoded in IDS.items():
        uri = resources.uri(KB_ID, article_id)
        assert uri == _uri(encoded) and URI.fullmatch(uri)
        assert resources.parse(uri) == (KB_ID, article_id)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(min_size=1, max_size=40))  # any text SQLite can hold (no lone surrogates)
def test_any_id_round_trips_through_its_uri(article_id: str) -> None:
    uri = resources.uri(KB_ID, article_id)
    assert URI.fullmatch(uri) and resources.parse(uri) == (KB_ID, article_id)


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        (_uri("guide/calendar"), "send " + _uri("guide%2Fcalendar")),
        (_uri("a b?#%"), "send " + _uri("a%20b%3F%23%25")),
        (_uri("guide%2fcalendar"), "send " + _uri("guide%2Fcalendar")),  # lower-case hex
        (_uri("plain%2Did"), "send " + _uri("plain-id")),  # encoded what needs none
        (_uri("bad%FFbyte"), "not UTF-8"),
        (_uri("bad%2"), "percent-encoded"),
        (_uri(""), "no knowledge base id"),
        ("kb://kb-support/guide%2Fcalendar", "no knowledge base id"),
        ("http://kb-support/articles/x", "does not start with kb://"),
    ],
)
def test_a_uri_in_any_other_spelling_is_refused_saying_the_one_to_send(
    sent: str, says: str
) -> None:
    assert resources.parse(sent) is None
    refusal = resources.bad_uri(sent)
    assert refusal.structured["error"]["argument"] == "uri"
    assert says in refusal.text, refusal.text


def test_list_read_subscribe_and_unsubscribe_agree_over_stdio_for_any_id(
    serve_command: list[str], tmp_path: Path
) -> None:
    """Listed URIs are read and subscribed as listed; a save by another process (a second
    connection to the file) is heard under the same URI; after unsubscribe nothing more."""
    import mcp_types as types
    from mcp import Client, MCPError, StdioServerParameters

    db = _db(tmp_path)
    params = StdioServerParameters(
        command=serve_command[0], args=[*serve_command[1:], "--db", str(db)], cwd=str(ROOT)
    )
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(message.params.uri)

    async def until(n: int) -> None:
        with anyio.fail_after(10):
            while len(heard) < n:
                await anyio.sleep(0.02)

    async def main() -> tuple[Any, ...]:
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            page = (await client.list_resources()).resources
            listed = {r.uri: r.name for r in page}
            described.update({r.name: (r.title, r.description) for r in page})
            reads = {
                u: json.loads((await client.read_resource(u)).contents[0].text)["article_id"]
                for u in listed
            }
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # subscribe is deprecated in the 2026 era
                for u in listed:
                    await client.subscribe_resource(u)
                other = KBStore(lambda: time.time_ns() // 1000, path=str(db))
                for article_id in IDS:
                    other.save(KB_ID, article_id, f"Saved {article_id} elsewhere.")
                await until(len(IDS))
                for u in listed:
                    await client.unsubscribe_resource(u)
                other.save(KB_ID, "guide/calendar", "Saved once more, nobody listening.")
                other.close()
                await anyio.sleep(1.0)  # four follow rounds: nothing may arrive
                refusals = []
                for bad in (_uri("guide/calendar"), _uri("guide%2fcalendar")):
                    with pytest.raises(MCPError) as refused:
                        await client.read_resource(bad)
                    refusals.append(str(refused.value))
                    with pytest.raises(MCPError):
                        await client.subscribe_resource(bad)
            return listed, reads, refusals

    described: dict[str, tuple[Any, Any]] = {}
    listed, reads, refusals = anyio.run(main)
    expected = {_uri(encoded): article_id for article_id, encoded in IDS.items()}
    assert listed == expected  # each listed by its one URI, named by its id
    assert described == {i: (f"Title of {i}", f"Body of {i}.") for i in IDS}  # titled
    assert reads == expected  # and read by it
    assert sorted(heard) == sorted(expected)  # each save heard under the URI subscribed
    assert all("send " + _uri("guide%2Fcalendar") in r for r in refusals), refusals


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_resources_list_gives_each_its_title_and_a_description_in_both_eras(mode: str) -> None:
    from mcp import Client

    from sim.server.mcp_server import build_server
    from sim.server.tools import KBServer

    long = "# Heading\n\n<img src='x.png'>\n\n" + "Many words here, " * 20
    store = KBStore(lambda: time.time_ns() // 1000)
    store.create_kb(KB_ID)
    store.create_articles(KB_ID, [("guide/a", "A guide", long), ("b", "Bee", "Short.")])
    session = KBServer(store, lambda: time.time_ns() // 1000).connect("client", [KB_ID])

    async def main() -> list[Any]:
        async with Client(build_server(session), mode=mode) as client:
            return (await client.list_resources()).resources

    listed = {r.name: r for r in anyio.run(main)}
    assert (listed["b"].title, listed["b"].description) == ("Bee", "Short.")
    said = listed["guide/a"]
    assert said.title == "A guide" and said.uri == _uri("guide%2Fa")
    assert said.description.startswith("Many words here, Many") and said.description.endswith("…")
    assert len(said.description) <= resources.DESCRIPTION_CHARS


def test_a_description_skips_what_is_not_prose_and_cuts_at_a_word() -> None:
    said = resources.description("# T\n\n```\ncode\n```\n| a | b |\nText  here.")
    assert said == "Text here."
    cut = resources.description("word " * 100)
    assert cut.endswith("word…") and len(cut) <= resources.DESCRIPTION_CHARS
    assert resources.description("") == ""
