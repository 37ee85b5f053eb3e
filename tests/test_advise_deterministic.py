"""`advise --db` decides the same on any machine: its budgets count days, not seconds, and
its batches do not follow the worker count, so a huge time limit, none, one worker or two
give the same bytes; a time limit that runs out stops the run with one line and exit
status 3, deciding nothing (never a different pick)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from sim.__main__ import main
from sim.advise import sampled
from sim.bench.docsrepo import build
from sim.cli.advise_simulated import TIME_LIMIT_STATUS


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("site")
    db = root / "kb.sqlite"
    assert main(["import", str(build(root / "docs", 20, commits=200)), "--db", str(db)]) == 0
    return db


def _advise(kb, capsys, *flags: str) -> tuple[int, str, str]:
    args = ["advise", "--db", str(kb), "--questions-per-day", "10", "--max-days", "4"]
    status = main([*args, *flags])
    got = capsys.readouterr()
    return status, got.out, got.err


def test_the_same_bytes_whatever_the_time_limit_and_the_workers(kb, capsys, monkeypatch) -> None:
    status, plain, err = _advise(kb, capsys, "--workers", "1")
    assert status == 0 and "advise: 4 simulated days" in err
    assert "Days stopped because the cap on days was reached." in plain
    assert _advise(kb, capsys, "--workers", "2", "--max-seconds", "1e6")[:2] == (0, plain)
    # a machine so slow that every clock reading is 100 s after the last: the limit of 1 s
    # runs out after the first batch of days, and nothing is decided
    now = [time.monotonic()]

    def slow() -> float:
        now[0] += 100.0
        return now[0]

    monkeypatch.setattr(sampled, "time", SimpleNamespace(monotonic=slow))
    status, out, err = _advise(kb, capsys, "--max-seconds", "1")
    assert (status, out) == (TIME_LIMIT_STATUS, "")
    [line] = [x for x in err.splitlines() if "--max-seconds" in x]
    assert "nothing was decided" in line and "Give a larger --max-seconds" in line
    # with no limit the slow machine decides as the fast one did
    assert _advise(kb, capsys)[:2] == (0, plain)
