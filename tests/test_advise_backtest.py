"""The advice's backtest (sim/advise/backtest.py): made from an edit log up to a year
before its end, replayed exactly on the last year's real saves; `advise` prints its line and
`python -m sim backtest` writes the table over sites."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim import atlas
from sim.advise import Costs
from sim.advise import backtest as bt
from sim.calibrate.logs import CHANGES, PANEL, EditLog
from sim.params import Params

RESULTS = Path(__file__).resolve().parents[1] / "results"
DAY = 86400.0
D = 8 * 3600.0


def _log(rows: list[tuple[float, int, str]]) -> EditLog:
    """Rows of (Unix seconds, article, change) as a log, a publish a row."""
    t = np.array([r[0] for r in rows])
    return EditLog(
        t,
        np.arange(len(rows)),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([CHANGES[r[2]] for r in rows], dtype=np.int8),
        1 + max(r[1] for r in rows),
        "test",
    )


def test_a_save_is_the_first_change_for_the_reads_before_it_and_waits_for_the_next_check() -> None:
    """One window (Friday 00:00–08:00 UTC, the first after the cut at the Thursday 1970-01-01):
    saves at 10 and 50 min, polls every 30 min. Reads before 10 min see the first save (20 min
    to the check at 30), reads from 10 to 50 min the second (10 min to the check at 60): the
    mean is (10·20 + 40·10) / 50 = 12 min exactly; the add at the window's end changes nothing
    cited."""
    w = DAY  # Friday 00:00 UTC
    log = _log([(w + 600, 0, "modify"), (w + 3000, 0, "rename"), (w + D, 1, "add")])
    got = bt.replay(log, 0.0, 4 * DAY, Params(), 1800.0)
    assert got.days == 1 and got.changed == 1
    assert got.unnoticed.mean == pytest.approx(12.0, abs=1e-12)
    q = 1 / (1 + 2**-0.9)  # the more edited of two articles, Zipf 0.9
    rate = Params().n_questions * 2 * ((q + 0.5) / 2) / D  # 2 citations, the second random
    held = (1 - math.exp(-rate * 600)) + (1 - math.exp(-rate * 3000))  # two intervals
    assert got.reads == pytest.approx(held)
    assert got.poll_calls == pytest.approx(16 + held)  # a page at each of 16 checks


def test_a_change_at_a_check_is_noticed_at_once_and_one_after_the_last_waits_to_the_end() -> None:
    wait = bt._wait(np.array([3 * 3600.0, 7 * 3600.0]), 3 * 3600.0, D)
    assert wait.tolist() == [0.0, 3600.0]
    assert bt._wait(np.array([5.0]), 0.0, D).tolist() == [0.0]  # push


def test_a_log_shorter_than_a_year_and_a_quarter_has_no_backtest() -> None:
    log = _log([(0.0, 0, "add"), (400 * DAY, 0, "modify")])
    with pytest.raises(ValueError, match="a backtest needs a year to hold out and 90 days"):
        bt.split(log)


def test_the_committed_table_is_the_functions_and_holds_its_target() -> None:
    """results/advise_backtest.csv's row of a bundled log, rebuilt (deterministic: a fixed
    fit, the closed forms and an exact replay); the pick meets its target there."""
    site = "bitwarden-help"
    rows, share = bt.table({site: atlas.log(site)}, Params(), Costs(), 30.0)
    committed = pd.read_csv(RESULTS / "advise_backtest.csv")
    want = committed[committed["site"] == site].iloc[0].dropna().to_dict()
    assert {k: rows[0][k] for k in want} == pytest.approx(want)
    assert rows[0]["met"] is True and share.startswith("the advice met its target")
    assert len(committed) == len(atlas.sites())


def test_advise_prints_the_backtest_line_or_why_not(tmp_path: Path) -> None:
    from sim.cli.advise_simulated import _with_backtest

    short = tmp_path / "short.csv"
    short.write_text(
        "time,publish,author,article,change,lines_added,lines_removed\n"
        "2024-01-01T00:00:00Z,0,u,a,add,1,0\n2024-03-01T00:00:00Z,1,u,a,modify,1,1\n"
    )
    text, out = _with_backtest("advice", {}, short, Params(), Costs(), 30.0)
    assert text.splitlines()[-1].startswith("Backtest: not possible here: the log spans 60 days")
    assert out == {"backtest": None}
    text, out = _with_backtest("advice", {}, PANEL["DuckDuckGo"], Params(), Costs(), 30.0)
    assert text.splitlines()[-1].startswith("Backtest: advised from the history up to a year")
    assert out["backtest"]["met"] is True


def test_the_command_refuses_a_bad_log_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.__main__ import main

    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,log\n")
    out = tmp_path / "table.csv"
    with pytest.raises(SystemExit) as stop:
        main(["backtest", str(bad), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "LOG.csv:" in err[0], err
    assert not out.exists()


def test_advise_db_on_a_two_year_docs_history_ends_with_its_backtest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A generated docs site whose git history spans about two years: `advise --db` ends
    with the backtest of the advice made before its last year, in its text and its JSON,
    the same bytes with one worker or two."""
    import json

    from sim.__main__ import main
    from sim.bench.docsrepo import build

    db = tmp_path / "kb.sqlite"
    repo = build(tmp_path / "docs", 20, commits=300, mean_gap_s=2 * DAY)
    assert main(["import", str(repo), "--db", str(db)]) == 0
    capsys.readouterr()
    args = ["advise", "--db", str(db), "--questions-per-day", "10", "--simulate", "1"]
    assert main([*args, "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[-1].startswith("Backtest: advised from the history up to a year")
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == text
    assert main([*args, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["backtest"]
    assert row["windows"] >= 50 and row["met"] in (True, False)


def test_a_sites_fit_is_kept_by_its_historys_content_and_gives_the_same_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backtest's fits of the atlas's fixed histories come from `calibrate.cache` once made
    (a quick run's and `make reproduce`'s main cost outside their days): the shape read back
    is the fitted one, so the row is byte for byte the uncached row; another history, or the
    cache turned off, fits again."""
    from sim.calibrate import cache, fit

    monkeypatch.setenv("STALE_CITATIONS_CACHE", str(tmp_path))
    fits: list[EditLog] = []
    real_fit = fit.fit_shape

    def counted(log: EditLog, *args: object, **kwargs: object) -> object:
        fits.append(log)
        return real_fit(log)

    monkeypatch.setattr(fit, "fit_shape", counted)
    log = atlas.log(atlas.sites()[0].site)
    uncached = bt.backtest(log, Params(), Costs(), 30.0).row()
    assert len(fits) == 1
    made = bt.backtest(log, Params(), Costs(), 30.0, shape_of=cache.fit_shape).row()
    kept = bt.backtest(log, Params(), Costs(), 30.0, shape_of=cache.fit_shape).row()
    assert len(fits) == 2  # the third backtest read the shape the second kept
    assert repr(made) == repr(kept) == repr(uncached)
    train = fits[0]
    shifted = EditLog(
        train.epoch_s + 7 * DAY, train.publish, train.article, train.kind, train.n_articles,
        train.source,
    )  # fmt: skip
    cache.fit_shape(shifted)
    assert len(fits) == 3 and len(list(tmp_path.glob("*.json"))) == 2
    monkeypatch.setenv("STALE_CITATIONS_CACHE", "off")
    cache.fit_shape(train)
    assert len(fits) == 4


def test_a_panel_logs_session_stretch_is_kept_and_read_back_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's session stretch (simulated runs of the fitted shape, about a second a log)
    comes from `calibrate.cache` once made: the same float as made afresh, and made again for
    another shape, or with the cache off."""
    from sim.calibrate import burstfit, cache
    from sim.calibrate.logs import read_log
    from sim.study.realshape_panel import _panel_fit

    monkeypatch.setenv("STALE_CITATIONS_CACHE", str(tmp_path))
    made: list[float] = []
    real = burstfit.burst_stretch

    def counted(*args: object, **kwargs: object) -> float:
        made.append(real(*args, **kwargs))  # type: ignore[arg-type]
        return made[-1]

    monkeypatch.setattr(burstfit, "burst_stretch", counted)
    name = next(iter(PANEL))
    log, shape = read_log(PANEL[name]), _panel_fit(name).shape
    assert cache.burst_stretch(shape, log) == cache.burst_stretch(shape, log) == made[0]
    assert len(made) == 1 and len(list(tmp_path.glob("*.json"))) == 1
    cache.burst_stretch(replace(shape, bulk_share=shape.bulk_share / 2), log)
    assert len(made) == 2
    monkeypatch.setenv("STALE_CITATIONS_CACHE", "off")
    cache.burst_stretch(shape, log)
    assert len(made) == 3
