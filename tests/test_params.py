"""Params: the write-up's day by default, frozen, validated on construction."""

from __future__ import annotations

import dataclasses

import pytest

from sim.params import LADDER_S, Params, param_docs


def test_defaults_are_the_write_ups_day() -> None:
    p = Params()
    assert (p.n_articles, p.n_questions, p.n_saves, p.day_s) == (400, 120, 300, 8 * 3600)
    assert (p.zipf_s, p.save_popularity, p.edit_follows_questions) == (0.9, "zipf", 1.0)
    assert p.save_mix == (0.85, 0.10, 0.05)
    assert (p.citations_per_answer, p.check_interval_s, p.n_checks) == (2, 3600, 8)
    assert p.edit_delays_s == LADDER_S == (5, 600, 3600, 14400)


def test_frozen_and_varied_with_replace() -> None:
    p = Params()
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.n_saves = 10  # type: ignore[misc]
    q = dataclasses.replace(p, n_saves=10)
    assert (p.n_saves, q.n_saves) == (300, 10)


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("n_articles", 0, "1 or more"),
        ("n_articles", 2.5, "integer"),
        ("n_questions", -1, "1 or more"),
        ("n_saves", -5, "0 or more"),
        ("n_saves", True, "number"),
        ("n_saves", 2.5, "whole number"),
        ("day_s", 0, "above 0"),
        ("day_s", float("inf"), "finite"),
        ("check_interval_s", -1, "above 0"),
        ("zipf_s", -0.1, "0 or more"),
        ("edit_follows_questions", 1.5, "from 0 to 1"),
        ("save_popularity", "flat", "'zipf' or 'even'"),
        ("arrivals", "bursty", "'uniform' or 'poisson'"),
        ("save_mix", (0.8, 0.1, 0.05), "summing to 1"),
        ("save_mix", (0.5, 0.5), "three shares"),
        ("save_mix", (1.2, -0.1, -0.1), "from 0 to 1"),
        ("edit_delays_s", (), "non-empty"),
        ("edit_delays_s", (5, -1), "0 or more"),
        ("citations_per_answer", 21, "at most 20"),
        ("title_check_limit", 0, "1 or more"),
        ("tool_latency_s", -1, "0 or more"),
        ("max_edit_attempts", 0, "1 or more"),
    ],
)
def test_bad_values_are_refused_naming_field_allowed_and_received(
    field: str, value: object, says: str
) -> None:
    with pytest.raises(ValueError) as e:
        Params(**{field: value})
    message = str(e.value)
    assert f"Params.{field}" in message and says in message and repr(value) in message


def test_with_changes_fields_named_at_run_time_and_refuses_unknown_names() -> None:
    p = Params()
    axes: dict[str, object] = {"n_saves": 10, "zipf_s": 1.2}
    q = p.with_(**axes)
    assert q == dataclasses.replace(p, n_saves=10, zipf_s=1.2)
    assert p.n_saves == 300
    with pytest.raises(ValueError) as e:
        p.with_(n_save=10)
    message = str(e.value)
    assert "received n_save" in message and "n_saves" in message
    with pytest.raises(ValueError, match=r"Params\.n_saves"):
        p.with_(n_saves=-1)


def test_every_field_is_documented() -> None:
    docs = param_docs()
    assert set(docs) == {f.name for f in dataclasses.fields(Params)}
    assert all(docs.values())
