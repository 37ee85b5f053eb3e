"""The sequential seed rule: how many seeds a unit of an experiment (a reading of an open
choice, a delay ladder, an arm of the real-shape panel on one log) runs.

Every unit runs a first batch of seeds. After each batch, a unit its experiment still calls
open (each experiment states when: ``sensitivity.open_readings`` on the readings' results;
``realshape_seeds.open_arms`` on an arm's count alone, a fixed count run in batches) runs
one more batch of the same size, up to ``looks`` batches; an experiment may cut a unit's
batches shorter (a reading stops at the seeds its shift can be paired on). A seed's rows are
a pure function of the seed, so a unit's rows on seeds 1..n are the same whether it stopped
at n or ran on: the rule decides how many seeds a unit has, never what a seed gives. Only
units holding the most seeds so far are looked at again: a unit closed once stays closed.

No experiment stops a unit on where its estimate lies: the readings stop on the width of
their intervals alone, the panel on a fixed count. Stopping once a verdict is reached is
optional stopping, which inflates a 95 % interval's error (Armitage, McPherson & Rowe,
J. R. Stat. Soc. A 132, 1969); ``sim.report.seedrule_coverage`` runs both rules as they run,
over many replications, and results/coverage/seedrule_coverage.csv states the level each keeps.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedRule:
    first: int
    """Seeds of the first batch, and of every later one."""
    looks: int = 5
    """Batches at most: the cap is first × looks seeds."""

    def __post_init__(self) -> None:
        if self.first < 1 or self.looks < 1:
            raise ValueError(
                f"SeedRule: first and looks must be at least 1, got {self.first}, {self.looks}"
            )

    @property
    def cap(self) -> int:
        return self.first * self.looks

    def next_batch(self, done: int) -> list[int]:
        """The seeds an open unit that has run seeds 1..done runs next ([] at the cap)."""
        return list(range(done + 1, min(done + self.first, self.cap) + 1))

    def describe(self, open_when: str) -> str:
        """The rule in words, for the report: ``open_when`` says when a unit stays open."""
        return (
            f"every unit runs seeds 1–{self.first}; after each batch a unit still open "
            f"({open_when}) runs {self.first} more, up to {self.cap} seeds; a unit closed "
            "once stays closed"
        )
