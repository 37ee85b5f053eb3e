"""The universal lock is complete on every platform and Python a user has, and the environment
is the lock's.

uv.lock is the lock (uv's universal resolution; every package's dependencies with their
markers); requirements.lock is its export for pip, the file `make install` reads. For each
platform × Python below, the packages pip selects from requirements.lock (its markers
evaluated with `packaging`) must hold every requirement of every selected package, read from
the package's own installed metadata where it is installed here and from uv.lock where it is
not (appnope, colorama, pywin32: the other platforms' packages), within the requirement's
version range, each with a wheel for that platform and its hashes. No network is needed.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterator, Set
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from sim import environment

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "stale-citations-sim"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?:\s*;\s*(.*?))?\s*\\?$")

PLATFORMS: dict[str, dict[str, str]] = {
    "linux-x86_64": {"sys_platform": "linux", "platform_system": "Linux", "machine": "x86_64"},
    "linux-aarch64": {"sys_platform": "linux", "platform_system": "Linux", "machine": "aarch64"},
    "macos-arm64": {"sys_platform": "darwin", "platform_system": "Darwin", "machine": "arm64"},
    "macos-x86_64": {"sys_platform": "darwin", "platform_system": "Darwin", "machine": "x86_64"},
    "windows-amd64": {"sys_platform": "win32", "platform_system": "Windows", "machine": "AMD64"},
}
PYTHONS = ("3.11", "3.12", "3.13")
OLDEST = {"linux": (2, 28), "darwin-arm64": (14, 0), "darwin-x86_64": (13, 0)}
"""The oldest glibc and macOS each platform's wheels may ask for (the README's)."""

ENVIRONMENTS = [(p, v) for p in PLATFORMS for v in PYTHONS]


def _marker_env(platform: str, python: str) -> dict[str, str]:
    p = PLATFORMS[platform]
    return {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "sys_platform": p["sys_platform"],
        "platform_system": p["platform_system"],
        "platform_machine": p["machine"],
        "os_name": "nt" if p["sys_platform"] == "win32" else "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


@functools.cache
def _marker(text: str) -> Marker:
    return Marker(text)


@functools.cache
def _metadata_requires(name: str) -> list[tuple[str, str | None, frozenset[str], str]]:
    """A package's installed Requires-Dist: name, marker, extras, specifier."""
    out = []
    for text in metadata.requires(name) or []:
        r = Requirement(text)
        marker = str(r.marker) if r.marker else None
        out.append((canonicalize_name(r.name), marker, frozenset(r.extras), str(r.specifier)))
    return out


def _holds(marker: str | None, env: dict[str, str], extras: Set[str] = frozenset()) -> bool:
    return not marker or _evaluate(marker, tuple(env.items()), frozenset(extras))


@functools.cache
def _evaluate(marker: str, env: tuple[tuple[str, str], ...], extras: frozenset[str]) -> bool:
    m = _marker(marker)
    return any(m.evaluate({**dict(env), "extra": e}) for e in {"", *extras})


def selected(lock_text: str, env: dict[str, str]) -> dict[str, str]:
    """What pip installs from requirements.lock in this environment: name -> version."""
    out = {}
    for line in lock_text.splitlines():
        if (m := PIN.match(line)) and _holds(m.group(3), env):
            out[canonicalize_name(m.group(1))] = m.group(2)
    return out


def _uv_packages(uv_lock: dict, pins: dict[str, str] | None = None) -> dict[str, dict]:
    """uv.lock's packages by name; a package uv forked by platform, in the pinned version."""
    return {
        canonicalize_name(p["name"]): p
        for p in uv_lock["package"]
        if pins is None or pins.get(canonicalize_name(p["name"]), p["version"]) == p["version"]
    }


def _requirements(
    name: str, extras: set[str], uv: dict[str, dict], installed: bool
) -> Iterator[tuple[str, str | None, set[str], str]]:
    """Each requirement of a package (with these extras): name, marker, extras, specifier.
    From its installed metadata where it is installed in the lock's version, else uv.lock."""
    if installed:
        for dep, marker, extras_of_dep, spec in _metadata_requires(name):
            yield dep, marker, set(extras_of_dep), spec
        return
    package = uv[name]
    edges = list(package.get("dependencies", []))
    for extra in extras:
        edges += package.get("optional-dependencies", {}).get(extra, [])
    for edge in edges:
        yield canonicalize_name(edge["name"]), edge.get("marker"), set(edge.get("extra", [])), ""


@functools.cache
def _is_installed(name: str, version: str) -> bool:
    try:
        return metadata.version(name) == version
    except metadata.PackageNotFoundError:
        return False


def problems(lock_text: str, uv_lock: dict, platform: str, python: str) -> list[str]:
    """Every requirement the selection of requirements.lock leaves unmet here, and every
    selected package no requirement asks for."""
    env = _marker_env(platform, python)
    pins = selected(lock_text, env)
    uv = _uv_packages(uv_lock, pins)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = [(PROJECT, set(project.get("optional-dependencies", {})))]
    seen: set[tuple[str, frozenset[str]]] = set()
    out = []
    while todo:
        name, extras = todo.pop()
        if (name, frozenset(extras)) in seen:
            continue
        seen.add((name, frozenset(extras)))
        installed = name != PROJECT and _is_installed(name, pins.get(name, ""))
        if name == PROJECT:  # the project's own requirements, as pyproject.toml declares
            reqs = [Requirement(r) for r in project["dependencies"]]
            reqs += [
                Requirement(f"{r}; extra == '{e}'")
                for e in extras
                for r in project["optional-dependencies"][e]
            ]
            found = [
                (
                    canonicalize_name(r.name),
                    str(r.marker) if r.marker else None,
                    set(r.extras),
                    str(r.specifier),
                )
                for r in reqs
            ]
        else:
            found = list(_requirements(name, extras, uv, installed))
        for dep, marker, dep_extras, spec in found:
            if not _holds(marker, env, extras):
                continue
            if dep != PROJECT and dep not in pins:
                out.append(f"{dep} (required by {name}) is not in the lock for {platform}")
                continue
            if (
                dep != PROJECT
                and spec
                and not Requirement(f"x{spec}").specifier.contains(pins[dep], prereleases=True)
            ):
                out.append(f"{dep} {pins[dep]} locked, {name} needs {spec}")
            todo.append((dep, dep_extras))
    needed = {n for n, _ in seen} - {PROJECT}
    out += [
        f"{n} is locked for {platform} but nothing needs it" for n in sorted(set(pins) - needed)
    ]
    return out


def _tags(platform: str, python: str) -> set[Tag]:
    p, minor = PLATFORMS[platform], int(python.split(".")[1])
    arch = p["machine"]
    if p["sys_platform"] == "linux":
        glibc = OLDEST["linux"][1]
        plats = [f"manylinux_2_{g}_{arch}" for g in range(glibc, 4, -1)]
        plats += [f"manylinux2014_{arch}"] + (
            ["manylinux2010_x86_64", "manylinux1_x86_64"] if arch == "x86_64" else []
        )
    elif p["sys_platform"] == "darwin":
        plats = list(mac_platforms(OLDEST[f"darwin-{arch}"], arch))
    else:
        plats = ["win_amd64"]
    version = (3, minor)
    return set(cpython_tags(version, platforms=plats)) | set(
        compatible_tags(version, interpreter=f"cp3{minor}", platforms=plats)
    )


def without_wheel(uv_lock: dict, lock_text: str, platform: str, python: str) -> list[str]:
    """Selected packages with no wheel pip can take here (it would have to build them)."""
    pins = selected(lock_text, _marker_env(platform, python))
    tags, uv = _tags(platform, python), _uv_packages(uv_lock, pins)
    out = []
    for name, version in pins.items():
        wheels = uv[name].get("wheels", [])
        names = [w["url"].rsplit("/", 1)[-1] for w in wheels]
        if not any(parse_wheel_filename(w)[3] & tags for w in names):
            out.append(f"{name} {version}")
    return out


@functools.cache
def _read() -> tuple[str, dict]:
    """The two lock files, parsed once (uv.lock's TOML is most of a platform's check); no
    test changes what it gets, a mutated copy is made as a new string."""
    lock_text = (ROOT / "requirements.lock").read_text()
    return lock_text, tomllib.loads((ROOT / "uv.lock").read_text())


@pytest.mark.parametrize(("platform", "python"), ENVIRONMENTS)
def test_the_lock_is_complete_on_every_platform_and_python(platform: str, python: str) -> None:
    lock_text, uv_lock = _read()
    assert not problems(lock_text, uv_lock, platform, python), "run `make lock`"
    assert not without_wheel(uv_lock, lock_text, platform, python)


def test_a_lock_missing_a_platforms_package_fails_there_only() -> None:
    """The check fails on a mutated copy: colorama (tqdm's and pytest's on Windows) and
    appnope (ipykernel's on macOS) taken out of requirements.lock."""
    lock_text, uv_lock = _read()
    for gone, platform in (("colorama", "windows-amd64"), ("appnope", "macos-arm64")):
        block = re.compile(rf"^{gone}==.*?(?=^\S)", re.M | re.S)
        mutated, n = block.subn("", lock_text)
        assert n == 1, gone
        found = problems(mutated, uv_lock, platform, "3.12")
        assert any(p.startswith(f"{gone} (required by") for p in found), found
        assert not problems(mutated, uv_lock, "linux-x86_64", "3.12")


def test_the_export_is_uv_locks_versions_with_hashes() -> None:
    lock_text, uv_lock = _read()
    uv = {(canonicalize_name(p["name"]), p["version"]) for p in uv_lock["package"]}
    pins = re.findall(r"^([A-Za-z0-9][\w.-]*)==(\S+?)\s", lock_text, re.M)
    exported = {(canonicalize_name(n), v) for n, v in pins}
    assert exported == {(n, v) for n, v in uv if n != PROJECT}, "run `make lock`"
    blocks = re.split(r"\n(?=[A-Za-z0-9])", lock_text)
    unhashed = [b.split()[0] for b in blocks if PIN.match(b.split("\n")[0]) and "--hash" not in b]
    assert not unhashed


def test_uv_lock_holds_pyprojects_requirements() -> None:
    """uv.lock was resolved from this pyproject.toml (its recorded requirements are ours)."""
    _, uv_lock = _read()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    recorded = _uv_packages(uv_lock)[PROJECT]["metadata"]["requires-dist"]
    locked = {str(Requirement(_uv_requirement(r))) for r in recorded}
    declared = {str(Requirement(r)) for r in project["dependencies"]}
    for extra, reqs in project["optional-dependencies"].items():
        declared |= {str(Requirement(f"{r}; extra == '{extra}'")) for r in reqs}
    assert {_canon(r) for r in locked} == {_canon(r) for r in declared}, "run `make lock`"


def _uv_requirement(r: dict) -> str:
    extras = f"[{','.join(r['extras'])}]" if r.get("extras") else ""
    marker = f"; {r['marker']}" if r.get("marker") else ""
    return f"{r['name']}{extras}{r.get('specifier', '')}{marker}"


def _canon(text: str) -> tuple[str, tuple[str, ...], str, str]:
    r = Requirement(text)
    marker = str(r.marker).replace('"', "'") if r.marker else ""
    return canonicalize_name(r.name), tuple(sorted(r.extras)), str(r.specifier), marker


def test_the_installed_direct_dependencies_are_the_locked_versions() -> None:
    pins = selected((ROOT / "requirements.lock").read_text(), _here())
    installed = {n: metadata.version(n) for n in environment.direct_dependencies() if _installed(n)}
    assert installed, "no direct dependency found installed"
    off = {
        n: (v, pins.get(canonicalize_name(n)))
        for n, v in installed.items()
        if pins.get(canonicalize_name(n)) != v
    }
    assert not off, f"installed (version, locked): {off}; `make` installs from the lock"
    assert Version(metadata.version("packaging")) >= Version("24")


def _here() -> dict[str, str]:
    from packaging.markers import default_environment

    return dict(default_environment())


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True
