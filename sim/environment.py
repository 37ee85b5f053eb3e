"""What made a results folder: this package's version (its release in CHANGELOG.md),
Python, every direct dependency's version, numpy's CPU features. `make reproduce` writes it
beside the figures (results/environment.json).

The package versions come from the lock (uv.lock, exported to requirements.lock), so
`make check` holds a fresh run's to the committed ones; the Python patch release and the CPU
may differ between machines without moving a figure (``sim.exactmath`` says why), so they
are recorded, not compared; so is the package's version, which a later release that gives
the same figures changes.
"""

from __future__ import annotations

import importlib
import json
import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Any

FILE = "environment.json"
DISTRIBUTION = "stale-citations-sim"
COMPARED = ("packages",)
"""The keys `make check` compares; the others describe the machine."""


def _name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def direct_dependencies() -> list[str]:
    """This project's direct dependencies, the optional ones (extras) included (an extra
    that names others, as `dev` does, is the project itself: left out)."""
    names = {_name(r) for r in metadata.requires(DISTRIBUTION) or []}
    return sorted(names - {DISTRIBUTION})


def cpu_features() -> dict[str, list[str]]:
    """numpy's baseline and the dispatched CPU features it found on this machine."""
    # private and untyped: imported by name, so its attributes are read as untyped
    umath = importlib.import_module("numpy._core._multiarray_umath")

    found = umath.__cpu_features__
    return {
        "baseline": list(umath.__cpu_baseline__),
        "dispatched_found": [f for f in umath.__cpu_dispatch__ if found.get(f)],
    }


def describe() -> dict[str, Any]:
    packages: dict[str, str | None] = {}
    for name in direct_dependencies():
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None  # an extra not installed here
    return {
        "version": metadata.version(DISTRIBUTION),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "packages": packages,
        "numpy_cpu": cpu_features(),
    }


def write(path: Path) -> None:
    path.write_text(json.dumps(describe(), indent=2, sort_keys=True) + "\n")


def differences(committed: Path, fresh: Path) -> list[str]:
    """Lines for each compared key that differs between two environment files."""
    a, b = json.loads(committed.read_text()), json.loads(fresh.read_text())
    out = []
    for key in COMPARED:
        for name in sorted(set(a.get(key, {})) | set(b.get(key, {}))):
            x, y = a.get(key, {}).get(name), b.get(key, {}).get(name)
            if x != y:
                out.append(f"{FILE}: {name} {x} committed, {y} in the fresh run")
    return out
