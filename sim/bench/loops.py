"""The loops a user waits for: `make reproduce` (the study, then the notebook), `make
test` (lint, then pytest), `make check` (a full fresh rerun compared with results/) and
`python -m sim advise`, each timed end to end in its own processes, as a user runs it:
wall seconds, and the CPU seconds (user + system) of the processes it ran, which a busy
machine inflates less.

The reproduction writes to a scratch folder, so results/ is untouched; the test run is
the repository's own suite, its regression test included.
"""

from __future__ import annotations

import shlex
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.bench.process import run_steps


def reproduce_wall() -> dict[str, Any]:
    """`make reproduce` on this machine's cores: every table and figure, then the notebook."""
    from sim.params import Params
    from sim.results.seedrows import study_days

    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        timed = run_steps(
            [
                ("study", [py, "-m", "sim", "reproduce", "--out", f"{tmp}/results"]),
                ("notebook", [py, "-m", "sim", "notebook", "--out", f"{tmp}/notebook"]),
            ]
        )
    return timed | {"study_days": study_days(Params())}


def quick_wall() -> dict[str, Any]:
    """`python -m sim reproduce --quick`: every table and figure on a sixtieth of the seeds,
    on a cache of fixed logs' fits of its own (``sim.calibrate.cache``): once with none kept
    yet ("cold", as on a fresh machine), then the timed run, which reads what that one kept."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "sim", "reproduce", "--quick", "--out", f"{tmp}/q"]
        env = {"STALE_CITATIONS_CACHE": f"{tmp}/cache"}
        cold = run_steps([("quick study, no fit kept", command)], env)
        return {**run_steps([("quick study", command)], env), "cold": cold}


def test_wall() -> dict[str, Any]:
    """`make test` once its environment is installed: ruff and the import contracts, then
    mypy from an empty cache (as on a fresh clone) beside pytest (on every core, up to four:
    pyproject's addopts run it under pytest-xdist), as the Makefile runs them: one step."""
    py = sys.executable
    bin_dir = Path(py).parent
    code = ["sim", "tests", "notebooks"]
    with tempfile.TemporaryDirectory() as cache:
        mypy = shlex.join([py, "-m", "mypy", "--cache-dir", cache])
        pytest = shlex.join([py, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
        out = shlex.quote(f"{cache}/mypy.out")
        beside = (
            f"{mypy} > {out} 2>&1 & m=$!; {pytest}; t=$?; wait $m; y=$?; cat {out}; "
            '[ "$y" -eq 0 ] || exit "$y"; exit "$t"'
        )
        return run_steps(
            [
                ("ruff check", [py, "-m", "ruff", "check", *code]),
                ("ruff format", [py, "-m", "ruff", "format", "--check", *code]),
                ("lint-imports", [str(bin_dir / "lint-imports"), "--no-cache"]),
                ("mypy beside pytest", ["sh", "-c", beside]),
            ]
        )


def check_wall() -> dict[str, Any]:
    """`make check`: the full fresh rerun (study, notebook) compared with results/, then the
    deep tests."""
    deep = [sys.executable, "-m", "pytest", "-q", "--deep", "-m", "deep"]
    return run_steps([("check", [sys.executable, "-m", "sim.results.check"]), ("deep tests", deep)])


def _median_of(runs: int, steps: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """`_run` `runs` times: the run of median wall time, with every run's wall seconds
    (`runs_wall_s`); passed only if every run passed. For loops of seconds, where one run
    says more about the machine's neighbours than about the code."""
    done = [run_steps(steps) for _ in range(runs)]
    walls = [d["wall_s"] for d in done]
    median = statistics.median_low(walls)
    passed = all(d["passed"] for d in done)
    return {**done[walls.index(median)], "passed": passed, "runs_wall_s": walls}


ADVISE_ARGS = ["--saves-per-day", "2000", "--max-unnoticed-min", "10"]
"""Issue 23's advisor command, at 5,000 and at 50,000 articles."""
ADVISE_RUNS = 5


def advise_wall(articles: int) -> dict[str, Any]:
    """`python -m sim advise --articles N --saves-per-day 2000 --max-unnoticed-min 10`, the
    median of ADVISE_RUNS runs."""
    command = [sys.executable, "-m", "sim", "advise", "--articles", str(articles), *ADVISE_ARGS]
    return _median_of(ADVISE_RUNS, [("advise", command)])


def calibrate_4m() -> dict[str, Any]:
    """`python -m sim calibrate` on a generated 4 M-row log (sim/bench/calibrate_size.py)."""
    from sim.bench.calibrate_size import calibrate_wall

    return calibrate_wall()


def calibrate_long() -> dict[str, Any]:
    """`python -m sim calibrate` on the bundled log repeated in time to 400,000 rows on its
    288 articles (sim/bench/calibrate_size.py): long histories per article."""
    from sim.bench.calibrate_size import LONG_ROWS, calibrate_wall, write_long_log

    return calibrate_wall(LONG_ROWS, write_long_log)


def http_load_table() -> dict[str, Any]:
    """`serve --http` under 1 to 200 clients beside the SDK's echo floor, in one run
    (sim/bench/http_load.py; about a minute)."""
    from sim.bench import http_load  # httpx2 and anyio: loaded when the loop runs

    return http_load.measure()


def _import_advise_wall(articles: int) -> dict[str, Any]:
    from sim.bench import imported  # loaded when a loop runs

    return imported.import_and_advise_wall(articles)


def _edit_log_wall() -> dict[str, Any]:
    from sim.bench import imported  # as _import_advise_wall

    return imported.edit_log_wall()


LOOPS: dict[str, Callable[[], dict[str, Any]]] = {
    "make_reproduce": reproduce_wall,
    "reproduce_quick": quick_wall,
    "make_test": test_wall,
    "make_check": check_wall,
    "advise_5000": lambda: advise_wall(5_000),
    "advise_50000": lambda: advise_wall(50_000),
    "calibrate_4m": calibrate_4m,
    "calibrate_long_400k": calibrate_long,
    "import_advise_1000": lambda: _import_advise_wall(1_000),
    "import_advise_10000": lambda: _import_advise_wall(10_000),
    "advise_edit_log": _edit_log_wall,
    "http_load": http_load_table,
}
"""The loops, by their key in bench.json."""
ALWAYS = ("http_load",)
"""Loops a bench runs even with --no-loops: a minute each, not tens."""
