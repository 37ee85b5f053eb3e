"""The package people install: every third-party import declared where it is used, and the
built wheel, installed by pip into a fresh venv, runs each command's --help and a small run
through its console script, with only its runtime dependencies importable.

The fresh venv is offline: its dependencies are this environment's installed distributions
of the wheel's runtime closure (read from the wheel's own Requires-Dist, no extra), linked
into one folder on its path; nothing of an extra (jupytext, dask, httpx2) is there, so the
notebook command must say which extra to install.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("reproduce", "notebook", "sweep", "bench", "serve", "log-report", "advise")
COMMANDS += ("calibrate", "import")
EXTRA_OF = {  # modules that import an extra's packages (inside the commands that need them)
    "sim/cli/notebook.py": ("notebook",),
    "sim/notebook.py": ("notebook",),
    "sim/results/check.py": ("notebook", "dask"),  # make check
    "sim/study/experiments.py": ("dask",),  # --scheduler
    "sim/study/sweep.py": ("dask",),
    "sim/server/http.py": ("http",),  # serve --http
    "sim/server/http_front.py": ("http",),
    "sim/server/http_guard.py": ("http",),
    "sim/server/http_sessions.py": ("http",),
    "sim/bench/http_floor.py": ("http",),
    "sim/bench/http_raw.py": ("bench",),
    "sim/bench/http_load.py": ("bench",),
}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(reqs: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in reqs}


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """A file's syntax tree, flat: parsed once for the tests that read its imports."""
    return tuple(ast.walk(ast.parse(path.read_text())))


def _third_party_imports(path: Path) -> set[str]:
    tops = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return {t for t in tops if t not in sys.stdlib_module_names and t != "sim"}


def test_every_third_party_import_is_declared_where_it_is_used() -> None:
    """Runtime dependencies for sim/ at large; an extra's for the modules only its commands
    import."""
    project = _project()
    runtime, extras = _names(project["dependencies"]), project["optional-dependencies"]
    distributions = metadata.packages_distributions()
    undeclared = []
    for path in sorted((ROOT / "sim").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        allowed = set(runtime).union(*(_names(extras[e]) for e in EXTRA_OF.get(rel, ())))
        for top in sorted(_third_party_imports(path)):
            dists = {canonicalize_name(d) for d in distributions.get(top, [top])}
            if not dists & allowed:
                undeclared.append(f"{rel}: {top} ({', '.join(sorted(dists))})")
    every = runtime.union(*(_names(reqs) for reqs in extras.values()))
    for path in sorted((ROOT / "tests").rglob("*.py")):  # the dev extra's, with all extras
        for top in sorted(_third_party_imports(path) - {"tests"}):
            dists = {canonicalize_name(d) for d in distributions.get(top, [top])}
            if not dists & every:
                undeclared.append(f"{path.relative_to(ROOT).as_posix()}: {top}")
    assert not undeclared, undeclared
    assert "httpx2" not in runtime and "httpx2" in _names(extras["bench"])


def _imported_modules(path: Path) -> set[str]:
    """Every module a file names in an import, in full (`from a import b` names a and a.b)."""
    names = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_the_type_check_skips_no_module_that_sim_imports() -> None:
    """pyproject.toml lets mypy take some packages as Any unread (follow_imports = skip): only
    those that sim/ reaches through its dependencies' internals, so none of sim/'s own calls
    is checked against Any."""
    skipped = [
        pattern
        for override in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"][
            "overrides"
        ]
        if override.get("follow_imports") == "skip"
        for pattern in override["module"]
    ]
    assert skipped and all(p.endswith(".*") for p in skipped)
    bases = [p.removesuffix(".*") for p in skipped]
    hits = sorted(
        f"{path.relative_to(ROOT).as_posix()}: {name}"
        for path in (ROOT / "sim").rglob("*.py")
        for name in _imported_modules(path)
        if any(name == b or name.startswith(b + ".") for b in bases)
    )
    assert not hits, hits


def test_serve_http_without_the_http_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.__main__ import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "uvicorn" else real(n, *a)
    )
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--http", "127.0.0.1:0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1
    assert "needs the 'http' extra (uvicorn is not installed)" in err[0]
    assert "pip install 'stale-citations-sim[http]'" in err[0]


def _closure(requires: list[str]) -> set[str]:
    """The installed distributions a wheel's runtime Requires-Dist reaches (no extra)."""
    env = {"extra": ""}
    todo = [Requirement(r) for r in requires]
    seen: set[str] = set()
    while todo:
        r = todo.pop()
        name = canonicalize_name(r.name)
        if name in seen or (r.marker and not r.marker.evaluate(env)):
            continue
        seen.add(name)
        for text in metadata.requires(name) or []:
            dep = Requirement(text)
            if not dep.marker or any(dep.marker.evaluate({"extra": e}) for e in {"", *r.extras}):
                todo.append(dep)
    return seen


def _link_site(names: set[str], into: Path) -> None:
    """Each distribution's top-level files and folders, linked into one folder."""
    into.mkdir()
    for name in names:
        dist = metadata.distribution(name)
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            source = Path(dist.locate_file(top))
            if source.exists() and not (into / top).exists():
                (into / top).symlink_to(source)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, deep: bool) -> Path:
    """A venv with the built wheel installed by pip, and its runtime dependencies only.
    About 30 s on this project's machines: `make check` runs it (--deep), not `make test`."""
    if not deep:
        pytest.skip("the wheel in a fresh venv: make check (pytest --deep -m deep)")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    shutil.copytree(ROOT / "sim", src / "sim", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", tmp, src]
    subprocess.run(build, check=True, capture_output=True, cwd=tmp)
    [wheel] = tmp.glob("stale_citations_sim-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    install = [*pip, "--python", python, "install", "--no-deps", "--no-index", wheel]
    subprocess.run(install, check=True, capture_output=True, cwd=tmp)
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = Parser().parsestr(z.read(meta).decode()).get_all("Requires-Dist") or []
    _link_site(_closure(requires), tmp / "deps")
    site = next((venv / "lib").glob("python3.*/site-packages"))
    (site / "runtime-deps.pth").write_text(str(tmp / "deps") + "\n")
    return venv


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = venv / "bin" / "stale-citations"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.mark.deep
def test_the_wheel_carries_its_metadata_and_typing_marker(fresh: Path) -> None:
    site = next((fresh / "lib").glob("python3.*/site-packages"))
    [info] = site.glob("stale_citations_sim-*.dist-info")
    meta = Parser().parsestr((info / "METADATA").read_text())
    assert meta["License-Expression"] == "MIT" and "Typing :: Typed" in meta.get_all("Classifier")
    assert meta["Author"] == "The stale-citations-sim authors"
    assert {"notebook", "http", "dask", "bench", "dev"} <= set(meta.get_all("Provides-Extra"))
    assert (site / "sim" / "py.typed").exists() and (
        site / "sim" / "server" / "tools.json"
    ).exists()
    # the report's prose: every template in the checkout is in the wheel
    templates = Path(__file__).parents[1] / "sim" / "report" / "templates"
    shipped = {p.name for p in (site / "sim" / "report" / "templates").glob("*.j2")}
    assert shipped and shipped == {p.name for p in templates.glob("*.j2")}
    assert "stale-citations = sim.cli:entry" in (info / "entry_points.txt").read_text()


@pytest.mark.deep
def test_every_command_of_the_console_script_runs_from_the_wheel(
    fresh: Path, tmp_path: Path
) -> None:
    """Outside the checkout, so only the installed package is importable."""
    for command in ("", *COMMANDS):
        done = _run(fresh, *([command] if command else []), "--help", cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.startswith(f"usage: stale-citations {command}".rstrip()), done.stdout
    site = next((fresh / "lib").glob("python3.*/site-packages"))
    where = _run(fresh, "log-report", "--help", cwd=tmp_path)  # the installed copy runs
    assert "log-report" in where.stdout and not (tmp_path / "sim").exists() and site.exists()
    out = tmp_path / "sweep.csv"
    small = _run(fresh, "sweep", "n_articles=60", "--seeds", "1", "--experiments", "cas",
                 "--workers", "1", "--out", str(out), cwd=tmp_path)  # fmt: skip
    assert small.returncode == 0, small.stderr
    assert re.match(r"wrote 1 runs? to ", small.stderr.strip().splitlines()[-1]), small.stderr
    assert out.read_text().startswith("seed,") or "," in out.read_text().splitlines()[0]
    notebook = _run(fresh, "notebook", cwd=tmp_path)
    assert notebook.returncode == 2 and len(notebook.stderr.strip().splitlines()) == 1
    assert "pip install 'stale-citations-sim[notebook]'" in notebook.stderr


def test_the_citation_file_names_what_pyproject_does() -> None:
    """CITATION.cff (Citation File Format 1.2.0) agrees with the package's metadata."""
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = _project()
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software" and cff["message"]
    assert cff["version"] == project["version"] and cff["license"] == project["license"]
    assert [a["name"] for a in cff["authors"]] == [a["name"] for a in project["authors"]]
    assert cff["title"].startswith(project["name"] + ":")
