"""`advise --edit-log LOG` without --db replays the log's own saves on its own articles
(sim/advise/tracedays.py's ``choose_log``) wherever the rule allows, says so on its
`Days from:` line, checks the pick on independent days, and falls back to the fitted
process with its reason for a short log; the same bytes on any worker count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.__main__ import main
from sim.advise import tracedays
from sim.calibrate.logs import BUNDLED

SMALL = ["--questions-per-day", "10", "--max-days", "8", "--workers"]


def _advise(capsys: pytest.CaptureFixture[str], log: Path, *flags: str) -> str:
    assert main(["advise", "--edit-log", str(log), *flags]) == 0
    return capsys.readouterr().out


def _line(text: str) -> str:
    [line] = [x for x in text.splitlines() if x.startswith("Days from:")]
    return line


def test_a_long_log_is_replayed_by_default_the_same_on_any_worker_count(capsys) -> None:
    one = _advise(capsys, BUNDLED, *SMALL, "1")
    assert one.startswith("Advice for the history of help-centre-edits.csv replayed: 288 articles")
    assert _line(one).startswith(
        "Days from: the log's own history replayed (--days-from trace): its days drawn in "
        "7-day blocks of consecutive days from 2,206 days of history (526 with saves"
    )
    assert "\nHistory replayed (8 days, " in one
    assert "\nChecked on 8 independent days (seeds from 100,001): " in one
    assert _advise(capsys, BUNDLED, *SMALL, "2") == one
    got = json.loads(_advise(capsys, BUNDLED, *SMALL, "1", "--json"))
    assert got["days_from"]["process"] == "trace" and set(got["rows"]) == {"trace", "Poisson"}
    # checking days without a save are counted though not simulated
    two = _advise(capsys, BUNDLED, *SMALL, "1", "--max-days", "2")
    assert "\nChecked on 2 independent days (seeds from 100,001): " in two
    fitted = _advise(capsys, BUNDLED, *SMALL, "1", "--days-from", "fitted")
    assert _line(fitted) == "Days from: the fitted edit process (--days-from fitted): asked for."
    assert "\nCalibrated process (8 days, " in fitted


def test_a_short_log_falls_back_to_the_fitted_process_and_says_why(tmp_path, capsys) -> None:
    log = tmp_path / "edits.csv"
    log.write_text("".join(BUNDLED.read_text().splitlines(keepends=True)[:300]))  # 41 days
    text = _advise(capsys, log, *SMALL, "1")
    assert _line(text).startswith(
        "Days from: the fitted edit process (--days-from fitted): the history cannot be "
        "replayed: the history has saves on "
    )
    assert "needs saves on at least 60 days spanning at least 90." in _line(text)
    assert text.startswith("Advice for the edit process fitted to edits.csv")
    with pytest.raises(SystemExit) as stop:
        main(["advise", "--edit-log", str(log), "--days-from", "trace"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "--days-from trace: the history" in err[0]


def test_what_the_replayed_log_cannot_have_falls_back_or_is_refused(capsys) -> None:
    assert "--articles" in tracedays.choose_log(None, BUNDLED, 50, None).why
    assert "--saves-per-day" in tracedays.choose_log(None, BUNDLED, None, 3).why
    with pytest.raises(SystemExit) as stop:
        main(["advise", "--edit-log", str(BUNDLED), "--days-from", "forms"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "--days-from forms: only with --db" in err[0]


def test_a_log_that_cannot_be_fitted_says_its_days_are_poisson(tmp_path, capsys) -> None:
    """A KB whose edit log edits one article only: no popularity to fit, too short to
    replay; its days are the write-up's Poisson ones and the `Days from` line says so."""
    from sim.bench.docsrepo import build
    from sim.importer.paths import default_edit_log

    db = tmp_path / "kb.sqlite"
    assert main(["import", str(build(tmp_path / "docs", 20, commits=40)), "--db", str(db)]) == 0
    log = default_edit_log(db)
    rows = log.read_text().splitlines(keepends=True)
    log.write_text("".join([rows[0], *(r for r in rows[1:] if ",topic-00/article-00000," in r)]))
    capsys.readouterr()
    flags = ["--questions-per-day", "10", "--max-days", "2", "--workers", "1"]
    assert main(["advise", "--db", str(db), *flags]) == 0
    text = capsys.readouterr().out
    assert "The KB's edit log cannot be fitted (" in text
    assert _line(text).startswith(
        "Days from: the write-up's Poisson process (the history cannot be fitted either) "
        "(--days-from fitted): the history cannot be replayed: "
    )
    assert main(["advise", "--db", str(db), *flags, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["days_from"]["process"] == "poisson"


def test_a_gzip_log_is_replayed_as_its_plain_copy(tmp_path: Path) -> None:
    """The log's bytes are read once, gzip or not, as `read_log` reads them: a .csv.gz is
    replayed, not turned down as unreadable."""
    import gzip

    import numpy as np

    packed = tmp_path / "edits.csv.gz"
    packed.write_bytes(gzip.compress(BUNDLED.read_bytes(), mtime=0))
    plain, zipped = tracedays.log_history(BUNDLED), tracedays.log_history(packed)
    assert (plain.n_days, plain.n_articles) == (zipped.n_days, zipped.n_articles)
    for field in ("epoch_s", "target", "kind", "publish"):
        assert np.array_equal(getattr(plain, field), getattr(zipped, field)), field
