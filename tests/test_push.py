"""Push (MCP resource subscriptions), exposure records and their closed forms."""

from __future__ import annotations

import json
import math
import subprocess
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sim import theory
from sim.kb.store import KBStore
from sim.model import methods
from sim.model.cadence import check_instants
from sim.model.day import run_day
from sim.model.opening import KB_ID, open_kb
from sim.params import Params
from sim.results import rowfiles
from sim.server import resources
from sim.server.tools import KBServer
from sim.study.experiments import run_study

ROOT = Path(__file__).resolve().parents[1]
EXACT = [m.name for m in methods.SWEPT if m.exact]
"""The swept methods that must notice every change at their first check after it."""


def _kb(n: int = 6) -> tuple[KBStore, KBServer, list[str]]:
    t = [1_800_000_000_000_000]

    def clock() -> int:
        t[0] += 1_000
        return t[0]

    store = KBStore(clock)
    specs = open_kb(store, 1, n)
    return store, KBServer(store, clock), [s.article_id for s in specs]


def test_a_subscribed_session_hears_each_committed_change_once_and_only_while_subscribed() -> None:
    store, server, ids = _kb()
    a, b = (resources.uri(KB_ID, i) for i in ids[:2])
    session, other = server.connect("agent", [KB_ID]), server.connect("other", [KB_ID])
    heard: list[str] = []
    session.on_notification(heard.append)
    other.on_notification(lambda u: heard.append("other:" + u))
    assert not session.subscribe(a).is_error
    store.save(KB_ID, ids[0], "new body")
    store.save(KB_ID, ids[1], "b's new body")  # not subscribed
    store.save(KB_ID, ids[0], "body", title="A new title")
    store.set_published(KB_ID, ids[0], False)
    assert heard == [a, a, a]
    assert not session.unsubscribe(a).is_error
    store.save(KB_ID, ids[0], "a draft edit")
    assert heard == [a, a, a]
    notes = [c for c in server.log.records if c.tool == resources.UPDATED]
    assert len(notes) == 3 and notes[0].result_chars == len(json.dumps({"uri": a}).replace(" ", ""))
    assert b not in heard


def test_a_conflicting_edit_writes_nothing_and_notifies_nobody() -> None:
    _, server, ids = _kb()
    session = server.connect("agent", [KB_ID])
    heard: list[str] = []
    session.on_notification(heard.append)
    session.subscribe(resources.uri(KB_ID, ids[0]))
    r = session.call(
        "edit_knowledge_article",
        {
            "knowledge_base_id": KB_ID,
            "article_id": ids[0],
            "content": "x",
            "expected_version": "2001-01-01T00:00:00.000000Z",
            "idempotency_key": "k",
        },
    )
    assert r.is_error and heard == []


@pytest.mark.parametrize(
    "uri",
    [
        None,
        7,
        "",
        "kb://",
        "https://x/articles/a",
        "kb://kb-support/articles/",
        "kb://other/articles/art-00001",
        "kb://kb-support/articles/nope",
        "kb://kb-support/articles/a/b",
        "\ud800",
    ],
)
def test_bad_subscriptions_are_refused_naming_the_uri_and_change_nothing(uri: Any) -> None:
    store, server, _ = _kb()
    session = server.connect("agent", [KB_ID])
    before = store.snapshot()
    r = session.subscribe(uri)
    assert r.is_error and r.structured["error"]["argument"] in ("uri", "article_id")
    assert r.structured["error"]["what_to_do"] and len(r.text) < 600
    assert server.subscriptions.held() == 0 and store.snapshot() == before
    assert session.read_resource(uri).is_error


def test_an_unpublished_article_cannot_be_subscribed_and_reads_as_not_found() -> None:
    store, server, ids = _kb()
    store.set_published(KB_ID, ids[2], False)
    session = server.connect("agent", [KB_ID])
    uri = resources.uri(KB_ID, ids[2])
    assert session.subscribe(uri).structured["error"]["code"] == "article_not_found"
    assert uri not in session.resource_uris() and len(session.resource_uris()) == len(ids) - 1
    read = session.read_resource(resources.uri(KB_ID, ids[0])).structured
    assert set(read) == {
        "knowledge_base_id",
        "article_id",
        "updated_at",
        "title",
        "content",
        "event_sequence",
    }


# -- the simulated day -------------------------------------------------------------------
SMALL = replace(Params(), n_questions=60, n_saves=200, push=True, sweep_intervals_s=(300.0, 3600.0))


@pytest.fixture(scope="module")
def small_day() -> Any:
    return run_day(SMALL, 4)


def test_push_notices_each_change_at_the_instant_it_is_committed(small_day: Any) -> None:
    d = pd.DataFrame(small_day.detections)
    push = d[d["method"] == "push"]
    changed = push["changed_s"].notna()
    assert changed.sum() > 10
    assert np.allclose(push.loc[changed, "detected_s"], push.loc[changed, "changed_s"], atol=1e-6)
    assert push.loc[~changed, "detected_s"].isna().all()


def test_periodic_checks_notice_at_the_first_check_after_the_change(small_day: Any) -> None:
    d = pd.DataFrame(small_day.detections)
    for method in EXACT:
        for interval in (300.0, 3600.0):
            g = d[(d["method"] == method) & (d["interval_s"] == interval)]
            changed = g[g["changed_s"].notna()]
            expected = np.ceil(changed["changed_s"] / interval) * interval
            assert np.allclose(changed["detected_s"], expected), (method, interval)
            assert g.loc[g["changed_s"].isna(), "detected_s"].isna().all()


def test_the_stopping_rule_changes_what_checks_cost_not_what_they_find(small_day: Any) -> None:
    """Stopping to check articles whose citations are all known stale (as push
    unsubscribes) finds every change at the same check, for fewer calls and characters;
    the poll from the oldest citation starts after the known-stale ones."""
    keeping = run_day(replace(SMALL, stop_checking_known_stale=False), 4)
    assert pd.DataFrame(small_day.detections).equals(pd.DataFrame(keeping.detections))
    rule = {(c.method, c.interval_s): c for c in small_day.cadence}
    for c in keeping.cadence:
        r = rule[(c.method, c.interval_s)]
        assert r.checks == c.checks
        assert r.calls <= c.calls and r.result_chars <= c.result_chars, c
    for method in EXACT:
        assert rule[(method, 3600.0)].result_chars < next(
            c.result_chars for c in keeping.cadence if (c.method, c.interval_s) == (method, 3600.0)
        )


def test_watchers_change_nothing_the_day_does() -> None:
    """Half the questions and saves of a busy day: the watchers still make 77 calls beside
    the day's 32 hourly checks (whether they touch the day is no matter of its size)."""
    base = replace(Params(), n_questions=30, n_saves=100)
    plain, watched = (
        run_day(base, 4),
        run_day(replace(base, push=True, sweep_intervals_s=(600.0,)), 4),
    )
    assert plain.citations == watched.citations and plain.saves == watched.saves
    assert plain.checks == watched.checks


def test_the_day_over_mcp_keeps_every_record_of_the_direct_day() -> None:
    """On seed 2 the day still subscribes, is told of changes (three), re-reads, unsubscribes
    and polls over MCP; a day over MCP costs about 1.3 ms a call, so it asks 20 questions on
    60 saves (whether the transport keeps a record is no matter of the day's size)."""
    p = replace(Params(), n_questions=20, n_saves=60, push=True, sweep_intervals_s=(1800.0,))
    direct, over_mcp = run_day(p, 2), run_day(replace(p, transport="mcp"), 2)
    assert pd.DataFrame(direct.detections).equals(pd.DataFrame(over_mcp.detections))
    assert direct.cadence == over_mcp.cadence and direct.citations == over_mcp.citations
    key = lambda c: (c.client_id, c.tool, c.result_chars, c.t_us)  # noqa: E731
    assert sorted(map(key, direct.calls)) == sorted(map(key, over_mcp.calls))
    assert any(c.tool == resources.UPDATED for c in over_mcp.calls)


def test_check_instants_merge_the_grids() -> None:
    due = check_instants((60.0, 120.0, 7.0), 240.0)
    assert due[120.0] == [60.0, 120.0] and due[7.0] == [7.0] and max(due) <= 240.0
    assert len(due[238.0]) == 1 and 240.0 in due


# -- closed forms, held to the simulation --------------------------------------------------
EXPOSURE = rowfiles.read_csv(ROOT / "results" / "seeds" / "exposure.csv")
"""The committed exposure runs' per-seed rows (10 seeds; the regression test reruns a sample
of them and `make check` all), so the closed forms are held to the study's own days."""


def _exposure_row(method: str, interval_s: float) -> pd.DataFrame:
    return EXPOSURE[(EXPOSURE["method"] == method) & (EXPOSURE["interval_s"] == interval_s)]


def test_unnoticed_time_follows_the_closed_form() -> None:
    """Tolerance: 6 % of the mean, 10 % at 4 h (ten days, 765 changed citations)."""
    p = Params()
    for interval, tol in ((60.0, 0.06), (900.0, 0.06), (3600.0, 0.06), (14400.0, 0.10)):
        g = _exposure_row("poll", interval)
        simulated = g["unnoticed_s"].sum() / g["changed"].sum()
        expected = theory.unnoticed_time(p, interval)["mean_s"]
        assert abs(simulated / expected - 1) < tol, (interval, simulated, expected)


def test_poll_pages_follow_their_closed_form() -> None:
    """Within 1.5 % (the first checks, before any citation, make no call)."""
    p = Params()
    for interval in EXPOSURE.loc[EXPOSURE["method"] == "poll", "interval_s"].unique():
        pages = _exposure_row("poll", interval)["poll_calls"].mean()
        assert abs(pages / theory.poll_pages_per_day(p, interval) - 1) < 0.015, interval


def test_push_counts_follow_their_closed_form() -> None:
    """Within 15 %, the closed form's stated approximations; six days with push alone (the
    checkers leave the agent's citations as they are)."""
    p = replace(Params(), push=True, run_checker=False)
    f = run_study(p, list(range(1, 7)), ("staleness",), workers=1, progress=False)
    calls = f.calls[f.calls["client_id"] == "push"].groupby("tool")["calls"].sum() / 6
    expected = theory.push_counts(p)
    assert abs(calls[resources.UPDATED] / expected["notifications"] - 1) < 0.15
    assert abs(calls[resources.SUBSCRIBE] / expected["subscribes"] - 1) < 0.15
    assert calls[resources.UPDATED] == calls["read_knowledge_article"]


def test_unnoticed_time_is_half_the_interval_when_changes_are_uniform() -> None:
    flat = replace(Params(), n_saves=3, zipf_s=0.0)  # rare changes: c nearly uniform in cells
    for interval in (60.0, 600.0):
        assert math.isclose(
            theory.unnoticed_time(flat, interval)["mean_s"], interval / 2, rel_tol=0.02
        )


# -- over real stdio, with the SDK client, in both protocol eras --------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_over_stdio_a_subscriber_hears_the_editor_save_and_rereads_the_new_version(
    mode: str, serve_command: list[str]
) -> None:
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=serve_command[0],
        args=[*serve_command[1:], "--articles", "4", "--human-edits-per-minute", "600"],
        cwd=str(ROOT),
    )
    uris = [resources.uri(KB_ID, f"art-0000{i}") for i in range(1, 5)]
    heard: list[str] = []
    got = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(message.params.uri)
            got.set()

    async def main() -> tuple[Any, Any, Any, Any]:
        async with Client(params, mode=mode, message_handler=on_message) as client:
            assert client.server_capabilities.resources.subscribe
            templates = await client.list_resource_templates()
            assert templates.resource_templates[0].uri_template == resources.URI_TEMPLATE
            listed = [r.uri for r in (await client.list_resources()).resources]
            before = {u: json.loads((await client.read_resource(u)).contents[0].text) for u in uris}
            with anyio.fail_after(30):
                if mode == "legacy":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        for u in uris:
                            await client.subscribe_resource(u)
                    await got.wait()
                else:
                    async with client.listen(resource_subscriptions=uris) as sub:
                        async for event in sub:
                            heard.append(event.uri)
                            break
            uri = heard[0]
            _, article_id = resources.parse(uri)
            after = json.loads((await client.read_resource(uri)).contents[0].text)
            tool = await client.call_tool(
                "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": article_id}
            )
            return listed, before[uri], after, tool.structured_content

    listed, before, after, tool = anyio.run(main)
    assert sorted(listed) == sorted(uris)
    assert (
        after["updated_at"] > before["updated_at"]
        and "Edited in the editor app" in after["content"]
    )
    assert tool["updated_at"] >= after["updated_at"]


def test_over_stdio_a_bad_subscription_is_invalid_params_naming_the_uri(
    serve_command: list[str],
) -> None:
    from sim.bench.stdio import RawClient

    client = RawClient("--articles", "3", serve=serve_command)
    try:
        client.handshake()
        client.send(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "resources/subscribe",
                "params": {"uri": "kb://other/articles/x"},
            }
        )
        reply = client.receive()
        assert reply is not None and reply["id"] == 9 and reply["error"]["code"] == -32602
        assert (
            "other" in reply["error"]["message"]
            and reply["error"]["data"]["error"]["argument"] == "uri"
        )
    finally:
        client.close()


# -- the advisor ---------------------------------------------------------------------------
def test_advise_prints_a_recommendation_and_json(
    capsys: pytest.CaptureFixture[str], serve_command: list[str]
) -> None:
    """The text through the command line, `python -m sim advise` in a process of its own
    (forked from the worker's zygote, which imported `sim` once: tests/forkserve.py), its
    exit status and streams as a user gets them; the JSON through the same main() in this
    process."""
    from sim.__main__ import main

    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*serve_command[:-1], "advise", *a], cwd=ROOT, capture_output=True, text=True
        )

    text = run("--max-unnoticed-min", "10")
    assert text.returncode == 0 and text.stdout.splitlines()[1].startswith("Use ")
    assert main(["advise", "--json", "--articles", "200"]) == 0
    data = json.loads(capsys.readouterr().out)
    choice = data["choice"]
    assert choice["mean_unnoticed_min"] <= 30 and data["inputs"]["articles"] == 200
    cheaper = [
        r for r in data["rows"] if r["mean_unnoticed_min"] <= 30 and r["cost"] < choice["cost"]
    ]
    assert cheaper == []
    bad = run("--zipf", "nan")
    assert bad.returncode == 2 and "--zipf" in bad.stderr and "Traceback" not in bad.stderr


def test_the_advisor_steps_to_a_shorter_interval_when_the_simulation_misses() -> None:
    """A closed-form pick whose simulated time unnoticed does not meet the target with margin
    (its 95 % interval's upper end above it, though its mean is under) steps down until the
    simulation meets it so; a method that never does drops out; push, which notices at once,
    has no interval; the choice is the cheapest in simulation."""
    from sim.advise import validated

    rows = [
        ("poll", 60.0, 29.0, 28.0, 31.5, 116.0),
        ("poll", 30.0, 14.8, 14.3, 15.0, 130.0),
        ("poll", 15.0, 7.4, 7.4, 7.9, 150.0),
        ("reread", 60.0, 29.0, 31.0, 33.0, 700.0),
        ("reread", 30.0, 14.8, 29.5, 30.5, 900.0),
        ("push", 0.0, 0.0, 0.0, float("nan"), 320.0),
    ]
    table = pd.DataFrame(
        rows,
        columns=[
            "method",
            "interval_min",
            "mean_unnoticed_min",
            "sim_mean_unnoticed_min",
            "sim_unnoticed_hi_min",
            "sim_cost",
        ],
    ).assign(cost=lambda d: d["sim_cost"])
    best = table[table["interval_min"].isin([60.0, 0.0])]
    out = validated(table, best, 30.0).set_index("method")
    assert out.loc["poll", "interval_min"] == 30.0 and out.loc["poll", "closed_form_every"] == 60.0
    assert out.loc["poll", "sim_miss_min"] == pytest.approx(4.5)  # past 27 min: 10 % under
    assert out.loc["push", "sim_miss_min"] == 0.0
    assert "reread" not in out.index
    assert list(out.index) == ["poll", "push"]
    # at its own edge: the interval ends under the target, not 10 % under it (28.8 against 30)
    edge = table.assign(sim_unnoticed_hi_min=table["sim_unnoticed_hi_min"].replace(31.5, 29.9))
    out = validated(edge, best, 30.0).set_index("method")
    assert out.loc["poll", "interval_min"] == 30.0
    assert out.loc["poll", "sim_miss_min"] == pytest.approx(2.9)


@pytest.mark.parametrize(
    "change",
    [
        {"sweep_intervals_s": (0.0,)},
        {"sweep_intervals_s": (60.0, 40_000.0)},
        {"sweep_intervals_s": (float("nan"),)},
        {"push": 1},
        {"push": True, "agent_edits": True, "transport": "mcp"},
    ],
)
def test_bad_exposure_parameters_are_refused_naming_the_field(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=f"Params.{next(iter(change))}"):
        replace(Params(), **change)


def test_the_server_fans_a_save_out_to_every_subscribed_session() -> None:
    from sim.bench.subscriptions import fanout

    rows = fanout((0, 3), per_session=4, saves=8, repeats=1)
    assert [r["notifications_per_save"] for r in rows] == [0.0, 3.0]
    assert rows[1]["subscriptions_held"] == 12


def test_advise_sizes_from_one_opening_equal_those_of_two_corpus_loads() -> None:
    """measured_sizes loads the corpus once for its calls and the push day; a store of its
    own with a ticking clock and a day that loads its own corpus measure the same sizes. Below
    and above the 50 articles read; 100 and 200 saves still re-read 55 and 84 changed
    articles by push (equal sizes are no matter of how many)."""
    import itertools
    import statistics

    from sim.advise import measured_sizes
    from sim.model.opening import DAY_START_US
    from sim.server.tools import structured_json

    for params in (Params(n_articles=30, n_saves=100), Params(n_articles=60, n_saves=200)):
        tick = itertools.count(DAY_START_US + 1_000, 1_000).__next__
        store = KBStore(tick)
        specs = open_kb(store, 1, params.n_articles)
        session = KBServer(store, tick).connect("advisor", [KB_ID])
        sample = [s.article_id for s in specs[:50]]
        args = [{"knowledge_base_id": KB_ID, "article_id": a} for a in sample]
        reads = [session.call("read_knowledge_article", a).chars for a in args]
        poll = {
            "resource_type": "knowledge_base",
            "resource_id": KB_ID,
            "after_sequence": store.head_sequence(KB_ID),
        }
        empty = session.call("poll_resource_events", poll).chars
        for i in range(100):
            a = specs[i % len(specs)].article_id
            store.save(KB_ID, a, store.article_state(KB_ID, a).content + " Edited.")
        full = session.call("poll_resource_events", poll).chars
        quiet = replace(params, push=True, run_checker=False, agent_edits=False)
        day = run_day(replace(quiet, sweep_intervals_s=()), 1)
        changed = [
            c.result_chars
            for c in day.calls
            if c.client_id == "push" and c.tool == "read_knowledge_article"
        ]
        assert changed
        assert vars(measured_sizes(params)) == {
            "read": statistics.median(reads),
            "page": empty,
            "event": (full - empty) / 100,
            "notification": len(structured_json({"uri": resources.uri(KB_ID, sample[0])})),
            "read_changed": statistics.mean(changed),
        }
