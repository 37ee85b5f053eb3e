"""Mutation check of the regression test, by hand (not collected by `make test`):

    .venv/bin/python -m tests.mutations.run [--baseline DIR] [NAME ...]

Each mutation below moves some reported figure. For each, the script applies it to the
working tree (a textual replacement, found by content so it survives files moving),
runs the regression tests that should catch it against a baseline results folder,
records which fail, and restores the file. The baseline is a reduced `make reproduce` of
the unmutated code (made once into DIR if DIR has no seeds/ yet); its README blocks are
not the README's, so that test is left out (--check-baseline: first show that no other
test fails unmutated).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutation:
    name: str
    what: str
    old: str
    new: str
    select: str
    """The tests to run (pytest -k): those that should catch it; '' for all."""


MUTATIONS = (
    Mutation(
        "save_rank_off_by_one",
        "a human save lands on the article one popularity rank below the one drawn",
        "        spec = specs[target]\n"
        "        current = store.article_state(kb_id, spec.article_id)\n"
        "        drawn = SAVE_KINDS[kind]",
        "        spec = specs[(target + 1) % len(specs)]\n"
        "        current = store.article_state(kb_id, spec.article_id)\n"
        "        drawn = SAVE_KINDS[kind]",
        "sampled and staleness",
    ),
    Mutation(
        "version_comparison_inclusive",
        "the store's 'saved since the cited version' comparison made inclusive (>=), which "
        "blames a CAS conflict on the cited version's own writer",
        '"AND updated_us > ?",',
        '"AND updated_us >= ?",',
        "sampled and cas",
    ),
    Mutation(
        "poll_page_one_short",
        "the checker's poll pages hold one event fewer (99)",
        '"limit": DEFAULT_POLL_LIMIT,',
        '"limit": DEFAULT_POLL_LIMIT - 1,',
        "sampled and (exposure or break_even)",
    ),
    Mutation(
        "reviewer_latency_halved",
        "the reviewer decides in half the drawn approval latency",
        "math.exp(math.log(p.approval_median_s) + p.approval_sigma * self.delays.normal())",
        "math.exp(math.log(p.approval_median_s) + p.approval_sigma * self.delays.normal()) / 2",
        "sampled and gate",
    ),
    Mutation(
        "closed_form_grid",
        "the closed forms' time grid one point coarser (a theory column moves)",
        "_GRID = 2001",
        "_GRID = 2000",
        "rebuilt",
    ),
)


def _file_with(text: str) -> Path:
    hits = [
        p
        for p in (ROOT / "sim").rglob("*.py")
        if text in p.read_text() and "mutations" not in p.parts
    ]
    if len(hits) != 1 or hits[0].read_text().count(text) != 1:
        raise SystemExit(f"mutation text must occur once in sim/; found in {hits}: {text!r}")
    return hits[0]


def _failures(baseline: Path, sample_seed: str, select: str) -> set[str]:
    env = os.environ | {"REGRESSION_RESULTS": str(baseline), "REGRESSION_SAMPLE_SEED": sample_seed}
    # a reduced baseline's README blocks are not the README's: that test is left out
    select = f"({select}) and not readme" if select else "not readme"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_regression.py", "-q", "-rf",
         "-p", "no:cacheprovider", "-k", select],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    return {
        line.split(" - ")[0].split("::", 1)[1]
        + (f" ({line.split(' - ', 1)[1][:160]})" if " - " in line else "")
        for line in done.stdout.splitlines()
        if line.startswith(("FAILED ", "ERROR "))
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, default=Path("/tmp/mutation-baseline"))
    parser.add_argument("--sample-seed", default="1")
    parser.add_argument(
        "--check-baseline", action="store_true", help="first run every test unmutated"
    )
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    if not (args.baseline / "seeds").exists():
        subprocess.run(
            [sys.executable, "-m", "sim", "reproduce", "--seeds", "6", "--cas-seeds", "6",
             "--out", str(args.baseline)],
            cwd=ROOT, check=True,
        )  # fmt: skip
    selected = [m for m in MUTATIONS if not args.names or m.name in args.names]
    if args.check_baseline:
        before = _failures(args.baseline, args.sample_seed, "")
        print(f"failing before any mutation: {sorted(before) or 'none'}", flush=True)
    caught_all = True
    for m in selected:
        path = _file_with(m.old)
        original = path.read_text()
        path.write_text(original.replace(m.old, m.new))
        try:
            caught = sorted(_failures(args.baseline, args.sample_seed, m.select))
        finally:
            path.write_text(original)
        caught_all &= bool(caught)
        print(f"{m.name} ({path.relative_to(ROOT)}): {m.what}\n  caught by: {caught or 'NOTHING'}")
    return 0 if caught_all else 1


if __name__ == "__main__":
    sys.exit(main())
