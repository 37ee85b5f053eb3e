"""The atlas in `make reproduce`: its tables (each site's shares from its own rows, the
population's spread and prediction interval, the leave-one-out check, past against future,
the held-out sites placed against the interval), its figure (every site on one map of stale
share by citation age), what the first page quotes of it and REPORT.md § 7's part on a site
not in it. Model-free, so `reproduce --from-rows` builds it too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from sim import atlas
from sim.atlas import heldout, outoftime, population, table
from sim.params import Params
from sim.report.render import render
from sim.studymap.figures import age_label, pct

Tables = dict[str, pd.DataFrame]
Make = Callable[[Params, dict[str, pd.DataFrame], Tables], pd.DataFrame]
HEADLINE_DRAW = "popularity"
"""The first page's draw: a uniform instant, then an article alive at it drawn by the
site's edit popularity (the even draw is in the tables beside it)."""
DAY_S = 86400.0
PAGE_AGES_S = {DAY_S: "24 h", 7 * DAY_S: "a week", 30 * DAY_S: "a month"}
KIND_WORDS = {
    "help": "help centres and knowledge bases",
    "product": "product and user docs",
    "developer": "developer and API docs",
}
KIND_COLOURS = {"help": "#1f77b4", "product": "#2ca02c", "developer": "#ff7f0e"}


TABLES: tuple[tuple[str, Make], ...] = (
    ("atlas_sites", lambda base, rows, t: table.sites_table()),
    ("atlas_population", lambda base, rows, t: population.population(t["atlas_sites"])),
    ("atlas_loo", lambda base, rows, t: population.leave_one_out(t["atlas_sites"])),
    (
        "atlas_outoftime",
        lambda base, rows, t: outoftime.table(atlas.sites(), table.atlas_logs()),
    ),
    ("atlas_heldout", lambda base, rows, t: heldout.heldout_table(t["atlas_sites"])),
)


def _stale(sites: pd.DataFrame) -> pd.DataFrame:
    return sites[(sites["quantity"] == "stale") & (sites["draw"] == HEADLINE_DRAW)]


def _band(pop: pd.DataFrame) -> pd.DataFrame:
    g = pop[(pop["quantity"] == "stale") & (pop["draw"] == HEADLINE_DRAW) & (pop["kind"] == "all")]
    return g.set_index("age_s").sort_index()


def title(sites: pd.DataFrame, pop: pd.DataFrame) -> str:
    s, band = _stale(sites), _band(pop)
    head = (
        f"{s['site'].nunique()} documentation sites ({', '.join(sorted(s['kind'].unique()))};"
        f" {sites['generator'].nunique()} generators), each from its own rows"
    )
    said = [
        f"{age_label(a)}: median {pct(band.loc[a, 'median'])}"
        f" (10th–90th {pct(band.loc[a, 'p10'])}–{pct(band.loc[a, 'p90'])})"
        for a in PAGE_AGES_S
        if a in band.index
    ]
    lines = [head]
    for i, part in enumerate(said):  # a line per age or two, never inside one
        if i % 2 == 0:
            lines.append(part)
        else:
            lines[-1] += f"; {part}"
    return "\n".join(lines)


def figure(
    sites: pd.DataFrame,
    pop: pd.DataFrame,
    writeup: pd.Series | None = None,
    you: tuple[str, pd.Series] | None = None,
) -> Figure:
    """Stale share against citation age, one line per site coloured by its kind, the
    sites' 10th–90th percentile band and median, the 90 % prediction interval for a further
    site; ``writeup``: the write-up's day at those ages (the map's closed form at its rate);
    ``you``: a user's log (name, share by age), drawn over the sites."""
    fig, ax = plt.subplots(figsize=(8, 5))
    band = _band(pop)
    x = band.index / DAY_S
    ax.fill_between(x, 100 * band["p10"], 100 * band["p90"], color="0.85", label="10th–90th")
    ax.plot(x, 100 * band["median"], color="black", lw=1.6, label="median site")
    ax.plot(x, 100 * band["pi_lo"], color="black", lw=0.9, ls=":", label="90 % PI, a new site")
    ax.plot(x, 100 * band["pi_hi"], color="black", lw=0.9, ls=":")
    seen: set[str] = set()
    for (_, kind), g in _stale(sites).groupby(["site", "kind"], sort=True):
        g = g.sort_values("age_s")
        ax.plot(
            g["age_s"] / DAY_S, 100 * g["measured"], color=KIND_COLOURS.get(str(kind), "0.5"),
            lw=0.8, alpha=0.7, label=f"{kind} site" if kind not in seen else None,
        )  # fmt: skip
        seen.add(str(kind))
    if writeup is not None:
        ax.plot(
            writeup.index / DAY_S, 100 * writeup.to_numpy(), color="#c0392b", ls="--", marker="o",
            ms=3, lw=1.2, label="the write-up's day (its rate, Poisson)",
        )  # fmt: skip
    if you is not None:
        ax.plot(
            you[1].index / DAY_S, 100 * you[1].to_numpy(), color="#8e44ad", lw=2.4,
            marker="s", ms=4, label=f"{you[0]} (yours)",
        )  # fmt: skip
    ax.set(xscale="log", yscale="log", ylim=(1e-4, 100))
    ax.set_xticks([a / DAY_S for a in table.STALE_AGES_S])
    ax.set_xticklabels([age_label(a) for a in table.STALE_AGES_S], fontsize=7)
    ax.set_xlabel("citation age (a uniform instant, then an article alive at it, by edits)")
    ax.set_ylabel("citations stale at that age (%)")
    ax.set_title(title(sites, pop), fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def page_values(t: Tables) -> dict[str, Any]:
    """What the first page says of the atlas: its size, the spread, the prediction
    interval and its leave-one-out coverage at a day, a week and a month, the past against
    the future."""
    sites, band = t["atlas_sites"], _band(t["atlas_population"])
    loo = t["atlas_loo"]
    loo = loo[(loo["quantity"] == "stale") & (loo["draw"] == HEADLINE_DRAW)].set_index("age_s")
    ahead = outoftime.summary(t["atlas_outoftime"], HEADLINE_DRAW).set_index("age_s")
    ages = []
    for a in PAGE_AGES_S:
        if a not in band.index:
            continue
        b = band.loc[a]
        ages.append(
            {
                "age": age_label(a),
                "within": PAGE_AGES_S[a],
                "sites": int(b["sites"]),
                **{k: pct(b[k]) for k in ("median", "p10", "p90", "q25", "q75")},
                "pi": None if pd.isna(b["pi_lo"]) else (pct(b["pi_lo"]), pct(b["pi_hi"])),
                "loo": None if a not in loo.index else _loo(loo.loc[a]),
                "ahead": None if a not in ahead.index else ahead.loc[a].to_dict(),
            }
        )
    return {
        "by_kind": _by_kind(t["atlas_population"], 30 * DAY_S),
        "cas_1h": _cas_1h(t["atlas_population"]),
        "sites": int(sites["site"].nunique()),
        "kinds": [KIND_WORDS.get(k, k) for k in sorted(sites["kind"].unique())],
        "generators": int(sites["generator"].nunique()),
        "level": population.LEVEL,
        "min_sites": population.min_sites(),
        "ages": ages,
    }


def section_text(t: Tables) -> str:
    """REPORT.md § 7's part on a site not in the atlas: the interval's rule and guarantee,
    each site left out in turn at every age, the held-out sites at a day, a week and a month
    (templates/atlas_section.md.j2)."""
    loo = t["atlas_loo"]
    loo = loo[(loo["quantity"] == "stale") & (loo["draw"] == HEADLINE_DRAW)].sort_values("age_s")
    n = int(loo["sites"].max())
    held = _stale(t["atlas_heldout"])
    kinds = _stale(t["atlas_sites"]).drop_duplicates("site")["kind"].value_counts()
    return render(
        "atlas_section.md.j2",
        level=population.LEVEL,
        n=n,
        k=population.rank(n),
        k_loo=population.rank(n - 1),
        min_sites=population.min_sites(),
        kind_sites=(int(kinds.min()), int(kinds.max())),
        loo=[
            {
                "age": age_label(r["age_s"]),
                "inside": int(r["left_out_inside"]),
                "tried": int(r["tried"]),
            }
            for _, r in loo.iterrows()
            if r["tried"]
        ],
        held_sites=held["site"].nunique(),
        held=[
            {
                "within": words,
                "inside": int(g["inside_pi"].sum()),
                "sites": len(g),
                "outside": [
                    (r["site"], pct(r["measured"]), r["measured"] > r["pi_hi"])
                    for _, r in g[~g["inside_pi"]].iterrows()
                ],
            }
            for a, words in PAGE_AGES_S.items()
            if len(g := held[held["age_s"] == a])
        ],
    )


def _loo(r: pd.Series) -> dict[str, Any] | None:
    if not r["tried"]:
        return None
    return {"inside": int(r["left_out_inside"]), "tried": int(r["tried"])}


def _cas_1h(pop: pd.DataFrame) -> dict[str, str]:
    """The human-caused CAS rejection at 1 h across the sites: median and 10th–90th."""
    g = pop[
        (pop["quantity"] == "cas_human")
        & (pop["draw"] == HEADLINE_DRAW)
        & (pop["kind"] == "all")
        & (pop["age_s"] == 3600.0)
    ]
    return {k: pct(g[k].iloc[0]) if len(g) else "n/a" for k in ("median", "p10", "p90")}


def _by_kind(pop: pd.DataFrame, age_s: float) -> list[dict[str, Any]]:
    """Each kind's spread at one age: its words, sites, median and 10th–90th."""
    g = pop[
        (pop["quantity"] == "stale")
        & (pop["draw"] == HEADLINE_DRAW)
        & (pop["kind"] != "all")
        & (pop["age_s"] == age_s)
    ]
    return [
        {
            "words": KIND_WORDS.get(str(r["kind"]), str(r["kind"])),
            "sites": int(r["sites"]),
            "within": PAGE_AGES_S[age_s],
            **{k: pct(r[k]) for k in ("median", "p10", "p90")},
        }
        for _, r in g.iterrows()
    ]
