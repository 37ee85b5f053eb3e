"""The import contracts (`[tool.importlinter]` in pyproject.toml, run by `make test`'s lint):
they hold on the code, and each breaks when an import crosses it, a function's lazy one
included, on a copy of the package: the KB store's, the layers' (a package importing one
above it) and no cycle (among a package's modules, and among sim's top-level ones)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(package_parent: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=package_parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_contracts_hold_on_the_code(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "sim", tmp_path / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    done = _lint(tmp_path)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "4 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("kb/store.py", "import simpy", "The KB store knows nothing of its MCP face"),
        ("kb/cas.py", "from sim.server import tools", "The KB store knows nothing of its MCP face"),
        ("server/tools.py", "from sim.model import day", "Layers: each package imports only"),
        ("study/metrics.py", "from sim.report import tables", "Layers: each package imports only"),
        ("calibrate/fit.py", "from sim.model import day", "Layers: each package imports only"),
        ("report/tables.py", "from sim.results import seedrows", "Layers: each package imports"),
        ("bench/process.py", "from sim.bench import loops", "No import cycle among the modules"),
        ("advise/closed.py", "from sim.advise import db", "No import cycle among the modules"),
        ("exactmath.py", "from sim import theory", "No import cycle among the modules"),
        ("report/tables.py", "from sim import theory", "The report evaluates no closed form"),
    ],
)
def test_an_import_across_a_contract_breaks_it(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    shutil.copytree(ROOT / "sim", tmp_path / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "sim" / module
    path.write_text(path.read_text() + f"\n\ndef _lazy() -> None:\n    {line}  # noqa\n")
    done = _lint(tmp_path)
    assert done.returncode != 0
    broken = [x for x in done.stdout.splitlines() if " BROKEN" in x]  # "(1 ignored import)"
    assert any(x.startswith(contract) for x in broken), done.stdout[-3000:]


@pytest.mark.parametrize(
    "module", ["sim.results.check", "sim.bench.process", "sim.bench.stdio", "sim.bench.http_load"]
)
def test_every_root_is_the_repository(module: str) -> None:
    """A module that finds the repository from its own file still does after a move (the
    move into sim/results/ once left check's at sim/, and make check failed on it)."""
    root = importlib.import_module(module).ROOT
    assert (root / "pyproject.toml").is_file() and (root / "notebooks" / "explore.py").is_file()
