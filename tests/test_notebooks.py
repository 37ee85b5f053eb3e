"""The notebooks run top to bottom on small parameters, and save their outputs when asked.

nbformat, jupytext and sim.notebook (which imports both) are imported in the tests that use
them: nbformat's schema check builds a grammar on import, 2 CPU-seconds that the `make test`
worker not running this module would otherwise pay at collection."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SMALL = {
    "explore.py": {
        "SEEDS": 1,
        "N_SAVES": 60,
        "SENSITIVITY_S": (0.9,),
        "SENSITIVITY_SAVES": (60,),
        "SENSITIVITY_FOLLOWS": (1.0,),
        "BREAK_EVEN_SAVES": (60, 300),
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
"""Parameters that run every cell's code on days of 60 to 300 saves: what the test holds
(each cell runs, each figure is made, saved and shown, the saved notebook is the same bytes
twice) holds at any volume, and a fifth of the default day's saves took about a tenth
off the kernel's CPU. The full volumes run in `make reproduce` and `make check`."""


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_on_small_parameters(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel draws with Agg: every figure is still made and saved, but not drawn again
    as an inline image (a quarter of this test's time); the full runs of `make reproduce`
    and `make check` draw them inline too."""
    import nbformat

    from sim.notebook import execute, save

    monkeypatch.setenv("MPLBACKEND", "agg")  # the kernel takes it from its environment
    committed = (NOTEBOOKS / name).with_suffix(".ipynb").read_bytes()
    (tmp_path / "out").mkdir()
    nb = execute(NOTEBOOKS / name, {**SMALL[name], "OUT_DIR": str(tmp_path / "out")})
    save(nb, tmp_path / "once.ipynb")
    save(nbformat.read(tmp_path / "once.ipynb", as_version=4), tmp_path / "twice.ipynb")
    saved_text = (tmp_path / "once.ipynb").read_text()
    assert saved_text == (tmp_path / "twice.ipynb").read_text()
    assert '"execution_count": null' in saved_text and '"execution_count": 1' not in saved_text
    assert '"iopub.execute_input"' not in saved_text and '"stderr"' not in saved_text
    assert (NOTEBOOKS / name).with_suffix(".ipynb").read_bytes() == committed  # untouched
    tmp_path = tmp_path / "out"
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


def test_the_committed_notebook_is_the_scripts_with_its_figures() -> None:
    """explore.ipynb is paired with explore.py (the same cells), executed, its figures in
    it as PNGs, with nothing that differs between runs (saving it again changes no byte)."""
    import jupytext
    import nbformat

    from sim.notebook import clean, text_outputs

    path = NOTEBOOKS / "explore.ipynb"
    nb = nbformat.read(path, as_version=4)
    script = jupytext.read(NOTEBOOKS / "explore.py")
    for n in (nb, script):
        assert n.metadata["jupytext"]["formats"] == "ipynb,py:percent"
    ours = [c for c in nb.cells if "injected-parameters" not in c.metadata.get("tags", [])]
    assert [c.source for c in ours] == [c.source for c in script.cells]
    shown = [c for c in ours if c.cell_type == "code" and "show(fig)" in c.source]
    assert shown and all(any("image/png" in o.get("data", {}) for o in c.outputs) for c in shown), (
        "each figure is in the notebook as a PNG"
    )
    assert text_outputs(nb) and all(c.execution_count is None for c in ours if "outputs" in c)
    before = path.read_text()
    assert nbformat.writes(clean(nb)) + "\n" == before


def test_parameters_from_the_command_line_take_their_defaults_types() -> None:
    from sim.notebook import ParameterError, defaults, overrides

    known = defaults(NOTEBOOKS / "explore.py")
    got = overrides(
        ["SEEDS=5", "ZIPF_S=1.2", "SENSITIVITY_S=0.5,1", "REAL_ARMS=writeup", "WORKERS=None",
         "EDIT_LOG=logs/my edits.csv", "N_SAVES=600", "CHECK_INTERVAL_S=900"],
        known,
    )  # fmt: skip
    assert got == {
        "SEEDS": 5,
        "ZIPF_S": 1.2,
        "SENSITIVITY_S": (0.5, 1.0),
        "REAL_ARMS": ("writeup",),
        "WORKERS": None,
        "EDIT_LOG": "logs/my edits.csv",
        "N_SAVES": 600,
        "CHECK_INTERVAL_S": 900.0,
    }
    for bad, words in (
        ("SEED=5", "no parameter SEED; its parameters: SEEDS, ZIPF_S"),
        ("SEEDS=five", "SEEDS takes a whole number from 1 to 100,000 (default 20); got 'five'"),
        ("SEEDS=0", "SEEDS takes a whole number from 1 to 100,000"),
        ("SWEEP_SEEDS=0", "SWEEP_SEEDS takes a whole number from 1"),
        ("FIT_BOOT=1", "FIT_BOOT takes a whole number from 2 to 100,000"),
        ("CITATIONS=0", "CITATIONS sets Params.citations_per_answer: expected an integer of 1"),
        ("EDIT_FOLLOWS=2", "EDIT_FOLLOWS sets Params.edit_follows_questions: expected a number"),
        ("SENSITIVITY_FOLLOWS=0,2", "SENSITIVITY_FOLLOWS sets Params.edit_follows_questions"),
        ("SWEEP_INTERVALS_MIN=0", "SWEEP_INTERVALS_MIN (× 60) sets Params.check_interval_s"),
        ("ZIPF_S=-1", "ZIPF_S takes a number ≥ 0"),
        ("ZIPF_S=nan", "ZIPF_S takes a number ≥ 0"),
        ("SENSITIVITY_SAVES=1.5,3", "takes a tuple of numbers"),
        ("SEEDS", "expected NAME=VALUE"),
        ("KB_DB=x.sqlite", "set it with --db"),
    ):
        with pytest.raises(ParameterError, match=re.escape(words)):
            overrides([bad], known)


FREE_NUMBERS = {"WORKERS": "None or above 0", "KB_DAYS": "0 means as many as advise needs"}
"""The notebook's numbers that neither count runs nor set the day's Params, and why."""


def test_every_number_of_the_notebook_is_checked_before_a_cell_runs() -> None:
    """A parameter added to the notebook is given its limits (COUNTS or AS_PARAMS) or a
    reason here: otherwise a value such as 0 passes -p and fails inside a cell."""
    from dataclasses import fields

    from sim.notebook import AS_PARAMS, COUNTS, defaults, overrides
    from sim.params import Params

    known = defaults(NOTEBOOKS / "explore.py")
    numbers = {
        name
        for name, v in known.items()
        if isinstance(v, int | float) or v is None or (v and isinstance(v, tuple) and
                                                       not isinstance(v[0], str))
    }  # fmt: skip
    assert numbers == set(COUNTS) | set(AS_PARAMS) | set(FREE_NUMBERS)
    assert {field for field, _ in AS_PARAMS.values()} <= {f.name for f in fields(Params)}
    for name in numbers - set(FREE_NUMBERS):  # each default is within its own limits
        assert overrides([f"{name}={known[name]!r}"], known) == {name: known[name]}


def test_a_bad_parameter_is_one_line_exit_2_and_nothing_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.__main__ import main

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["notebook", "-p", "SEEDS=5", "-p", "ZIPF=1.2", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1
    assert "-p ZIPF=1.2: the notebook has no parameter ZIPF; its parameters: SEEDS" in err[0]
    assert not out.exists()


def test_without_the_notebook_extra_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in an environment of `pip install stale-citations-sim`: jupytext not importable."""
    import sys

    import sim
    from sim.__main__ import main

    monkeypatch.setitem(sys.modules, "jupytext", None)
    monkeypatch.delitem(sys.modules, "sim.notebook", raising=False)
    monkeypatch.delattr(sim, "notebook", raising=False)
    with pytest.raises(SystemExit) as stop:  # a bad -p too: were the extra found, no run
        main(["notebook", "-p", "SEED=1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1
    assert "needs the 'notebook' extra (jupytext is not installed)" in err[0]
    assert "pip install 'stale-citations-sim[notebook]'" in err[0]


@pytest.mark.deep
def test_the_notebook_advises_for_an_imported_kb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Section 7 with KB_DB set, on a tiny KB imported from a docs site made in git here:
    the notebook's parameters, its imports and that section only (the whole notebook runs
    on its default, KB_DB unset, above), their code cells run in order in one namespace of
    this process, as a kernel runs them (the test above runs the notebook in a kernel; a
    second kernel's start and imports would prove nothing more of this section)."""
    import contextlib
    import io

    import jupytext
    import pandas as pd

    from sim.__main__ import main
    from sim.bench.docsrepo import build
    from sim.notebook import with_parameters

    monkeypatch.setenv("MPLBACKEND", "agg")  # as the kernel above, if pyplot is new here
    repo = build(tmp_path / "docs", 20, commits=100)
    db = tmp_path / "kb.sqlite"
    assert main(["import", str(repo), "--db", str(db)]) == 0
    nb = jupytext.read(NOTEBOOKS / "explore.py")
    cells = nb.cells
    start = next(i for i, c in enumerate(cells) if c.source.startswith("## 7."))
    first = next(i for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells = [cells[first], cells[first + 1], *cells[start:]]
    values = {"KB_DB": str(db), "KB_DAYS": 1, "WORKERS": 1}
    code = [c.source for c in with_parameters(nb, values).cells if c.cell_type == "code"]
    namespace: dict[str, object] = {}
    # the imports cell sets pandas' display width: this process's other tests keep theirs
    with pd.option_context("display.width", pd.get_option("display.width")):
        for source in code[:-1]:
            exec(compile(source, "explore.py", "exec"), namespace)
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code[-1], "explore.py", "exec"), namespace)
    out = printed.getvalue()
    assert out.startswith(f"Advice for the KB {db}: 20 published articles.")
    assert "the edit process fitted to its history" in out and "Decided by " in out
    assert "(1 day, " in out and "CAS edits rejected" in out and "nan" not in out
    assert "not enough days" in out  # one day: no interval printed


def test_notebook_db_that_is_not_a_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sim.__main__ import main

    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["notebook", "--db", str(tmp_path / "none.sqlite"), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and "--db:" in err[-1] and "is not a file" in err[-1]
    assert not out.exists()  # nothing made


def test_outside_the_checkout_the_notebook_says_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notebook is not in the installed package: run elsewhere, the command says so
    and what to do, and makes nothing."""
    from sim.__main__ import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["notebook", "-p", "SEEDS=2"])
    [err] = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and os.listdir(tmp_path) == []
    assert "--path: notebooks/explore.py is not a file; the notebook is in the repository's" in err
    assert err.endswith(
        "or give --path CHECKOUT/notebooks/explore.py (see python -m sim notebook --help)"
    )


def test_a_failing_cell_is_one_plain_line_and_exit_1(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The kernel colours its traceback; the command's line carries no colour code. The
    kernel, whose stderr is the command's, speaks over Unix sockets, not TCP ports."""
    from sim.__main__ import main

    source = tmp_path / "failing.py"
    source.write_text(
        '# %% tags=["parameters"]\nLIMIT = 1\n\n# %%\nraise ValueError(f"over {LIMIT}")\n'
    )
    assert main(["notebook", "--path", str(source), "-p", "LIMIT=2", "--out", str(tmp_path)]) == 1
    err = capfd.readouterr().err.strip().splitlines()
    assert err[-1] == "python -m sim notebook: error: a cell failed: ValueError: over 2", err[-1]
    assert not any("over TCP" in line for line in err) or os.name == "nt", err


def test_the_kb_section_is_the_one_reading_kb_db_and_what_it_needs() -> None:
    """`notebook --db` runs section 7 alone: the one section that reads KB_DB, after the
    parameters and imports; the parameters it reads are those -p may set with --db."""
    from sim.notebook import reading

    kb, others, read = reading(NOTEBOOKS / "explore.py", "KB_DB")
    assert kb == ["7"] and others == ["1", "2", "3", "4", "5", "6"]
    assert {"ZIPF_S", "CITATIONS", "WORKERS", "KB_DAYS", "KB_QUERIES"} <= read
    assert not {"SEEDS", "N_SAVES", "FIT_BOOT", "REAL_SEEDS", "SWEEP_SEEDS"} & read


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["-p", "SEEDS=2"], "-p SEEDS: with --db only section 7 (the KB's) runs, which does not"),
        (["--all-sections", "--no-db"], "--all-sections goes with --db"),
    ],
)
def test_a_flag_the_kb_run_would_not_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    from sim.__main__ import main

    db = tmp_path / "kb.sqlite"
    db.write_bytes(b"SQLite format 3\x00")
    out = tmp_path / "out"
    given = ["--db", str(db)] if "--no-db" not in argv else []
    with pytest.raises(SystemExit) as stop:
        main(["notebook", *given, *(a for a in argv if a != "--no-db"), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and says in err[-1], err
    assert not out.exists()


def test_notebook_db_runs_the_kb_section_alone_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a kernel, as a user runs it: the saved notebook holds the parameters, the
    imports, a note of what ran and section 7 with the KB's advice; no other section."""
    import nbformat

    from sim.__main__ import main
    from sim.bench.docsrepo import build
    from sim.notebook import text_outputs

    monkeypatch.setenv("MPLBACKEND", "agg")
    repo = build(tmp_path / "docs", 20, commits=100)
    db = tmp_path / "kb.sqlite"
    assert main(["import", str(repo), "--db", str(db)]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    argv = ["notebook", "--db", str(db), "-p", "KB_DAYS=1", "-p", "WORKERS=1", "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "section 7 (your KB) only" in err and "sections 1, 2, 3, 4, 5, 6" in err
    nb = nbformat.read(out / "explore.ipynb", as_version=4)
    headings = [c.source.splitlines()[0] for c in nb.cells if c.source.startswith("## ")]
    assert headings == ["## 7. Your own KB"]
    assert any("`--all-sections` runs them too" in c.source for c in nb.cells)
    assert f"Advice for the KB {db.resolve()}: 20 published articles." in "".join(text_outputs(nb))


def test_the_parameters_cell_repeats_no_default_of_params() -> None:
    """A day's parameter left None keeps Params' default, so the two cannot drift apart;
    a -p value still takes that default's type."""
    from sim.notebook import AS_PARAMS, ParameterError, defaults, overrides

    known = defaults(NOTEBOOKS / "explore.py")
    days = [name for name in AS_PARAMS if not isinstance(known[name], tuple)]
    assert days and all(known[name] is None for name in days), {n: known[n] for n in days}
    assert overrides(["CITATIONS=3", "EDIT_FOLLOWS=0"], known) == {
        "CITATIONS": 3,
        "EDIT_FOLLOWS": 0.0,
    }
    with pytest.raises(ParameterError, match=r"CITATIONS takes a whole number ≥ 0 \(default 2\)"):
        overrides(["CITATIONS=two"], known)
