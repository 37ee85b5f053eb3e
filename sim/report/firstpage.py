"""REPORT.md's first page: the three answers as functions of what decides them.

Each answer is said in one sentence as a function (of a cited article's edits a day, the
citation's age, how questions relate to edits, the agent's own edits), then placed at three
kinds of point: the real help centres measured from their own rows (the map's
``map_logs``), the write-up's day simulated (its one canonical number, defined beside it),
and the reader's own KB (the command that gives it). What moves the write-up's point most is
picked by Holm's correction over the family it is picked from (``designer``). Every number
comes from the run's tables and rows.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sim.report import designer
from sim.report.designer import (
    HOUR_S,
    METHOD_WORDS,
    _comparison_interval,
    _delay,
    _exposure_at,
    _human_part,
    _margin,
    _num_ci,
    _pct,
    _pct_ci,
    _reading,
)
from sim.stats import normal_interval, ratio_interval
from sim.studymap.figures import pct
from sim.studymap.section import stale_at

DAY_S = 86400.0
GLOSSARY = (
    "*Stale*: the cited article was saved (title or body) after the read; *gone*: it was "
    "unpublished. *Edits per article a day*: a KB's saves a day over its articles. "
    "*Points*: percentage points. *Reading*: one way to take a setting the write-up leaves "
    "open (Appendix B)."
)


def _span(values: pd.DataFrame) -> str:
    """The lowest and highest log's measured share, each with its window interval."""
    lo, hi = values["measured"].idxmin(), values["measured"].idxmax()

    def one(name: str) -> str:
        r = values.loc[name]
        ci = f"{pct(r['measured_ci_lo'])} – {pct(r['measured_ci_hi'])}"
        return f"{pct(r['measured'])} ({name}; {ci})"

    return f"{one(lo)} to {one(hi)}"


def _logs_at(logs: pd.DataFrame, age_s: float, draw: str = "popularity") -> pd.DataFrame:
    """Each log's measured stale share at an age (reads drawn by its edit popularity or
    uniformly) with its window interval, by log name."""
    g = logs[(logs["draw"] == draw) & (logs["age_s"] == age_s)]
    return g.set_index("log")[["measured", "measured_ci_lo", "measured_ci_hi"]]


def _rate(x: float) -> str:
    return f"{x:.2g}"


def _held(points: pd.DataFrame) -> str:
    return ", ".join(
        f"{r['saves_per_check_at_break_even']:,.0f} with {r['citations_held']:.0f} citations held"
        for _, r in points.iterrows()
        if pd.notna(r["saves_per_check_at_break_even"])
    )


def _pick(advice: dict[str, Any] | None, ex: pd.DataFrame, target_min: float) -> str:
    if advice is None or advice.get("choice") is None:
        return "`python -m sim advise` picks the interval for your rates (§ 6)"
    c = advice["choice"]
    every = f"every {c['interval_min']:g} min" if c["interval_min"] > 0 else "on every change"
    return (
        f"for the write-up's day and a target of {target_min:g} min unnoticed on average, "
        "`python -m sim advise` "
        f"picks **{METHOD_WORDS.get(c['method'], c['method'])} {every}**; in simulation "
        f"({advice['seeds']} seeds) that leaves a change unnoticed "
        f"{c['sim_mean_unnoticed_min']:.1f} min on average at {c['sim_calls']:,.0f} calls a "
        "day (§ 6)" + _margin(ex, c, target_min)
    )


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _assumed(m: dict[str, Any] | None, unit: str = "points", fmt: Any = designer._pt) -> str:
    """The panel's largest move by the question relation, Holm-adjusted, or why none."""
    if m is None:
        return ""
    a = m["assumption"]
    if a is None:
        return " " + _sentence(
            designer.picks.none_named(m["family"], m["assumptions"], "question relation")
        )
    return (
        f" In simulation on the real logs' edit processes, questions independent of edits move "
        f"it by {fmt(a['diff'])} {unit} ({fmt(a['lo'])} – {fmt(a['hi'])}, {a['seeds']} seeds"
        + (f", on {a['log']}'s log" if isinstance(a["log"], str) else "")
        + f"; the largest of the {len(m['family'])} panel moves this page picks from, "
        f"Holm-adjusted p {designer.picks.p_text(a['p_holm'])}; its interval is not adjusted "
        "for the pick)."
    )


def page(
    t: dict[str, pd.DataFrame],
    rows: dict[str, pd.DataFrame],
    advice: dict[str, Any] | None,
    target_min: float,
    writeup_rate: float,
) -> str:
    """The first page of REPORT.md."""
    comparison, sens, realshape = t["comparison"], t.get("sensitivity"), t.get("realshape")
    logs, cas_map = t["map_logs"], t["map_cas"]
    traits = logs.drop_duplicates("log").set_index("log")
    rates = traits["edits_per_article_day"]
    busier = writeup_rate / rates

    stale = _comparison_interval(comparison, "zipf_stale_share")
    answers = _comparison_interval(comparison, "zipf_answers_with_stale_share")
    title = _comparison_interval(comparison, "title_caught_share")
    day, week, month = (_logs_at(logs, a * DAY_S) for a in (1, 7, 30))
    flat_over = _logs_at(logs, 30 * DAY_S, "uniform")["measured"] / month["measured"]
    pop_month = logs[(logs["draw"] == "popularity") & (logs["age_s"] == 30 * DAY_S)]
    bursts = month["measured"] / pop_month.set_index("log")["poisson_own_rates"]
    steady = t["map_stale"]
    at_8h = stale_at(steady, "same", writeup_rate, 8 * HOUR_S)
    wk_same, wk_ind = (stale_at(steady, r, 0.01, 7 * DAY_S) for r in ("same", "independent"))
    st_read = designer.top_reading(sens, "zipf_stale_share") if sens is not None else None
    st_real = designer.top_real_move(realshape, "stale_share")

    ex = rows["exposure"]
    n_ex = ex["seed"].nunique()
    reread, poll = _exposure_at(ex, "reread", HOUR_S), _exposure_at(ex, "poll", HOUR_S)
    push = _exposure_at(ex, "push", 0.0)
    title_ex = ex[ex["method"] == "title_only"]
    title_never = ratio_interval(title_ex["never"].to_numpy(), title_ex["changed"].to_numpy())
    per_hour = traits["saves_per_hour"]
    points = t["map_break_even_points"]

    h = _comparison_interval(comparison, "cas_reject_share_3600s")
    human = _comparison_interval(comparison, "cas_human_reject_share_3600s")
    head = rows["cas_headline"]
    own = normal_interval(
        (head["cas_reject_share_3600s"] - head["cas_human_reject_share_3600s"]).to_numpy()
    )
    cas = t["cas_by_delay"].set_index("delay_s")
    curve = ", ".join(
        f"{_pct(r['rejected_share_all_seeds_mean'])} at {_delay(d)}" for d, r in cas.iterrows()
    )
    fast = float(cas.index.min())
    log_1h = _logs_at(logs, HOUR_S)
    agent_1h = cas_map[(cas_map["rejected_by"] == "agent") & (cas_map["delay_s"] == HOUR_S)]
    human_map_1h = cas_map[
        (cas_map["rejected_by"] == "human")
        & (cas_map["delay_s"] == HOUR_S)
        & ((cas_map["edits_per_article_day"] / writeup_rate - 1).abs() < 1e-9)
    ]["rejected_share"]
    cas_read = designer.top_reading(sens, "cas_reject_share_3600s") if sens is not None else None
    cas_real = designer.top_real_move(realshape, "cas_reject_3600s")
    poll_real = designer.top_real_move(realshape, "poll_calls")

    return f"""## The answers on one page

An AI assistant answers from a knowledge base (KB) it reaches over MCP through four tools
(search, read, edit, poll the event log), mirrored from the public `tools/list` of the
{designer.SERVER}, and cites each article as `{{knowledge_base_id, article_id, updated_at}}`;
`updated_at` is also the version a compare-and-swap (CAS) edit must send. Each answer below
is a function of what decides it: how often a cited article is edited, how long the citation
is held, how questions relate to edits and the agent's own edits. Three points are placed on
it. **Real help centres**: the shared edit logs of {len(rates)} public help centres
({", ".join(rates.index)}), {_rate(rates.min())}–{_rate(rates.max())} edits per article a
day, measured from their own rows with no model (§ 7). **The write-up's day**: the setting of
a Korean blog post that rebuilt these tools in Python, *{designer.WRITEUP_TITLE}* (here "the
write-up"): 400 articles, 300 human saves and 120 questions (two citations each) in 8 hours,
{writeup_rate:.3g} edits per article a day, {busier.min():,.0f}–{busier.max():,.0f} times the
real logs' rate, simulated (§§ 1–6). **Your KB**: the command each answer ends with. Intervals
are 95 %: for the simulation, of the mean over seeds (one day varies more); for a log, over
eight time windows of it; a range across the logs is labelled as one. "A day" of the
write-up's is its 8 working hours.
{GLOSSARY}

### How fast do citations go stale?

**A citation of an article edited r times a day is stale at age a with probability
1 − e^(−r·a): real help centres measure {_span(day)} of citations stale within a day,
{_span(week)} within a week and {_span(month)} within a month; on the write-up's day,
{writeup_rate:.3g} edits per article a day, {_pct_ci(stale)} of the day's citations are stale
or gone at its 8-hour end**.

- *The write-up's day:* {_pct_ci(stale)} of the day's citations (95 % CI of the mean over
  {stale.n} seeds; one day varies more) have their article saved or unpublished between the
  read and the day's end (the canonical figure; the write-up's own count on its five seeds,
  and the even-popularity control, are in § 1); {_pct_ci(answers)} of answers hold at least
  one. The day's citations are read over its 8 hours, so they are of mixed ages: one aged
  exactly 8 h at this rate is {pct(at_8h)} stale (§ 7).
- *What else decides it:* how questions relate to edits: the formula holds article by
  article, and a KB's mean r understates it where questions go to the most-edited articles
  (at 0.01 edits per article a day and a week, {pct(wk_same)} on the edits' ranking,
  {pct(wk_ind)} on an independent one: § 7). In the three logs, reads drawn evenly over
  articles go stale {flat_over.min():.2f}–{flat_over.max():.2f} times as often at a month as
  reads drawn by the log's own edit popularity.{_assumed(st_real)} Real saves
  come in bursts and bulk publishes, so a month's measured share is
  {100 * bursts.min():.0f}–{100 * bursts.max():.0f} % of what Poisson saves at the same rates
  give (§ 7).
  {_sentence(_reading(st_read))}
- *Your KB:* `python -m sim calibrate YOUR_LOG.csv` prints your log's stale share by citation
  age, measured as above; `python -m sim import DOCS --db kb.sqlite` then
  `python -m sim advise --db kb.sqlite` does it for a docs repository's git history.
- *What to do:* cite the version (`updated_at`) with every citation: a re-read compares it
  and a CAS edit sends it. A check by title alone is not enough: on the write-up's day it
  catches {_pct_ci(title)} of the citations stale at the day's end ({title.n} seeds), never
  a body edit. The poll needs no version: it finds changes from the event log's sequence.

### What does catching it cost: re-read, poll or push?

**Re-reading costs a call per held citation at every check; polling costs a call per check
plus a read per changed cited article, so polling is the cheaper until the saves per check
reach about {_held(points)} (the closed form, which overstates polling's calls, so these are
lower bounds). The real help centres' whole KBs save {per_hour.min():.2g}–{per_hour.max():.2g}
times an hour, where polling is the cheaper at any number of questions; on the write-up's
day, checking hourly, re-reading costs {_num_ci(reread["calls"])} calls per 8-hour day and
polling with the cursor kept {_num_ci(poll["calls"])}**.

- *The write-up's day* ({n_ex} seeds): re-read and poll notice every change at the same check,
  on average {_num_ci(poll["unnoticed_min"], 1)} min after it; push (MCP resource
  subscriptions) notices each change as it is committed, for {_num_ci(push["messages"])}
  messages per 8-hour day. A title-only check (a search per cited title) never notices
  {_pct_ci(title_never)} of the changes to cited articles. The write-up's own count (every
  held citation checked at every check) is in § 2; the simulated grid's break-even, in § 4.
- *What else decides it:* the check interval and the citations held, through the saves per
  check above.{_assumed(poll_real, "calls a day", designer._calls)}
- *Your KB:* `python -m sim advise --db kb.sqlite` (or `--edit-log LOG.csv`) prices every
  method and interval on your KB's rates, calls, characters and tokens.
- *What to do:* poll with the cursor kept, or push where the host implements MCP resource
  subscriptions (`resources/subscribe`), at the interval the advisor picks for your rates:
  {_pick(advice, ex, target_min)}.

### How often is a CAS edit rejected, by delay?

**A human's save rejects an edit sent d after the read exactly when the citation is stale
at age d, 1 − e^(−r·d); the agent's own other edits of the article add to it as often as it
edits: real help centres' saves alone reject {_span(log_1h)} of edits sent 1 h after the
read; on the write-up's day, {_pct_ci(h)} are rejected at 1 h**.

- *The write-up's day* ({h.n} seeds): of all edits sent at 1 h, {_pct_ci(human)} meet a
  human's newer save and {_pct_ci(own)} meet only the agent's own other delayed edits of the
  same article (its agent edits the first citation of every answer); the curve runs
  {curve}.
- *What else decides it:* the agent's own edit rate: its other edits of the same article
  reject {_pct(agent_1h["rejected_share"].min())}–{_pct(agent_1h["rejected_share"].max())} at
  1 h for {agent_1h["edits_per_article_day"].min():g}–{agent_1h["edits_per_article_day"].max():g}
  agent edits per article a day (§ 7).
  {_sentence(_reading(cas_read, at=" at 1 h" + _human_part(sens, cas_read)))}{_assumed(cas_real)}
- *Your KB:* `python -m sim advise --db kb.sqlite --call-log calls.jsonl` takes your agent's
  edit delays and targets from what `serve --call-log` recorded, and gives rejections by
  delay and cause.
- *What to do:* re-read right before an edit and send that version, not the citation's: at
  {_delay(fast)} a rejection is {_pct(cas.loc[fast, "rejected_share_all_seeds_mean"])} on the
  write-up's day. Serialise the agent's own edits of one article.
- *Why § 7's map gives more at the write-up's rate:* its steady forms have saves all day and
  night; the write-up's day stops them at its end, so an edit sent an hour after a late read
  meets fewer: a human's save at 1 h is {pct(float(human_map_1h.iloc[0]))} on the map against
  {_pct_ci(human)} on the day.

The rest of the report: §§ 1–6 give each answer in full on the write-up's day; § 7 the map
(the closed forms, their agreement with the simulation at every grid point, the logs' own
rows); Appendix A audits every figure of the write-up against this model; B the open
choices; C the real logs' edit processes; D seed counts; E the assumptions."""
