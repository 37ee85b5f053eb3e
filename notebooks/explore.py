# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Explore the stale-citation study
#
# The first section shows the default day as `make reproduce` left it in `results/`.
# The rest reruns the simulation with the parameters of the next cell: change them
# and run all cells. The cell is tagged `parameters`, so the notebook also runs
# headless with other values (papermill style; `make test` runs it on small ones).
# A value of None keeps the study's own default (`sim.params.Params`); section 2's first
# cell shows the day's parameters the run uses.

# %% tags=["parameters"]
SEEDS = 20  # seeds per setting; the report's intervals use more
ZIPF_S = None  # Zipf exponent of popularity
N_SAVES = None  # human saves in the 8-hour day
EDIT_FOLLOWS = None  # 1: edits follow question popularity fully; 0: independently
CHECK_INTERVAL_S = None  # seconds between checks
CITATIONS = None  # citations per answer
SENSITIVITY_S = (0.0, 0.5, 0.9, 1.2)  # Zipf exponents to compare
SENSITIVITY_SAVES = (75, 150, 300, 600, 1200)  # edit volumes to compare
SENSITIVITY_FOLLOWS = (0.0, 0.5, 1.0)  # edit-popularity couplings to compare
BREAK_EVEN_SAVES = (300, 3000, 12000)  # human saves per day to sweep for the break-even
BREAK_EVEN_QUESTIONS = (10, 120)  # questions per day (held citations grow with them)
BREAK_EVEN_INTERVALS_S = (900.0, 3600.0)  # check intervals
BREAK_EVEN_SEEDS = 3  # seeds per break-even point
SWEEP_INTERVALS_MIN = (1, 2, 4, 8, 15, 30, 60, 120, 240)  # check intervals of the exposure sweep
SWEEP_SEEDS = 3  # seeds of the exposure sweep (each day runs every interval and push)
EDIT_LOG = ""  # an edit log in the shared format; "" = the packaged help-centre log
FIT_BOOT = 200  # bootstrap resamples (and goodness-of-fit simulations) of the fit
REAL_SEEDS = 10  # seeds per arm of the study on the real edit shape
REAL_ARMS = ()  # arms to run (names in sim.study.realshape.ONE_SHAPE_ARMS); () = all
WORKERS = None  # processes; None = all cores
RESULTS_DIR = "../results"  # where make reproduce wrote the default day
OUT_DIR = ""  # if set, tables and figures of sections 3 and 4 are saved there
KB_DB = ""  # an imported KB (python -m sim import DOCS --db kb.sqlite); "" = section 7 skipped
KB_QUERIES = ""  # with KB_DB: a query log, one query a line; "" = the articles' titles
KB_DAYS = 0  # with KB_DB: exactly this many days; 0 = days to advise --db's precision

# %%
from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from sim.model.methods import BY_NAME, METHODS
from sim.params import Params
from sim.report import breakeven, exposure
from sim.study.breakeven import break_even_runs
from sim.study.experiments import StudyFrames, run_points, run_study
from sim.study.exposure import exposure_table
from sim.study.metrics import per_seed

pd.set_option("display.width", 140)


def save_figure(fig: plt.Figure, name: str) -> None:
    """Into OUT_DIR, if set; no timestamp in the file, so a rerun writes the same bytes."""
    if OUT_DIR:
        fig.savefig(Path(OUT_DIR) / name, dpi=110, bbox_inches="tight", metadata={"Software": None})


def show(fig: plt.Figure) -> None:
    """Inline, once: the report's figures are bare matplotlib Figures, which plt.show()
    does not draw; pyplot's own are closed first so the cell does not draw them twice."""
    plt.close(fig)
    display(fig)


# %% [markdown]
# ## 1. The default day, as reported

# %%
comparison = pd.read_csv(Path(RESULTS_DIR) / "comparison.csv")
comparison[["figure", "reported", "seeds_1_5", "mean", "ci_lo", "ci_hi", "verdict"]]

# %% [markdown]
# ## 2. Your parameters: staleness, cost of checks, CAS by delay

# %%
chosen = {
    "zipf_s": ZIPF_S,
    "n_saves": N_SAVES,
    "edit_follows_questions": EDIT_FOLLOWS,
    "check_interval_s": CHECK_INTERVAL_S,
    "citations_per_answer": CITATIONS,
}
params = Params(**{field: v for field, v in chosen.items() if v is not None})
pd.Series({f: getattr(params, f) for f in chosen}, name="the day's parameters", dtype=object)

# %%
seeds = list(range(1, SEEDS + 1))
frames = run_study(params, seeds, ("staleness", "control", "cas"), workers=WORKERS)
mine = per_seed(frames)
mine[
    [
        "zipf_stale_share",
        "control_stale_share",
        "zipf_answers_with_stale_share",
        "title_caught_share",
        "cas_reject_share_3600s",
    ]
].describe().loc[["mean", "std"]]

# %%
checks = frames.checks[
    (frames.checks["experiment"] == "staleness") & (frames.checks["method"] != "truth")
]
cost = checks.groupby(["method", "check"], as_index=False)[["calls", "result_chars"]].mean()
fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
hours = params.check_interval_s / 3600
for method, g in cost.groupby("method"):
    label, colour = BY_NAME[method].label, BY_NAME[method].colour  # the report's, too
    a1.plot(g["check"] * hours, g["calls"], marker="o", label=label, color=colour)
    a2.plot(g["check"] * hours, g["result_chars"] / 1000, marker="o", label=label, color=colour)
a1.set(xlabel="hours since the day opened", ylabel="tool calls per check", title="Calls")
a2.set(
    xlabel="hours since the day opened",
    ylabel="thousand characters per check",
    title="Characters received",
)
a1.legend(fontsize=8)
fig.suptitle(f"What each check method costs on your day (mean of {SEEDS} seeds)")
show(fig)

# %%
edits = frames.edits
by_delay = edits.groupby("delay_s")["first_outcome"].apply(lambda s: (s == "conflict").mean())
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.plot(by_delay.index / 60, 100 * by_delay.to_numpy(), marker="o")
ax.set(
    xscale="log",
    ylim=(0, 100),
    xlabel="delay between the read and the edit (minutes, log scale)",
    ylabel="edits rejected on the first try (%)",
    title="CAS edits with the citation's version, by delay (your day)",
)
ax.grid(alpha=0.3, which="both")
show(fig)

# %% [markdown]
# ## 3. Sensitivity of the headline figures
#
# Each row reruns the day with one parameter changed; the write-up assumed edits
# follow questions fully (`edit_follows_questions = 1`), while the web-caching
# literature finds popularity and change rate only weakly related.


# %%
def headline(f: StudyFrames) -> pd.Series:
    return per_seed(f)[
        [
            "zipf_stale_share",
            "zipf_answers_with_stale_share",
            "title_caught_share",
            "cas_reject_share_3600s",
        ]
    ].mean()


changed = [
    (name, v)
    for name, values in (
        ("zipf_s", SENSITIVITY_S),
        ("n_saves", SENSITIVITY_SAVES),
        ("edit_follows_questions", SENSITIVITY_FOLLOWS),
    )
    for v in values
]
# every setting in one pool, seed by seed: a worker opens each seed's KB once
setting_runs = run_points(
    [replace(params, **{name: v}) for name, v in changed],
    seeds,
    ("staleness", "cas"),
    workers=WORKERS,
    progress=True,
)
rows = [
    {"parameter": name, "value": v, **headline(f)}
    for (name, v), f in zip(changed, setting_runs, strict=True)
]
sensitivity = pd.DataFrame(rows)
if OUT_DIR:
    sensitivity.to_csv(Path(OUT_DIR) / "sensitivity.csv", index=False, float_format="%.10g")
sensitivity

# %%
HEADLINE_WORDS = {
    "zipf_stale_share": "citations stale at day end",
    "zipf_answers_with_stale_share": "answers holding a stale citation",
    "cas_reject_share_3600s": "CAS edits rejected after 1 h",
}
PARAMETER_WORDS = {
    "zipf_s": "Zipf exponent of popularity",
    "n_saves": "human saves a day",
    "edit_follows_questions": "how far edits follow questions (0–1)",
}
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True, layout="constrained")
for ax, (name, g) in zip(axes, sensitivity.groupby("parameter", sort=False), strict=True):
    for col, words in HEADLINE_WORDS.items():
        ax.plot(g["value"], 100 * g[col], marker="o", label=words)
    ax.set(xlabel=PARAMETER_WORDS.get(name, name), ylim=(0, 100))
    ax.grid(alpha=0.3)
axes[0].set_ylabel("% (mean over seeds)")
axes[0].legend(fontsize=7)
fig.suptitle("How the headline figures move with popularity, volume and edit-question coupling")
save_figure(fig, "sensitivity.png")
show(fig)

# %% [markdown]
# ## 4. Break-even: when does polling stop being cheaper than re-reading?
#
# Per check, re-reading costs one read per distinct cited article held (D). Polling
# costs ⌈E / 100⌉ pages for the E events since the last check, plus one read per cited
# article that changed (C ≤ D). In calls, polling is cheaper while ⌈E / 100⌉ + C < D;
# in characters a page of 100 events weighs about as much as several article bodies, so
# that break-even comes sooner. The sweep below measures both from the call log
# (`sim/study/breakeven.py`, tabled by `sim/report/breakeven.py`; `make reproduce` puts the
# same analysis in REPORT.md).

# %%
runs = break_even_runs(
    params,
    {
        "n_saves": list(BREAK_EVEN_SAVES),
        "n_questions": list(BREAK_EVEN_QUESTIONS),
        "check_interval_s": list(BREAK_EVEN_INTERVALS_S),
    },
    list(range(1, BREAK_EVEN_SEEDS + 1)),
    workers=WORKERS,
)
break_even = breakeven.break_even_table(runs)
if OUT_DIR:
    break_even.to_csv(Path(OUT_DIR) / "break_even.csv", index=False, float_format="%.10g")
breakeven.crossings(break_even)

# %%
fig = breakeven.figure(break_even)
save_figure(fig, "break_even.png")
show(fig)

# %% [markdown]
# ## 5. How long does a change go unnoticed, and what does noticing sooner cost?
#
# The check methods the registry sweeps (`sim/model/methods.py`, named by the next cell) at
# every interval of `SWEEP_INTERVALS_MIN`, and push (MCP resource subscriptions), on your
# day. Each citation's unnoticed time runs from its article's first change after the read
# to the check or notification that flags it. `make reproduce` puts the same analysis in
# REPORT.md §6, and `python -m sim advise` turns the closed forms into a recommendation.

# %%
swept = [m.label for m in METHODS if m.swept]
print("Methods swept:", "; ".join([*swept, "push (MCP resource subscriptions)"]))
sweep_params = replace(
    params, push=True, sweep_intervals_s=tuple(60.0 * m for m in SWEEP_INTERVALS_MIN)
)
sweep_frames = run_study(
    sweep_params, list(range(1, SWEEP_SEEDS + 1)), ("staleness",), workers=WORKERS
)
exposure_sweep = exposure_table(params, sweep_frames)
if OUT_DIR:
    exposure_sweep.to_csv(Path(OUT_DIR) / "exposure.csv", index=False, float_format="%.10g")
exposure.crossings(exposure_sweep)

# %%
fig = exposure.figure(exposure_sweep)
save_figure(fig, "exposure.png")
show(fig)

# %% [markdown]
# ## 6. A real help centre's edits
#
# The write-up's saves are independent Poisson events on Zipf-drawn articles over a
# uniform day. Here an edit log (`EDIT_LOG`; by default the packaged publish history of a
# real help centre) is fitted: edit popularity, editing sessions, bulk publishes, the mix
# of changes and the hour-of-week profile, each with a bootstrap interval (`python -m sim
# calibrate` does the same from the command line). The figure sets the log against one
# run of the fitted process and of the write-up's, over the log's own span.

# %%
from sim.advise.choice import advised_choice
from sim.calibrate import validate
from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, read_log
from sim.report import realshape_effects, realshape_section
from sim.study import realshape

edit_log = read_log(EDIT_LOG or BUNDLED)
edit_fit = fit(edit_log, boot=FIT_BOOT, gof_sims=FIT_BOOT)
edit_fit.table

# %%
fig = validate.figure(edit_log, edit_fit)
save_figure(fig, "edit_fit.png")
show(fig)

# %% [markdown]
# Your day (section 2's parameters) with its saves drawn from the fitted shape at the same
# volume, beside the write-up's process; the ablation switches on one real feature at a
# time, and the last arms vary how questions relate to edits. REPORT.md's section "On a
# real help centre's edits" is the same analysis on more seeds.

# %%
arms = tuple(a for a in realshape.ONE_SHAPE_ARMS if not REAL_ARMS or a.name in REAL_ARMS)
advised = advised_choice(params)
real_rows = realshape.realshape_runs(
    params, advised, edit_fit.shape, list(range(1, REAL_SEEDS + 1)), WORKERS, True, arms
)
real_table = realshape_effects.realshape_table(real_rows, arms)
if OUT_DIR:
    real_rows.to_csv(Path(OUT_DIR) / "realshape_rows.csv", index=False, float_format="%.10g")
realshape_section.headline_rows(real_table, realshape_effects.moves_table(real_table))

# %%
fig = realshape_section.figure(real_table)
save_figure(fig, "realshape.png")
show(fig)

# %% [markdown]
# ## 7. Your own KB
#
# With `KB_DB` set to a KB that `python -m sim import` made from a docs folder and its git
# history, the day runs on that KB's published articles (questions from their titles, or
# `KB_QUERIES`), its saves drawn from the edit process fitted to its history: how fast its
# citations go stale, the cheapest way to notice under the target, and CAS rejection by
# delay, each with its interval over the days. The same advice as `python -m sim advise
# --db KB_DB` (`python -m sim notebook --db KB_DB` sets it).

# %%
if KB_DB:
    from sim.advise import Costs
    from sim.advise.db import advise_for_db
    from sim.advise.sampled import Precision

    try:
        kb_text, kb_advice = advise_for_db(
            Path(KB_DB),
            Params(
                **{
                    field: v
                    for field, v in (("zipf_s", ZIPF_S), ("citations_per_answer", CITATIONS))
                    if v is not None
                }
            ),
            Costs(),
            30.0,
            Precision(),
            WORKERS or 2,
            KB_DAYS,
            Path(KB_QUERIES) if KB_QUERIES else None,
        )
        print(kb_text)
    except ValueError as e:  # not an imported KB, or its query log unreadable
        print(f"KB_DB: {e}")
else:
    print("No KB_DB set: section 7 runs on a KB that python -m sim import made.")
