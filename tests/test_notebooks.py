"""The notebooks run top to bottom on small parameters, and save their outputs when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.notebook import execute

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SMALL = {
    "explore.py": {
        "SEEDS": 1,
        "SENSITIVITY_S": (0.9,),
        "SENSITIVITY_SAVES": (150,),
        "SENSITIVITY_FOLLOWS": (1.0,),
        "BREAK_EVEN_SAVES": (300, 1500),
        "BREAK_EVEN_QUESTIONS": (10,),
        "BREAK_EVEN_INTERVALS_S": (3600.0,),
        "BREAK_EVEN_SEEDS": 1,
        "SWEEP_INTERVALS_MIN": (15, 60),
        "SWEEP_SEEDS": 1,
        "FIT_BOOT": 5,
        "REAL_SEEDS": 1,
        "REAL_ARMS": ("writeup", "calibrated"),
        "WORKERS": 1,
    },
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_on_small_parameters(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel draws with Agg: every figure is still made and saved, but not drawn again
    as an inline image (a quarter of this test's time); the full runs of `make reproduce`
    and `make check` draw them inline too."""
    monkeypatch.setenv("MPLBACKEND", "agg")  # the kernel takes it from its environment
    nb = execute(NOTEBOOKS / name, {**SMALL[name], "OUT_DIR": str(tmp_path)})
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
    shown = [c for c in nb.cells if c.cell_type == "code" and "show(fig)" in c.source]
    for cell in shown:  # each figure is displayed inline (as text under Agg, as PNG inline)
        assert any(o.get("output_type") == "display_data" for o in cell.outputs), cell.source
    saved = {p.name for p in tmp_path.iterdir()}
    assert {"sensitivity.csv", "break_even.csv", "sensitivity.png", "break_even.png"} <= saved
    assert {"exposure.csv", "exposure.png"} <= saved
    assert {"edit_fit.png", "realshape_rows.csv", "realshape.png"} <= saved


def test_every_notebook_has_small_parameters() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.py")) == sorted(SMALL)
