"""results/variance/antithetic.csv: what antithetic pairs would buy each figure the readings
can move, measured on seeds 1..PAIRS (``sim.study.antithetic``): ``python -m
sim.results.antithetic`` (about a CPU-minute, so reproduce does not write it; `make check`'s
deep test holds the committed table to a fresh run)."""

from __future__ import annotations

from pathlib import Path

from sim.params import Params
from sim.study.antithetic import PAIRS, pair_rows, table

NAME = "variance/antithetic.csv"
"""In a folder of its own, as the seed rules' coverage: a fresh reproduce does not write it."""


def write(results: Path, workers: int = 2) -> None:
    first, second = pair_rows(Params(), PAIRS, workers)
    (results / NAME).parent.mkdir(exist_ok=True)
    table(first, second).to_csv(results / NAME, index=False, float_format="%.4f")


if __name__ == "__main__":
    write(Path("results"))
