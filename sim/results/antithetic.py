"""results/variance/antithetic.csv: what antithetic pairs would buy each figure the readings
can move, measured on seeds 1..PAIRS (``sim.study.antithetic``): ``python -m
sim.results.antithetic`` (about a CPU-minute, so reproduce does not write it; `make check`'s
deep test holds the committed table to a fresh run)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.params import Params
from sim.results.rowfiles import read_csv
from sim.study.antithetic import PAIRS, pair_rows, table
from sim.study.metrics import joined

NAME = "variance/antithetic.csv"
"""In a folder of its own, as the seed rules' coverage: a fresh reproduce does not write it."""


def study_rows(results: Path, pairs: int = PAIRS) -> pd.DataFrame:
    """The study's own per-seed figures of seeds 1..pairs (its committed headline rows)."""
    seeds = results / "seeds"
    headline = joined(
        [read_csv(seeds / f"{p}.csv") for p in ("staleness_headline", "cas_headline")]
    )
    return headline[headline["seed"] <= pairs].sort_values("seed").reset_index(drop=True)


def fresh(results: Path, workers: int = 2) -> pd.DataFrame:
    """The table of a fresh run of the pairs, checked against the study's rows in ``results``."""
    first, second = pair_rows(Params(), PAIRS, workers)
    return table(first, second, study_rows(results))


def write(results: Path, workers: int = 2) -> None:
    (results / NAME).parent.mkdir(exist_ok=True)
    fresh(results, workers).to_csv(results / NAME, index=False, float_format="%.4f")


if __name__ == "__main__":
    write(Path("results"))
