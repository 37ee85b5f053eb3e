"""The same rows under every CPU feature level numpy offers on this machine (sim.exactmath
states the rule this holds): tests/cpu_probe.py runs in a subprocess per level, from
numpy's baseline up to everything it found, and every digest must agree."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.environment import cpu_features

ROOT = Path(__file__).resolve().parents[1]


def levels() -> list[tuple[str, str]]:
    """(name, NPY_DISABLE_CPU_FEATURES) for each level: all found features enabled, then
    each dispatched feature and all above it disabled, down to the baseline alone. Under a
    level set from outside (NPY_DISABLE_CPU_FEATURES, as a run of the whole suite at a lower
    level sets it) the levels start there and keep what it disables."""
    from numpy._core import _multiarray_umath as umath

    dispatch = list(umath.__cpu_dispatch__)
    found = cpu_features()["dispatched_found"]
    outer = os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split()
    baseline = "baseline " + "+".join(umath.__cpu_baseline__)
    out = [(f"all found: {found[-1]}" if found else baseline, " ".join(outer))]
    for i in reversed(range(len(dispatch))):
        if dispatch[i] in found:
            below = [f for f in found if dispatch.index(f) < i]
            disabled = " ".join(dict.fromkeys(outer + dispatch[i:]))
            out.append((below[-1] if below else baseline, disabled))
    return out


BOOT = 4
"""The probe's bootstrap resamples and goodness-of-fit simulations."""


def _probe(disabled: str) -> dict:
    """The probe's digests at a level: in this process if it is this process's own (numpy
    read NPY_DISABLE_CPU_FEATURES when it was imported; the first level, which keeps what
    the environment disables, is this process's), else in a subprocess started at it."""
    if disabled == " ".join(os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split()):
        from tests.cpu_probe import probe

        return probe(BOOT)
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": disabled}
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "cpu_probe.py"), str(BOOT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.deep
def test_every_cpu_level_gives_the_same_rows(deep: bool) -> None:
    """make test: everything found against the baseline alone (the two furthest apart);
    make check: every level between them too. The first level is probed in this test's own
    process (see _probe), every other in a subprocess started at its level."""
    every = levels()
    chosen = every if deep else list(dict.fromkeys([every[0], every[-1]]))
    runs = {name: _probe(disabled) for name, disabled in chosen}
    print("CPU levels run:", "; ".join(f"{n} ({r['cpu']})" for n, r in runs.items()))
    [first, *others] = runs
    # the levels really differ: each run found fewer dispatched features than the one before
    found = [len(r["cpu"]["dispatched_found"]) for r in runs.values()]
    assert found == sorted(found, reverse=True) and len(set(found)) == len(found), found
    for name in others:
        for part in ("schedules", "calibration", "days"):
            assert runs[name][part] == runs[first][part], (part, first, name)


def test_the_levels_run_down_to_the_baseline() -> None:
    found = levels()
    assert found[-1][0].startswith("baseline")
    assert len(found) == 1 + len(cpu_features()["dispatched_found"])


KERNELS = {
    "exp",
    "exp2",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "power",
    "float_power",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "arctan2",
    "sinh",
    "cosh",
    "tanh",
    "dot",
    "matmul",
    "inner",
    "vdot",
    "einsum",
    "corrcoef",
    "cov",
    "logaddexp",
}
"""numpy functions whose results depend on the CPU's kernels (vector code or BLAS)."""
ROUNDED = ("sim/freshness/", "sim/exactmath.py")
"""Modules (a folder: its modules) allowed them: the closed forms round what they return
(sim.exactmath.rounded)."""


def _kernel_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in KERNELS
            and isinstance(node.value, ast.Name)
            and node.value.id in {"np", "numpy"}
        ):
            found.append(f"np.{node.attr}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append("@")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = node.right
            if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, int)):
                found.append(f"** {ast.unparse(exponent)}")
    return [f"{path.relative_to(ROOT)}:{f}" for f in found]


def test_no_module_outside_the_closed_forms_uses_a_cpu_dependent_kernel() -> None:
    """What decides a draw, a count or a figure goes through sim.exactmath instead."""
    uses = [
        u
        for p in sorted((ROOT / "sim").rglob("*.py"))
        if not p.relative_to(ROOT).as_posix().startswith(ROUNDED)
        for u in _kernel_uses(p)
    ]
    assert not uses, uses
