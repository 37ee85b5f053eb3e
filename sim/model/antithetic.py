"""Antithetic days: two days of one seed whose questions and saves are drawn from the same
uniforms, u in one and 1 − u in the other (antithetic variates: Law & Kelton, ch. 11;
Glasserman § 4.2). 1 − u is uniform too, so each member is a day of the model; where a
figure moves one way with the draws, the two members' values are negatively correlated and
their mean varies less than two independent days'. Valid for the draws made by inversion:
the questions' and saves' times (uniform over the write-up's day), their articles and the
saves' kinds. numpy's weighted ``choice`` inverts the weights in article order, which is
not monotone in popularity, so both members invert them in decreasing order instead: a
pair's first member is distributed as the study's day of that seed, not equal to it."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.model.day import Day
from sim.model.opening import Opening
from sim.params import Params

PAIRED = ("question_times", "question_targets", "save_times", "save_targets", "save_kinds")
"""The streams a pair shares through u and 1 − u (the others are the seed's own in both)."""


INVERTED = ("uniform", "choice")
"""The draws a paired stream makes, both by inversion; any other is refused, so a change to
the schedule that draws otherwise from a paired stream cannot pair the members silently."""
REFUSED = frozenset(
    n for n in dir(np.random.Generator) if not n.startswith("_") and n not in INVERTED
) - {"bit_generator"}


class InverseDraws(np.random.Generator):
    """A stream's uniforms turned into draws by inversion, from 1 − u if ``antithetic``."""

    def __init__(self, stream: np.random.Generator, antithetic: bool) -> None:
        super().__init__(stream.bit_generator)
        self.antithetic = antithetic

    def __getattribute__(self, name: str) -> Any:
        if name in REFUSED:
            raise ValueError(
                f"antithetic draws: a paired stream draws by inversion ({', '.join(INVERTED)})"
                f" only, not {name}: pair only the draws the write-up's schedule inverts"
            )
        return super().__getattribute__(name)

    def _u(self, size: Any) -> np.ndarray:
        u = np.asarray(super().random(size))
        return 1.0 - u if self.antithetic else u

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        return low + (high - low) * self._u(size)

    def choice(  # type: ignore[override]
        self, a: Any, size: Any = None, replace: bool = True, p: Any = None, *args: Any
    ) -> np.ndarray:
        if not replace or p is None or args or not isinstance(a, int):
            raise ValueError(
                "antithetic draws: a weighted choice of a count, with replacement, only; got "
                f"a={a!r}, replace={replace}, p={'none' if p is None else 'weights'}: run the "
                "write-up's save spread (independent draws)"
            )
        w = np.asarray(p, dtype=float)
        order = np.argsort(-w, kind="stable")
        cdf = np.cumsum(w[order])
        picked = np.searchsorted(cdf / cdf[-1], self._u(size), side="right")
        return order[np.minimum(picked, a - 1)]


class PairedDay(Day):
    """One member of an antithetic pair (``antithetic``: the one drawing from 1 − u)."""

    def __init__(
        self, params: Params, seed: int, antithetic: bool, opening: Opening | None = None
    ) -> None:
        if params.save_process != "writeup" or params.question_relation == "clustered":
            raise ValueError(
                "antithetic pairs: the write-up's save process with questions on the same or "
                f"an independent ranking only; got save_process={params.save_process!r}, "
                f"question_relation={params.question_relation!r} (they draw otherwise)"
            )
        self.antithetic = antithetic
        super().__init__(params, seed, opening)

    def schedule_streams(self, seed: int) -> dict[str, np.random.Generator]:
        return {
            name: InverseDraws(stream, self.antithetic) if name in PAIRED else stream
            for name, stream in super().schedule_streams(seed).items()
        }
