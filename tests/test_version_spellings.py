"""expected_version: any RFC 3339 spelling of the stored microsecond instant is that
version; digits finer than a microsecond that are not zero name no version and are refused;
a save always reports the version it replaced as stored, never as spelled."""

from __future__ import annotations

import pytest

from sim.kb.versions import parse_version
from sim.server.listing import list_tools
from sim.server.tools import Session
from tests.conftest import edit_args, read

STORED = "2026-11-06T21:20:00.000000Z"
SAME_INSTANT = [
    STORED,
    "2026-11-06T21:20:00Z",
    "2026-11-06T21:20:00.000000000Z",
    "2026-11-06T21:20:00.000000+00:00",
    "2026-11-06T22:50:00+01:30",
    "2026-11-06T19:20:00.000-02:00",
    "2026-11-06t21:20:00z",
]
REFUSED = [
    "2026-11-06T21:20:00.0000009Z",
    "2026-11-06T21:20:00.000000001Z",
    "2026-11-06T21:20:00." + "0" * 6 + "9" * 4_000 + "Z",
    "2026-11-06 21:20:00Z",
    "20261106T212000Z",
    "2026-11-06T21:20:00",
    "2026-W45-5T21:20:00Z",
    "2026-11-06T21:20Z",
    "2026-11-06T21:20:00+24:00",
    "２０２６-11-06T21:20:00Z",
]


@pytest.mark.parametrize("spelling", SAME_INSTANT)
def test_any_spelling_of_the_stored_instant_saves_and_reports_the_stored_version(
    session: Session, spelling: str
) -> None:
    assert read(session, "a1")["updated_at"] == STORED
    r = session.call("edit_knowledge_article", edit_args("a1", spelling, "k"))
    assert not r.is_error, r.text
    assert r.structured["previous_version"] == STORED
    assert f"replacing version {STORED};" in r.text and spelling not in r.text.replace(STORED, "")
    replay = session.call("edit_knowledge_article", edit_args("a1", spelling, "k"))
    assert replay.structured["replayed"] and replay.structured["previous_version"] == STORED


@pytest.mark.parametrize("spelling", REFUSED)
def test_finer_than_a_microsecond_or_not_rfc3339_is_refused_and_writes_nothing(
    session: Session, spelling: str
) -> None:
    r = session.call("edit_knowledge_article", edit_args("a1", spelling, "k"))
    assert r.is_error and r.structured["error"]["code"] == "invalid_argument", r.text
    assert r.structured["error"]["argument"] == "expected_version"
    assert len(r.text) < 600
    assert read(session, "a1")["updated_at"] == STORED


def test_parse_version_reads_its_own_format_and_refuses_sub_microsecond_digits() -> None:
    assert parse_version(STORED) == 1_794_000_000_000_000
    with pytest.raises(ValueError, match="microsecond"):
        parse_version("2026-11-06T21:20:00.0000009Z")


def test_the_rule_is_stated_in_the_property_description() -> None:
    (edit,) = [t for t in list_tools() if t["name"] == "edit_knowledge_article"]
    text = edit["inputSchema"]["properties"]["expected_version"]["description"]
    assert "microsecond" in text and "offset" in text


def test_a_conflict_names_the_cited_version_as_stored(session: Session) -> None:
    assert not session.call("edit_knowledge_article", edit_args("a1", STORED, "k1")).is_error
    r = session.call("edit_knowledge_article", edit_args("a1", "2026-11-06T22:50:00+01:30", "k2"))
    assert r.structured["error"]["code"] == "version_conflict"
    assert f"saved since version {STORED}" in r.text
