"""The knowledge base and its face stay two packages: ``sim.server`` imports the store, and
the store (``sim.kb``) imports neither its face nor the simulation, so it can be served or
tested without them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

KB = Path(__file__).resolve().parent.parent / "sim" / "kb"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (a function's lazy import counts)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import; name the package"
            assert node.module is not None
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_kb_package_holds_the_store_and_the_face_is_elsewhere() -> None:
    assert (KB / "store.py").is_file()
    assert not (KB / "tools.py").exists() and not (KB / "mcp_server.py").exists()


@pytest.mark.parametrize("path", sorted(KB.glob("*.py")), ids=lambda p: p.name)
def test_the_store_imports_nothing_from_its_face_or_the_model(path: Path) -> None:
    forbidden = ("sim.server", "simpy", "sim.model")
    bad = sorted(
        name
        for name in imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )
    assert not bad, f"sim/kb/{path.name} imports {bad}"


def test_the_scan_sees_a_lazy_import_of_the_face(tmp_path: Path) -> None:
    """The check above can fail: a file importing the face, even inside a function, is seen."""
    probe = tmp_path / "probe.py"
    probe.write_text("import simpy\n\ndef f():\n    from sim.server import tools\n")
    assert {"simpy", "sim.server", "sim.server.tools"} <= imported_modules(probe)
