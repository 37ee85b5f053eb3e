"""requirements.lock and pyproject.toml agree, and the environment is the lock's."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from sim import environment

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if m := PIN.match(line):
            pins[_canonical(m.group(1))] = m.group(2)
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return [
        Requirement(r) for r in project["dependencies"] + [r for v in extras.values() for r in v]
    ]


def test_every_declared_dependency_is_locked_within_its_range() -> None:
    pins = _lock()
    wrong = [
        f"{r.name}: {r.specifier or 'any'} declared, {pins.get(_canonical(r.name))} locked"
        for r in _declared()
        if _canonical(r.name) not in pins
        or not r.specifier.contains(pins[_canonical(r.name)], prereleases=True)
    ]
    assert not wrong, "run `make lock`: " + "; ".join(wrong)


def test_every_locked_package_carries_its_hashes() -> None:
    text = (ROOT / "requirements.lock").read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    unhashed = [b.split()[0] for b in blocks if PIN.match(b) and "--hash=sha256:" not in b]
    assert not unhashed and len(blocks) >= len(_declared()), unhashed


def test_the_installed_direct_dependencies_are_the_locked_versions() -> None:
    pins = _lock()
    installed = {n: metadata.version(n) for n in environment.direct_dependencies() if _installed(n)}
    assert installed, "no direct dependency found installed"
    off = {
        n: (v, pins.get(_canonical(n)))
        for n, v in installed.items()
        if pins.get(_canonical(n)) != v
    }
    assert not off, f"installed (version, locked): {off}; `make` installs from the lock"


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True
