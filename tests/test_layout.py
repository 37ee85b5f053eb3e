"""The import contracts (`[tool.importlinter]` in pyproject.toml, run by `make test`'s lint):
they hold on the code, and each breaks when an import crosses it, a function's lazy one
included, on a copy of the package: the KB store's, the layers' (a package importing one
above it) and no cycle (among a package's modules, and among sim's top-level ones)."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_contracts_hold_on_the_code(linted: list[tuple[int, str]]) -> None:
    """On an unchanged copy of the package, linted with the broken ones below."""
    status, text = linted[0]
    assert status == 0, text[-3000:]
    assert "4 kept, 0 broken" in text


BREAKS = [
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
]
"""A module, the import a lazy function of it gains, and the contract that must break."""
LINT_EACH = """
import contextlib, importlib, io, json, os, sys
from importlinter.cli import lint_imports
out, path = [], list(sys.path)
for parent in sys.argv[2:]:
    os.chdir(parent)
    sys.path[:] = [parent, *path]
    importlib.invalidate_caches()
    with contextlib.redirect_stdout(io.StringIO()) as text:
        status = lint_imports(config_filename=sys.argv[1], no_cache=True)
    out.append([status, text.getvalue()])
print(json.dumps(out))
"""
"""`lint-imports`' own function on each copy in turn, in one interpreter, in the copy's
folder with it first on the path (as the command run there with it as PYTHONPATH): an
interpreter and import-linter's imports for each copy were half of each run's CPU."""


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, str]]:
    """import-linter's status and report on an unchanged copy of the package, then on a copy
    per entry of BREAKS (the unchanged one in the same interpreter: a `lint-imports` of its
    own was an interpreter and import-linter's imports more)."""
    parents = []
    for entry in [None, *BREAKS]:
        parent = tmp_path_factory.mktemp("copy")
        shutil.copytree(ROOT / "sim", parent / "sim", ignore=shutil.ignore_patterns("__pycache__"))
        if entry is not None:
            module, line, _ = entry
            path = parent / "sim" / module
            path.write_text(path.read_text() + f"\n\ndef _lazy() -> None:\n    {line}  # noqa\n")
        parents.append(str(parent))
    done = subprocess.run(
        [sys.executable, "-c", LINT_EACH, str(ROOT / "pyproject.toml"), *parents],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [(status, text) for status, text in json.loads(done.stdout)]


@pytest.mark.parametrize(
    ("i", "module", "line", "contract"), [(i, *b) for i, b in enumerate(BREAKS)]
)
def test_an_import_across_a_contract_breaks_it(
    linted: list[tuple[int, str]], i: int, module: str, line: str, contract: str
) -> None:
    """The report names the contract and the import added, or for a cycle within a package
    that package (a copy linted as another's would name another's)."""
    status, text = linted[i + 1]
    assert status != 0
    broken = [x for x in text.splitlines() if " BROKEN" in x]  # "(1 ignored import)"
    assert any(x.startswith(contract) for x in broken), text[-3000:]
    importer = "sim." + module.removesuffix(".py").replace("/", ".")
    imported = line.split()[1] if line.startswith("import ") else ".".join(line.split()[1::2])
    package = importer.rsplit(".", 1)[0]  # a cycle within it is named by its package
    cycle = contract.startswith("No import cycle") and f"cycles are allowed in {package}." in text
    assert cycle or f"{importer} -> {imported}" in text, text[-3000:]


@pytest.mark.parametrize(
    "module", ["sim.results.check", "sim.bench.process", "sim.bench.stdio", "sim.bench.http_load"]
)
def test_every_root_is_the_repository(module: str) -> None:
    """A module that finds the repository from its own file still does after a move (the
    move into sim/results/ once left check's at sim/, and make check failed on it)."""
    root = importlib.import_module(module).ROOT
    assert (root / "pyproject.toml").is_file() and (root / "notebooks" / "explore.py").is_file()
