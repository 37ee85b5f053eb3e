"""`sim`'s public API: the example in its docstring runs as written, and importing the
package loads none of the model's libraries (every command and worker imports it first)."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import sim


def test_the_docstring_example_runs_as_written() -> None:
    result = doctest.testmod(sim, verbose=False)
    assert result.attempted >= 8 and result.failed == 0


def test_each_public_name_is_the_one_its_module_defines() -> None:
    from sim.kb.store import KBStore
    from sim.model.day import run_day
    from sim.params import Params
    from sim.study.experiments import run_study
    from sim.study.methodrows import method_rows
    from sim.study.metrics import per_seed

    assert (
        sim.Params,
        sim.run_day,
        sim.run_study,
        sim.per_seed,
        sim.method_rows,
        sim.KBStore,
    ) == (Params, run_day, run_study, per_seed, method_rows, KBStore)
    assert sorted(sim.__all__) == sorted(sim._WHERE)
    with pytest.raises(AttributeError, match="no attribute 'run_days'"):
        _ = sim.run_days


def test_importing_sim_loads_none_of_the_models_libraries() -> None:
    code = "import sys, sim; print(sorted({'pandas', 'simpy', 'numpy'} & set(sys.modules)))"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
