"""Every number a command's flags take has limits: a value out of them is one line naming
the flag, what it takes and what it got, exit status 2, before anything runs or is
written (a --workers of -1 was a traceback from the process pool; --seeds 0 wrote empty
tables)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from sim.cli import COMMANDS

LOG = Path(__file__).resolve().parents[1] / "sim" / "calibrate" / "logs" / "help-centre-edits.csv"

BAD = [
    (["sweep", "zipf_s=0.9", "--seeds", "0"], "--seeds", "'0'"),
    (["sweep", "zipf_s=0.9", "--seeds", "-3"], "--seeds", "'-3'"),
    (["sweep", "zipf_s=0.9", "--workers", "0"], "--workers", "'0'"),
    (["sweep", "zipf_s=0.9", "--workers", "-1"], "--workers", "'-1'"),
    (["reproduce", "--quick", "--workers", "-1"], "--workers", "'-1'"),
    (["reproduce", "--seeds", "4"], "--seeds", "'4'"),
    (["reproduce", "--seeds", "five"], "--seeds", "'five'"),
    (["calibrate", str(LOG), "--seed", "-1"], "--seed", "'-1'"),
    (["calibrate", str(LOG), "--boot", "1"], "--boot", "'1'"),
    (["bench", "--repeats", "0", "--no-loops"], "--repeats", "'0'"),
    (["bench", "--factors", "0", "--no-loops"], "--factors", "'0'"),
    (["calibrate", str(LOG), "--session-gap-h", "0"], "--session-gap-h", "0.0"),
    (["advise", "--workers", "0"], "--workers", "'0'"),
    # the maximum before, 10 million, ran some 25 minutes (the sizes' day)
    (["advise", "--saves-per-day", "50001"], "--saves-per-day", "'50001'"),
    (["advise", "--simulate", "21"], "--simulate", "'21'"),
]
CHECKED_IN_RUN = {"calibrate --session-gap-h": "hours above 0 (an open bound) up to a year"}
"""Number flags converted plainly and checked by their command before it runs."""


@pytest.mark.parametrize(("argv", "flag", "got"), BAD, ids=[" ".join(a) for a, _, _ in BAD])
def test_a_number_out_of_its_limits_is_one_line_and_nothing_runs(
    argv: list[str],
    flag: str,
    got: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sim.__main__ import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(tmp_path / "out")] if argv[0] != "advise" else argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1, err
    assert f"{flag}: expected" in err[0]
    assert err[0].endswith(f"got {got} (see python -m sim {argv[0]} --help)"), err[0]
    assert os.listdir(tmp_path) == []


def test_every_number_flag_of_every_command_has_limits() -> None:
    """No flag of a command converts with plain int or float: each is `bounded` (or a
    converter of its own that checks) or checked by its command (CHECKED_IN_RUN, and in
    the table above), so a new number flag cannot go unchecked."""
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    plain = [
        f"{name} {action.option_strings[0]}"
        for name, (add, _) in COMMANDS.items()
        for action in add(sub)._actions
        if action.type in (int, float)
    ]
    assert plain == list(CHECKED_IN_RUN)
