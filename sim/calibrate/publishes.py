"""The fit's publish-level values and their resamples: a publish is the independent unit of
the volume, the bulk publishes, the mix and the hour and weekday profile (its saves share an
instant, an author and a reason), and a sitting (publishes close in time) that of the
sittings' sizes and gaps. Every resampled sum is of whole numbers, taken exactly, so a
weighted resample gives the values of one made of copies on any CPU."""

from __future__ import annotations

import numpy as np

from sim.calibrate import sessions
from sim.calibrate.generate import DAY_S, HOUR_S, KINDS
from sim.calibrate.logs import EditLog, Import

PROFILE_PRIOR = 0.5
"""Pseudo-count per hour and weekday bin (Jeffreys), so a short log leaves no hour impossible."""


def isum(w: np.ndarray, counts: np.ndarray) -> int:
    """Sum of whole-number products, exact (no BLAS: its order is the CPU's)."""
    return int((np.asarray(w, dtype=np.int64) * np.asarray(counts, dtype=np.int64)).sum())


def weighted_median(sorted_values: np.ndarray, weight: np.ndarray) -> float:
    """np.median of the values each repeated weight times (whole weights)."""
    cum = np.cumsum(weight)
    total = int(cum[-1]) if len(cum) else 0
    if not total:
        return np.nan
    lo, hi = np.searchsorted(cum, [(total - 1) // 2, total // 2], side="right")
    return float((sorted_values[lo] + sorted_values[hi]) / 2)


PerPublish = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Per publish: instant, rows, session-starting rows, rows of each kind, sitting weight."""


def publish_values(
    epoch: np.ndarray,
    n_rows: np.ndarray,
    n_starts: np.ndarray,
    kind_counts: np.ndarray,
    sitting_weight: np.ndarray,
    window_s: float,
    w: np.ndarray | None = None,
) -> dict[str, float]:
    """From per-publish arrays: instant, rows, session-starting rows, rows of each kind, and
    for a sitting's first publish the sessions its sitting starts (else 0); each publish
    counted w times (default once). Every sum is of whole numbers, so a weighted resample
    gives the same values as one made of copies."""
    return PublishTable(epoch, n_rows, n_starts, kind_counts, sitting_weight).values(
        window_s, np.ones(len(epoch), dtype=np.int64) if w is None else w
    )


class PublishTable:
    """The per-publish arrays with their masks and profile bins made once, for resamples."""

    def __init__(
        self,
        epoch: np.ndarray,
        n_rows: np.ndarray,
        n_starts: np.ndarray,
        kind_counts: np.ndarray,
        sitting_weight: np.ndarray,
    ) -> None:
        first = np.flatnonzero(sitting_weight > 0)  # the profile is of sitting starts,
        t = epoch[first]  # weighted by their sessions
        self.first, self.sitting_weight = first, sitting_weight[first]
        self.hour = ((t // HOUR_S) % 24).astype(int)
        self.day = (((t + 3 * DAY_S) // DAY_S) % 7).astype(int)
        rows = np.asarray(n_rows, dtype=np.int64)
        starts = np.asarray(n_starts, dtype=np.int64)
        # every whole-number sum a resample takes, as one product of whole numbers (exact,
        # so its order is free): the kinds, rows, publishes with a session start, bulk
        # publishes and their starts, publishes of >1 article, rows in publishes of >=10
        self.counts = np.ascontiguousarray(
            np.vstack(
                [
                    np.asarray(kind_counts, dtype=np.int64).T,
                    rows,
                    starts > 0,
                    starts > 1,
                    np.where(starts > 1, starts, 0),
                    rows > 1,
                    np.where(rows >= 10, rows, 0),
                ]
            ),
            dtype=np.int64,
        )

    def values(self, window_s: float, w: np.ndarray) -> dict[str, float]:
        sw = self.sitting_weight * w[self.first]
        hours = np.bincount(self.hour, weights=sw, minlength=24) + PROFILE_PRIOR
        days = np.bincount(self.day, weights=sw, minlength=7) + PROFILE_PRIOR
        sums = (self.counts * np.asarray(w, dtype=np.int64)).sum(axis=1)  # exact: whole numbers
        mix, (saves, n_has, n_bulk, bulk_starts, n_multi, big) = sums[:4], sums[4:].tolist()
        mix = mix / mix.sum() if mix.sum() else np.full(len(KINDS), np.nan)
        out = {
            "saves per day": saves / (window_s / DAY_S),
            "bulk share of session starts": n_bulk / n_has if n_has else np.nan,
            "bulk size (mean)": bulk_starts / n_bulk if n_bulk else 0,
            "publishes with >1 article": n_multi / int(w.sum()),
            "saves in publishes of >=10": big / saves,
        }
        out |= {f"mix {k}": float(v) for k, v in zip(KINDS, mix, strict=True)}
        out |= {f"hour {h:02d} UTC": float(v) for h, v in enumerate(hours / hours.sum())}
        names = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
        out |= {f"weekday {d}": float(v) for d, v in zip(names, days / days.sum(), strict=True)}
        return out


def per_publish(
    log: EditLog, starts: np.ndarray, sitting_gap_s: float, imports: tuple[Import, ...] = ()
) -> tuple[PerPublish, np.ndarray, np.ndarray]:
    """Per-publish arrays (see _publish_values), and the sittings' sizes and inner gaps;
    the ``imports``' publishes hold no kinds (the mix) and weigh nothing in their sitting
    (the profile)."""
    ids, first, inverse = np.unique(log.publish, return_index=True, return_inverse=True)
    n_rows = np.bincount(inverse)
    n_starts = np.bincount(inverse, weights=starts).astype(int)
    kinds = np.zeros((len(first), len(KINDS)))
    np.add.at(kinds, (inverse, log.kind), 1)
    imported = np.isin(ids, [i.publish for i in imports])
    kinds[imported] = 0
    profiled = np.where(imported, 0, n_starts)
    epoch = log.epoch_s[first]
    starting = np.flatnonzero(n_starts > 0)
    opens, sizes, gaps = sessions.split(
        np.zeros(len(starting), int), epoch[starting], sitting_gap_s
    )
    order = np.argsort(epoch[starting], kind="stable")
    sitting = np.cumsum(opens[order]) - 1
    weight = np.zeros(len(first))
    weight[starting[order][opens[order]]] = np.bincount(sitting, profiled[starting][order])
    return (epoch, n_rows, n_starts, kinds, weight), sizes, gaps


def sitting_values(sizes: np.ndarray, gaps: np.ndarray) -> dict[str, float]:
    g = gaps[gaps > 0]
    return {
        "sitting: publishes (mean)": float(sizes.mean()),
        "sitting: gap median (s)": float(np.median(g)) if len(g) else np.nan,
    }


def boot_sittings(
    sizes: np.ndarray, gaps: np.ndarray, boot: int, rng: np.random.Generator
) -> dict[str, list[float]]:
    """Sittings resampled whole: a sitting's publishes depend on each other (each sitting's
    gaps counted as often as it is drawn, without copying them)."""
    sitting_of = np.repeat(np.arange(len(sizes)), sizes - 1)
    positive = gaps > 0
    by_gap = np.argsort(gaps[positive], kind="stable")
    sorted_gaps, owner = gaps[positive][by_gap], sitting_of[positive][by_gap]
    out: dict[str, list[float]] = {}
    for _ in range(boot):
        w = np.bincount(rng.integers(0, len(sizes), len(sizes)), minlength=len(sizes))
        values = {
            "sitting: publishes (mean)": isum(w, sizes) / len(sizes),
            "sitting: gap median (s)": weighted_median(sorted_gaps, w[owner]),
        }
        for k, v in values.items():
            out.setdefault(k, []).append(v)
    return out


def boot_publishes(
    per_pub: PerPublish, window_s: float, boot: int, rng: np.random.Generator
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    n = len(per_pub[0])
    table = PublishTable(*per_pub)
    for _ in range(boot):
        pick = rng.integers(0, n, n)
        values = table.values(window_s, np.bincount(pick, minlength=n))
        for k, v in values.items():
            out.setdefault(k, []).append(v)
    return out
