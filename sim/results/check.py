"""`make check`: a full fresh `make reproduce` into a scratch folder, compared with results/.

Every table, text and per-seed rows file must be equal byte for byte; a figure (PNG) must
exist in both and be a PNG (matplotlib's output is not byte-stable across versions). The
README's generated blocks must be those of the fresh run, and environment.json must name the
same package versions (the machine's Python and CPU may differ); notebooks/explore.ipynb's
text outputs must be those of the fresh notebook run. Then the quick run
(`reproduce --quick`) on the local pool and on a Dask LocalCluster must agree byte for byte.
Run it before committing anything that touches sim/ or results/; CI runs it after `make test`.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sim import environment
from sim.report import readme
from sim.results.reproduce import readme_blocks, reproduce

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
NOT_REPRODUCED = {
    "bench.json",
    "SPEED.md",
    "coverage/seedrule_coverage.csv",
    "variance/antithetic.csv",
}
"""Written by `make bench` (its figures and their table), by `python -m
sim.results.coverage` (the seed rules' error over 2,000 replications, 80 CPU-s, held to a
fresh run by tests/test_seedrule_coverage.py under --deep, which `make check` runs) and by
`python -m sim.results.antithetic` (antithetic pairs' factors, held to a fresh run by
tests/test_antithetic.py under --deep), not by `make reproduce`."""


def differences(committed: Path, fresh: Path) -> list[str]:
    """What differs between two results folders, one line each (empty: they agree)."""
    names = {
        p.relative_to(root).as_posix()
        for root in (committed, fresh)
        for p in root.rglob("*")
        if p.is_file()
    } - NOT_REPRODUCED
    out = []
    for name in sorted(names):
        a, b = committed / name, fresh / name
        if not a.exists() or not b.exists():
            out.append(f"{name}: {'only in the fresh run' if b.exists() else 'not reproduced'}")
        elif name == environment.FILE:
            out += environment.differences(a, b)
        elif name.endswith(".png"):
            if a.read_bytes()[:8] != PNG or b.read_bytes()[:8] != PNG:
                out.append(f"{name}: not a PNG")
        elif a.read_bytes() != b.read_bytes():
            out.append(f"{name}: differs")
    return out


def local_cluster() -> Any:
    """A Dask cluster of a real scheduler and two single-threaded worker processes, on
    loopback only, quiet below errors (a nanny warns as it kills a worker at shutdown)."""
    from dask.distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )


def quick_on_a_cluster(tmp: Path) -> list[str]:
    """The quick run on this machine's pool and on a Dask cluster of real scheduler and
    worker processes (loopback): what differs between the two folders."""
    reproduce(tmp / "pool", progress=False, quick=True)
    with local_cluster() as cluster:
        reproduce(tmp / "dask", progress=False, quick=True, scheduler=cluster.scheduler_address)
    found = [f"quick run on Dask: {line}" for line in differences(tmp / "pool", tmp / "dask")]
    for page in ("REPORT.md", "advise.txt"):
        if "QUICK RUN" not in (tmp / "pool" / page).read_text().split("\n", 1)[0]:
            found.append(f"quick run: {page} does not say on its first line that it is one")
    return found


def notebook_differences(executed: Path) -> list[str]:
    """The committed notebooks/explore.ipynb's text outputs against a fresh run's."""
    import nbformat

    from sim.notebook import text_outputs

    committed = ROOT / "notebooks" / "explore.ipynb"
    a, b = (text_outputs(nbformat.read(p, as_version=4)) for p in (committed, executed))
    if a == b:
        return []
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    x, y = (v[at][:80] if at < len(v) else "(none)" for v in (a, b))
    return [f"notebooks/explore.ipynb: text output {at} is {x!r}; a fresh run's is {y!r}"]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "results"
        t = reproduce(fresh, progress=False)
        executed = Path(tmp) / "explore.ipynb"
        notebook = [sys.executable, "-m", "sim", "notebook", "--out", str(fresh / "notebook")]
        notebook += ["--ipynb", str(executed)]
        ran = subprocess.run(notebook, cwd=ROOT, capture_output=True, text=True)
        if ran.returncode != 0:  # say why, not only that it failed
            print(f"make check: the notebook failed:\n{ran.stderr[-3_000:]}", file=sys.stderr)
            return 1
        found = differences(ROOT / "results", fresh) + notebook_differences(executed)
        text = (ROOT / "README.md").read_text()
        for name, block in readme_blocks(fresh, t).items():
            if readme.replace_block(text, name, block) != text:
                found.append(f"README.md: block {name!r} differs")
        found += quick_on_a_cluster(Path(tmp))
    for line in found:
        print(line, file=sys.stderr)
    print(
        f"make check: {len(found)} difference(s) from a fresh run"
        if found
        else "make check: results/ and README equal a fresh `make reproduce`",
        file=sys.stderr,
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
