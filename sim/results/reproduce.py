"""`make reproduce`: run the study, commit its per-seed rows (results/seeds/), and build
every table, figure and the report from those rows alone."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from sim import advise, environment, pages
from sim.advise import seedsets
from sim.advise.choice import advised_choice
from sim.atlas.table import PACKAGED as PACKAGED_SITES
from sim.calibrate.shape import EditShape
from sim.params import Params
from sim.popularity import top_share
from sim.report import columns, firstpage, readme, sizes, writeup
from sim.results import figtable, rowfiles, seedrows
from sim.results import quick as quick_subsets
from sim.results.rowfiles import Rows
from sim.results.seedrows import CAS_SEEDS, STALENESS_SEEDS
from sim.results.tables import Tables, build_tables, exposure_rows
from sim.study import exposure as study_exposure
from sim.study import realshape

__all__ = [
    "CAS_SEEDS",
    "STALENESS_SEEDS",
    "build_tables",
    "reproduce",
    "rerun",
    "rerun_rows",
    "write_tables",
]

FLOAT_FORMAT = "%.10g"
SEEDS_DIR = "seeds"


def _json_ready(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        return value.item()  # numpy scalar
    return value


def summary(base: Params, t: Tables, seeds: dict[str, int]) -> dict[str, object]:
    comparison = t["comparison"].set_index("key")
    return {
        "seeds": seeds,
        "analytic": {"top10_share": top_share(base.n_articles, base.zipf_s)},
        "seeds_1_5": {k: _json_ready(v) for k, v in comparison["seeds_1_5"].items()},
        "all_seeds": {
            k: {
                "mean": _json_ready(r["mean"]),
                "ci_lo": _json_ready(r["ci_lo"]),
                "ci_hi": _json_ready(r["ci_hi"]),
            }
            for k, r in comparison.iterrows()
        },
        "verdicts": dict(comparison["verdict"].items()),
    }


ADVICE_TARGET_MIN = seedsets.TARGET_MIN
ADVICE_SEEDS = study_exposure.SEEDS
"""The advice example checks its pick on every exposure seed, as §6's table does."""


def advice_example(base: Params, rows: study_exposure.ExposureRows) -> tuple[str, dict[str, Any]]:
    """`python -m sim advise --simulate 10` on the write-up's day, as the README shows it;
    its simulated columns are the exposure runs' first seeds (the same days). The text and
    the result it renders."""
    costs = advise.Costs()
    result = advise.advise(base, costs, ADVICE_TARGET_MIN, ADVICE_SEEDS, frames=rows)
    return advise.render(base, costs, ADVICE_TARGET_MIN, result), result


def texts(base: Params, rows: Rows, t: Tables) -> dict[str, str]:
    """summary.json, advise.txt and REPORT.md: from the tables and the rows."""
    seeds = seedrows.seed_counts(rows)
    advice, advice_result = advice_example(base, exposure_rows(rows))
    first_page = firstpage.page(t, rows, advice_result, ADVICE_TARGET_MIN, base)
    shape = EditShape.from_json(rows["calibration_shape"]["shape_json"].iloc[0])
    setting = realshape.setting(base, shape, advised_choice(base), rows["realshape_traits"])
    return {
        "summary.json": json.dumps(summary(base, t, seeds), indent=2, ensure_ascii=False) + "\n",
        "advise.txt": advice + "\n",
        "REPORT.md": writeup.render(base, seeds, t, advice, setting, first_page),
    }


def readme_blocks(out: Path, t: Tables) -> dict[str, str]:
    """The README's generated blocks, by name."""
    return {
        "advise": readme.advise_block((out / "advise.txt").read_text()),
        "answers": readme.answers_block((out / "REPORT.md").read_text()),
        "results": readme.results_block(t["comparison"]),
        "sizes": sizes.readme_block(t["response_sizes"]),
    }


def _batches(looks: dict[str, int]) -> str:
    return ", ".join(f"{n} batch{'es' if n > 1 else ''} ({name})" for name, n in looks.items())


def quick_mark(seeds: dict[str, int]) -> str:
    """The line every page of a quick run carries."""
    counts = ", ".join(f"{k} {v}" for k, v in seeds.items())
    return (
        f"QUICK RUN, not the study's figures: every part on 1/{seedrows.QUICK_DIVISOR} of its"
        f" seeds, at least {seedrows.QUICK_FLOOR} in all ({counts} in the first batch),"
        f" the sequential rule's units on at most {_batches(seedrows.QUICK_LOOKS)};"
        f" {'; '.join(quick_subsets.NOTES.values())}."
        " `make reproduce` runs the study."
    )


def write_tables(
    out: Path, base: Params, rows: Rows, with_figures: bool = True, mark: str | None = None
) -> Tables:
    """Every table, summary.json, advise.txt, REPORT.md (and the figures) into out/, from
    the per-seed rows alone; ``mark`` heads every text and figure (a quick run's)."""
    out.mkdir(parents=True, exist_ok=True)
    t = build_tables(base, rows)
    for name, df in t.items():
        df.to_csv(out / f"{name}.csv", index=False, float_format=FLOAT_FORMAT)
    for name, text in texts(base, rows, t).items():
        if mark and name.endswith(".md"):
            text = f"> **{mark}**\n\n{text}"
        elif mark and name.endswith(".txt"):
            text = f"{mark}\n\n{text}"
        (out / name).write_text(text)
    if with_figures:
        write_figures(out, t, mark, base)
    return t


def write_figures(
    out: Path, t: Tables, mark: str | None = None, base: Params | None = None
) -> None:
    def save(fig: Figure, name: str) -> None:
        if mark:
            # above the figure (saved with a tight box, so it is kept), clear of every label
            text = textwrap.fill(mark, 100)
            fig.text(0.5, 1.0, text, ha="center", va="bottom", fontsize=8, color="C3")
        pages.save(fig, out / name)

    for name, fig in figtable.draw(base or Params(), t):
        save(fig, name)


def rebuild(out: Path, readme_path: Path | None = None, base: Params | None = None) -> Tables:
    """Every table, figure and text of out/ (and the README's blocks, if given) from the
    per-seed rows already in out/seeds/, no simulation: what a change to a page, a table or
    a parameter's description needs (`make docs`); the rows, and so every number, stay."""
    base = base or Params()
    t = write_tables(out, base, seedrows.read(out / SEEDS_DIR))
    _dictionary_and_readme(out, t, readme_path)
    return t


def _dictionary_and_readme(out: Path, t: Tables, readme_path: Path | None) -> None:
    (out / "DATA.md").write_text(columns.data_dictionary(out, figtable.rows()))
    if readme_path is not None:  # the repository's own results/: the package's copy too
        PACKAGED_SITES.write_bytes((out / "atlas_sites.csv").read_bytes())
        for name, block in readme_blocks(out, t).items():
            readme.update(readme_path, name, block)


def reproduce(
    out: Path,
    staleness_seeds: int = STALENESS_SEEDS,
    cas_seeds: int = CAS_SEEDS,
    workers: int | None = None,
    progress: bool = True,
    base: Params | None = None,
    readme_path: Path | None = None,
    scheduler: str | None = None,
    quick: bool = False,
) -> Tables:
    """Run every experiment (the staleness runs on seeds 1..staleness_seeds, the CAS runs on
    1..cas_seeds; with ``quick`` every part on a sixtieth of its seeds and the subsets of
    ``sim.results.quick``, each page marked), in a local pool or on the Dask cluster at
    ``scheduler``, write their per-seed rows to out/seeds/, then every table and the report
    from the rows as read back, what made them (environment.json), and refresh the README's
    blocks if given."""
    base = base or Params()
    seeds = {"staleness": staleness_seeds, "cas": cas_seeds}
    if quick:
        seeds = seedrows.scaled_seeds(seedrows.QUICK_DIVISOR, seeds)
    looks = seedrows.QUICK_LOOKS if quick else None
    rows = seedrows.run(base, seeds, workers, progress, scheduler, looks, subsets=quick)
    rowfiles.write(out / SEEDS_DIR, rows)
    rows = seedrows.read(out / SEEDS_DIR)
    t = write_tables(out, base, rows, mark=quick_mark(seeds) if quick else None)
    environment.write(out / environment.FILE)
    _dictionary_and_readme(out, t, readme_path)
    return t


def rerun_rows(
    folder: Path,
    names: tuple[str, ...],
    seeds: dict[str, int],
    workers: int | None = None,
    progress: bool = True,
    base: Params | None = None,
    scheduler: str | None = None,
) -> Rows:
    """The named experiments run again and their parts of the rows ``folder`` rewritten;
    every other part is left as it is (and read, as a growing experiment's rule needs the
    headline's rows). Returns the rewritten parts."""
    kept = seedrows.read(folder, skip=names)
    rows = seedrows.run(
        base or Params(), seeds, workers, progress, scheduler, only=names, kept=kept
    )
    fresh = {p: rows[p] for name in names for p in seedrows.BY_NAME[name].parts}
    rowfiles.write(folder, fresh)
    return fresh


def rerun(
    out: Path,
    names: tuple[str, ...],
    staleness_seeds: int = STALENESS_SEEDS,
    cas_seeds: int = CAS_SEEDS,
    workers: int | None = None,
    progress: bool = True,
    base: Params | None = None,
    readme_path: Path | None = None,
    scheduler: str | None = None,
) -> Tables:
    """What a change touched, without a full rerun (`make rows EXPERIMENTS="..."`): the
    named experiments' per-seed rows in out/seeds/ made again (``rerun_rows``), then every
    table, figure and text of out/ rebuilt from the rows, as `make docs` does."""
    base = base or Params()
    seeds = {"staleness": staleness_seeds, "cas": cas_seeds}
    rerun_rows(out / SEEDS_DIR, names, seeds, workers, progress, base, scheduler)
    environment.write(out / environment.FILE)
    return rebuild(out, readme_path, base)
