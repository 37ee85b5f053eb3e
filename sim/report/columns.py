"""The data dictionary: what every column of every file in results/ (and of `python -m sim
sweep`'s CSV) holds, with its unit, rendered into results/DATA.md by `make reproduce`.

A column is described by its base name, after the qualifiers the writers compose names
from are taken off: a run prefix (`zipf_`, `control_`, `cas_`), a delay (`_3600s`), and a
statistic suffix (`_mean`, `_ci_lo`, `_seeds_1_5`, ...). A column no rule describes fails
`tests/test_data_dictionary.py`, so a writer that adds one must describe it here.

The module is long for its data: the tables of meanings below (columns, files, JSON keys)
are most of it; the code is `describe` and the page's values (the page's words are
templates/columns_data.md.j2).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from sim.params import Params, param_docs
from sim.report.render import render
from sim.study.exposure import METHODS

SHARE, COUNT, TEXT, FLAG = "share (0–1)", "count", "text", "true/false"

BASE: dict[str, tuple[str, str]] = {
    # keys and labels
    "seed": ("integer", "the run's seed: every random stream of the day derives from it"),
    "seeds": (COUNT, "seeds the value is pooled or averaged over"),
    "seed_rule": (TEXT, "which seed rule, by the production function that decides it"),
    "scenario": (TEXT, "the unit simulated: what its values resample and where its truth sits"),
    "stopping": (TEXT, "how a replication stops: the rule, the rule it replaced, or at the cap"),
    "error_kind": (TEXT, "the error counted: an interval missing the truth, or a wrong call"),
    "stated_error": (SHARE, "the error the rule states (its 95 % intervals, its 5 % tests)"),
    "measured_error": (SHARE, "the share of replications that made that error"),
    "measured_error_se": (SHARE, "Monte-Carlo standard error of measured_error"),
    "replications": (COUNT, "replications simulated"),
    "seeds_at_stop": (COUNT, "seeds a replication held where it stopped, on average"),
    "error_at_fixed_count": (SHARE, "the same error when every replication runs to the cap"),
    "shift_seeds": (COUNT, "seeds 1..N on which the reading's paired shift was measured"),
    "experiment": (TEXT, "which run: staleness (Zipf), control (even), cas, or a variant"),
    "experiments": (TEXT, "the runs simulated for each seed, comma-separated"),
    "method": (TEXT, f"check method: {', '.join(METHODS[:-1])} or {METHODS[-1]}"),
    "save_popularity": (TEXT, "zipf (the write-up's day) or even (its control)"),
    "key": (TEXT, "the figure's identifier, as in summary.json"),
    "figure": (TEXT, "the figure (a headline quantity) the row is about"),
    "reported": (TEXT, "the write-up's figure, in its own words"),
    "reported_value": (
        SHARE,
        "the write-up's figure as a number (a verbal one: its band's middle)",
    ),
    "band": (TEXT, "the range a verbal figure's wording allows"),
    "verdict": (TEXT, "reproduced, not reproduced, undecided or infeasible as reported"),
    "alone": (TEXT, "the verdict of the figure judged alone (infeasibility set aside)"),
    "verdict_at_150_seeds": (TEXT, "the verdict on the first 150 seeds only"),
    "reason": (TEXT, "why a figure is not reproduced or cannot be"),
    "readings": (TEXT, "how the verdict fares under the other readings and delay ladders"),
    "borderline": (FLAG, "reproduced only just: 1.64 < |z| ≤ 1.96"),
    "z": ("standard errors", "distance from our mean to the write-up's figure in five-seed SEs"),
    "sd": ("as the figure", "standard deviation over seeds of the per-seed value"),
    "five_seed_lo": ("as the figure", "low end of the central 95 % range of a 5-seed run"),
    "five_seed_hi": ("as the figure", "high end of the central 95 % range of a 5-seed run"),
    "closed_form": ("as the figure", "the closed form's value (sim/theory.py)"),
    "simulated": ("as the quantity", "the simulated value"),
    "quantity": (TEXT, "the quantity the row compares or fits"),
    "choice": (TEXT, "the open choice (a Params field) the reading sets"),
    "reading": (TEXT, "the value the open choice takes in this reading"),
    "label": (TEXT, "the reading's value in words"),
    "can_move": (FLAG, "whether the reading's runs produce this figure at all"),
    "from_default": ("points (0–1 scale)", "shift of the figure from the default reading"),
    "diff": ("as the figure", "seed-paired difference from the reference arm"),
    "eqvol": (
        "as the figure",
        "seed-paired difference from the reference arm at equal day volume (intercept of the"
        " seeds' differences regressed on their difference in saves)",
    ),
    "log": (
        TEXT,
        "the real help centre's log of the panel the shape was fitted to (a real-shape arm's,"
        " or the calibration's)",
    ),
    # advise_pick_seedsets.csv (sim/advise/seedsets.py)
    "seed_set": (TEXT, "A: the seeds that choose; B: disjoint seeds that check A's pick"),
    "seed_range": (TEXT, "the set's seeds, first–last"),
    "days": (COUNT, "simulated days (one a seed) the option's figures rest on"),
    "cost_per_day": (
        "cost a day",
        "a call or notification 1, 1,000 characters 0.1 (the advisor's default costs)",
    ),
    "meets_target": (
        FLAG,
        "its unnoticed time's 95 % interval ends 10 % under the target or more (push: always)",
    ),
    "picked": (FLAG, "the set's pick: the cheapest option that meets the target"),
    "picked_on_a": (FLAG, "set A's pick (in set B: checked on seeds that did not choose it)"),
    # advise_backtest.csv (sim/advise/backtest.py)
    "site": (
        TEXT,
        "the site (its edit log): in the atlas (sim/atlas/sites.csv), held out, or backtested",
    ),
    "pick": (TEXT, "the closed forms' pick from the history before the held-out last year"),
    "target_min": ("minutes", "the target: a change to a cited article unnoticed on average"),
    "predicted_min": ("minutes", "the pick's unnoticed time by the closed forms"),
    "unnoticed_min": ("minutes", "the pick's unnoticed time replayed on the held-out year"),
    "unnoticed_lo": ("minutes", "low end of its 95 % interval over the weekly windows"),
    "unnoticed_hi": ("minutes", "high end of its 95 % interval over the weekly windows"),
    "met": (FLAG, "the replayed unnoticed time at most the target (empty: nothing to replay)"),
    "calls_predicted": ("calls a day", "the pick's calls a day by the closed forms"),
    "calls_replayed": ("calls a day", "the pick's calls a day on the held-out year's saves"),
    "windows": (COUNT, "weekly windows of the held-out year replayed (the advice's day)"),
    "windows_changed": (COUNT, "of them, windows with a change to an article"),
    "why_not": (TEXT, "why the site has no backtest (a log too short for it)"),
    "zipf_s": ("exponent", "the Zipf exponent fitted to the log's body edits (any family fitted)"),
    "burstiness_b": (
        "−1 to 1",
        "the log's burstiness coefficient B of the gaps between an article's saves (mean over"
        " articles with at least 10 gaps)",
    ),
    "bulk_share": ("share (0–1)", "session starts that are part of a multi-article publish"),
    "resave_share": ("share (0–1)", "editing sessions with more than one save"),
    "new_share": ("share (0–1)", "saves that publish a new article"),
    "multi_share": (SHARE, "publishes with more than one article, in the log (the fit's estimate)"),
    "multi_share_fit": (
        SHARE,
        "the same share generated by the fitted process over the log's span (mean of 8 runs)",
    ),
    "multi_share_matched": (
        SHARE,
        "the same share generated by the bulk-matched arm's process (mean of 8 runs)",
    ),
    "burstiness_b_fit": ("coefficient (−1 to 1)", "B generated by the fitted process (8 runs)"),
    "burst_stretch": (
        "factor",
        "the burst arm's session stretch: re-saves × this, fitted so its generated B is the log's",
    ),
    "burstiness_b_stretched": (
        "coefficient (−1 to 1)",
        "B generated by the session-stretched arm's process (8 runs)",
    ),
    "session_saves": ("saves", "mean saves of an editing session, in the log (the fit's)"),
    "session_saves_stretched": ("saves", "mean saves of a session in the stretched process"),
    "real_train": ("as the statistic", "the statistic on the log's first two thirds (training)"),
    "shift": ("points (0–1 scale)", "the reading's shift from the default, paired by seed"),
    "mean_on_own_seeds": ("as the figure", "the reading's mean on its own seeds, unshifted"),
    "ci_half_shared": (
        "as the figure",
        "the 95 % half-width at full strength with the covariance of the headline mean and the"
        " shift (they share the reading's seeds) counted; ci_lo/ci_hi leave it out",
    ),
    "verdict_shared": (TEXT, "the verdict on the interval of ci_half_shared"),
    "arm": (TEXT, "the real-shape arm: the process and features the day's saves come from"),
    "reference": (TEXT, "the arm this arm is compared with seed by seed ('none': none)"),
    "moved_most_by": (TEXT, "the real feature whose arm moves the figure most"),
    "p_holm": ("p value", "Holm's adjusted p of the move over its family (named: < 0.05)"),
    "family_moves": (COUNT, "moves in the family Holm's correction runs over"),
    "p": ("p value", "two-sided p of no move (paired seeds; Student's t for an arm)"),
    "value": ("as the figure", "the per-seed value of the figure in that arm"),
    "mean": ("as the figure", "mean over seeds"),
    "ci_lo": ("as the figure", "low end of the 95 % CI of the mean over seeds"),
    "ci_hi": ("as the figure", "high end of the 95 % CI of the mean over seeds"),
    "seeds_1_5": ("as the figure", "value on seeds 1–5 pooled (the write-up's setting)"),
    # the day
    "citations": (COUNT, "citations held (two per answer)"),
    "answers": (COUNT, "answers given"),
    "answers_with_stale": (COUNT, "answers holding at least one stale or gone citation"),
    "answers_with_stale_share": (SHARE, "answers holding at least one stale or gone citation"),
    "stale": (COUNT, "citations stale or gone at the day's end"),
    "first_citations": (COUNT, "answers' first citations (the search's top hit)"),
    "first_stale": (COUNT, "first citations stale or gone at the day's end"),
    "expected_stale": (
        "expected count",
        "the citations' summed chance of a save by the day's end, given the article cited and"
        " when, over the day's save draws (same ranking only)",
    ),
    "expected_stale_var": (
        "count²",
        "the sum of that chance's variance p(1 − p): the variance of the count it expects",
    ),
    "first_expected_stale": ("expected count", "the same for the first citations"),
    "first_expected_stale_var": ("count²", "the same for the first citations"),
    "expected_human": (
        "expected count",
        "the edits' summed chance of a human save in the window, given the article edited"
        " and when it was read, over the day's save draws (same ranking only)",
    ),
    "expected_human_var": (
        "count²",
        "the sum of that chance's variance p(1 − p): the variance of the count it expects",
    ),
    "given_cited": (
        SHARE,
        "mean over seeds of the chance of the event (a save by the day's end, a human save in"
        " the window) given the articles cited or edited and when, over the day's save draws"
        " (same ranking only)",
    ),
    "given_se": (SHARE, "standard error of the seeds' mean paired difference from given_cited"),
    "given_cited_z": (
        "standard errors",
        "the seeds' mean paired difference, simulated − given_cited, in given_se",
    ),
    "trials_per_seed": (
        "count",
        "citations or edits a seed behind the point's share (inf for a ratio of counts)",
    ),
    "stale_share": (SHARE, "citations stale or gone (at the day's end, or at the check)"),
    "stale_body": (COUNT, "stale citations whose article had a body edit only"),
    "stale_title": (COUNT, "stale citations whose article's title changed"),
    "gone": (COUNT, "citations (or edits) whose article was unpublished"),
    "gone_share": (SHARE, "edits that found their article unpublished"),
    "questions": (COUNT, "questions asked"),
    "questions_top10": (COUNT, "questions on the ten most popular articles"),
    "saves": (COUNT, "human saves"),
    "saves_top10": (COUNT, "human saves on the ten most popular articles"),
    "top10_question_share": (SHARE, "questions on the ten most popular articles"),
    "top10_save_share": (SHARE, "saves on the ten most popular articles"),
    "ids_equal_truth": (FLAG, "re-read and poll equalled the ground truth at every check"),
    "hour": ("hours", "hours since the day opened"),
    "check": (COUNT, "the check's number in the day (1 = first)"),
    "t_s": ("s", "simulated time of the check since the day opened"),
    # checks and costs
    "checks": (COUNT, "checks run"),
    "calls": ("calls", "tool calls"),
    "poll_calls": ("calls", "poll_resource_events calls"),
    "result_chars": ("characters", "characters a client receives (text + structured content)"),
    "articles_reread": (COUNT, "articles re-read by the check"),
    "flagged": (COUNT, "citations the check flagged as changed"),
    "caught": (COUNT, "stale citations the check flagged"),
    "missed": (COUNT, "stale citations the check did not flag"),
    "false_alarms": (COUNT, "citations flagged that were not stale"),
    "caught_at_day_end": (COUNT, "stale citations flagged at the last check"),
    "missed_at_day_end": (COUNT, "stale citations not flagged at the last check"),
    "false_alarms_at_day_end": (COUNT, "citations wrongly flagged at the last check"),
    "calls_per_check": ("calls", "tool calls per check"),
    "calls_per_check_max": ("calls", "most tool calls any one check took"),
    "poll_calls_per_check_max": ("calls", "most poll calls any one hourly check took"),
    "result_chars_per_check": ("characters", "characters received per check"),
    "reread_calls": ("calls", "calls of the re-read method over the day's checks"),
    "reread_chars": ("characters", "characters of the re-read method over the day's checks"),
    "poll_method_calls": ("calls", "calls of the poll method over the day's checks"),
    "poll_method_chars": ("characters", "characters of the poll method over the day's checks"),
    "title_calls": ("calls", "calls of the title-only method over the day's checks"),
    "title_chars": ("characters", "characters of the title-only method over the day's checks"),
    "title_caught": (COUNT, "stale citations the title-only check caught"),
    "title_caught_body": (COUNT, "body-only edits the title-only check caught"),
    "title_caught_title": (COUNT, "title changes the title-only check caught"),
    "title_caught_gone": (COUNT, "unpublished articles the title-only check caught"),
    "title_caught_share": (SHARE, "stale citations the title-only check caught"),
    "title_missed_body": (COUNT, "body-only edits the title-only check missed"),
    "title_missed_title": (COUNT, "title changes the title-only check missed"),
    "title_missed_gone": (COUNT, "unpublished articles the title-only check missed"),
    "title_false_alarms": (COUNT, "citations the title-only check flagged that were not stale"),
    "title_truth_stale": (COUNT, "stale citations at the title-only check's last run"),
    "reread_calls_per_check": ("calls", "re-read calls per check"),
    "poll_calls_per_check": ("calls", "poll method calls per check"),
    "calls_ratio": ("ratio", "poll calls ÷ re-read calls (above 1: polling costs more)"),
    "chars_ratio": ("ratio", "poll characters ÷ re-read characters"),
    "events_per_check": ("events", "human saves (events) per check interval"),
    "citations_held_at_end": (COUNT, "citations held at the day's end"),
    "calls_parity_above": ("events", "grid's saves per check below calls parity (last point)"),
    "calls_parity_at_most": ("events", "grid's saves per check at or past calls parity (first)"),
    "chars_parity_above": ("events", "grid's saves per check below characters parity (last)"),
    "chars_parity_at_most": ("events", "grid's saves per check at or past characters parity"),
    "n_saves": (COUNT, "human saves a day (the grid point)"),
    "n_questions": (COUNT, "questions a day (the grid point)"),
    "check_interval_s": ("s", "time between checks"),
    "client_id": (TEXT, "the MCP client (agent, checker, watcher) the calls came from"),
    "tool": (TEXT, "the tool called"),
    "outcome": (TEXT, "the call's outcome: ok, empty, or the refusal's code"),
    # exposure
    "interval_s": ("s", "check interval (0: push, on every change)"),
    "interval_min": ("min", "check interval (0: push, on every change)"),
    "notifications": (COUNT, "notifications/resources/updated sent"),
    "changed": (COUNT, "citations whose article changed while held"),
    "unnoticed_s": ("s", "sum over changed citations of the time until noticed (or day end)"),
    "never": (COUNT, "changed citations never noticed by the day's end"),
    "held_s": ("s", "citation-seconds held over the day (the day's exposure base)"),
    "checks_per_day": (COUNT, "checks a day"),
    "calls_per_day": ("calls", "tool calls a day"),
    "poll_calls_per_day": ("calls", "poll calls a day"),
    "notifications_per_day": (COUNT, "notifications a day"),
    "chars_per_day": ("characters", "characters received a day"),
    "messages_per_day": ("messages", "tool calls plus notifications a day"),
    "changed_citations_per_day": (COUNT, "citations whose article changed while held, a day"),
    "mean_unnoticed_min": ("min", "mean time a change to a cited article goes unnoticed"),
    "p95_unnoticed_min": ("min", "95th percentile of the unnoticed time (pooled over seeds)"),
    "never_noticed_share": (SHARE, "changes never noticed by the day's end"),
    "stale_unknown_share": (SHARE, "citation-time held stale and not yet known to be"),
    "measure": (TEXT, "the cost measure compared with push"),
    "push": ("as the measure", "push's value of the measure a day"),
    "crossing_interval_min": ("min", "check interval at which the method costs what push costs"),
    # CAS
    "delay_s": ("s", "delay between the read and the edit ('all': the ladder pooled)"),
    "edits": (COUNT, "edits sent"),
    "first_try_ok": (COUNT, "edits that succeeded on the first try"),
    "first_ok": (COUNT, "edits that succeeded on the first try"),
    "rejected": (COUNT, "edits rejected on the first try (version conflict)"),
    "rejected_by_human_save": (COUNT, "first-try rejections after a human's save"),
    "rejected_by_agent_edit": (COUNT, "first-try rejections caused only by the agent's own edits"),
    "rejected_share": (SHARE, "edits rejected on the first try"),
    "rejected_share_all_seeds": (SHARE, "edits rejected on the first try, over all seeds"),
    "attempts": (COUNT, "edit calls made, retries included"),
    "retries": (COUNT, "edits retried after a rejection"),
    "succeeded": (COUNT, "edits that succeeded in the end"),
    "successes": (COUNT, "edits that succeeded in the end"),
    "gave_up": (COUNT, "edits abandoned after the last allowed attempt"),
    "replays": (COUNT, "successful edits sent again with the same idempotency key"),
    "replays_matched": (COUNT, "replays that returned the first result"),
    "replays_matched_share": (SHARE, "replays that returned the first result"),
    "replay_share": (SHARE, "edits whose success was sent again"),
    "replay_new_events": (COUNT, "events appended by replays (0: idempotent)"),
    "human_save_in_window": (
        COUNT,
        "edits whose article a human saved or unpublished between the read and the edit",
    ),
    "human_save_in_window_theory": (
        SHARE,
        "closed form: the chance a human saves or unpublishes the article between the read "
        "and the edit",
    ),
    "shift_from_default": ("points (0–1 scale)", "the reading's shift from the default"),
    "human_save_in_window_share": (SHARE, "edits whose article a human changed in between"),
    "conflicts": (COUNT, "first-try rejections"),
    "conflicts_agent": (COUNT, "first-try rejections caused only by the agent's own edits"),
    "conflicts_human": (COUNT, "first-try rejections after a human's save"),
    "reject_share": (SHARE, "edits rejected on the first try"),
    "human_reject_share": (SHARE, "edits rejected on the first try after a human's save"),
    "retries_all_succeeded": (FLAG, "every re-read-and-retry succeeded"),
    # the write gate
    "strategy": (TEXT, "approve_then_write or reread_after_approval"),
    "approval_median_s": ("s", "median approval latency"),
    "approval_reviewer": (TEXT, "independent, queue or batch: how the reviewer works"),
    "tool_latency_s": ("s", "time each tool call takes"),
    "first_writes_sent": (COUNT, "edits whose first approval was granted and write sent"),
    "human_conflicts": (COUNT, "first writes that met a human's save"),
    "agent_conflicts": (COUNT, "first writes that met only the agent's own edits"),
    "gone_at_first_write": (COUNT, "first writes that found the article unpublished"),
    "human_conflict_share_of_sent": (SHARE, "first writes sent that met a human's save"),
    "agent_conflict_share_of_sent": (SHARE, "first writes sent that met only agent edits"),
    "gone_share_of_sent": (SHARE, "first writes sent that found the article unpublished"),
    "human_conflict_share_of_edits": (SHARE, "edits whose first write met a human's save"),
    "human_conflict": (SHARE, "closed form: a human save on a published article in between"),
    "first_try_rejected_share": (SHARE, "edits whose first write was rejected"),
    "second_approvals": (COUNT, "approvals asked after the first"),
    "second_approval_share": (SHARE, "edits that needed a second approval"),
    "approvals": (COUNT, "approvals asked"),
    "approvals_per_edit": ("approvals", "approvals asked per edit"),
    "agent_calls": ("calls", "the agent's tool calls for its edits"),
    "agent_calls_per_edit": ("calls", "the agent's tool calls per edit"),
    "agent_chars": ("characters", "characters the agent received for its edits"),
    "agent_chars_per_edit": ("characters", "characters the agent received per edit"),
    "declined": (COUNT, "edits declined by the reviewer"),
    "declined_share": (SHARE, "edits declined by the reviewer"),
    "succeeded_share": (SHARE, "edits that succeeded"),
    "gave_up_share": (SHARE, "edits abandoned"),
    "approval_wait_s": ("s", "time spent waiting for approvals"),
    "approval_wait_min_per_edit": ("min", "time spent waiting for approvals per edit"),
    "scope": (TEXT, "what the median is over: first writes or whole edits"),
    "end_to_end_min_median": ("min", "median time from the edit's start to its end"),
    "matched": (COUNT, "edits matched by seed and answer between the strategies"),
    "differing": (COUNT, "matched edits whose outcome, approvals or waits differ"),
    "edits_differing_share": (SHARE, "matched edits that differ between the strategies"),
    "succeeded_a": (COUNT, "successes under approve_then_write"),
    "succeeded_b": (COUNT, "successes under reread_after_approval"),
    "success_gap": (SHARE, "paired gap in successes, re-read after approval minus the other"),
    "success_gap_ci_half": (SHARE, "half-width of the gap's 95 % CI over seeds"),
    "success_gap_sign_p": ("p value", "two-sided exact sign test of the per-seed gaps"),
    # response sizes
    "result": (TEXT, "the tool result measured"),
    "text_chars_before": ("characters", "text characters at the commit before"),
    "text_chars_now": ("characters", "text characters now"),
    "text_now_over_before": ("ratio", "text characters now ÷ before"),
    "structured_chars_before": ("characters", "structured-content characters before"),
    "structured_chars_now": ("characters", "structured-content characters now"),
    "received_chars_before": ("characters", "characters a client received before"),
    "received_chars_now": ("characters", "characters a client receives now"),
    "before_commit": (TEXT, "the commit measured as 'before'"),
    # calibration
    "source": (TEXT, "the statistic's source: the log or a generated run"),
    "coefficient": (TEXT, "the burstiness or memory coefficient"),
    "estimate": ("as the quantity", "the fitted value"),
    "ci_low": ("as the quantity", "low end of the 95 % bootstrap interval"),
    "ci_high": ("as the quantity", "high end of the 95 % bootstrap interval"),
    "resampled": (TEXT, "what the bootstrap resamples: articles, publishes or sittings"),
    "family": (TEXT, "the popularity family fitted"),
    "params": (TEXT, "the family's fitted parameters"),
    "ks_distance": ("distance (0–1)", "Kolmogorov–Smirnov distance of the fit"),
    "p_value": ("p value", "goodness of fit's p value"),
    "aic": ("AIC", "Akaike information criterion of the fit"),
    "chosen": (FLAG, "the family the shape uses"),
    "statistic": (TEXT, "the held-out statistic compared"),
    "process": (TEXT, "the process generating the comparison runs"),
    "real": ("as the statistic", "the statistic on the held-out part of the log"),
    "generated": ("as the statistic", "the statistic over generated runs"),
    "generated_lo": ("as the statistic", "low end of the generated runs' 95 % range"),
    "generated_hi": ("as the statistic", "high end of the generated runs' 95 % range"),
    "inside": (FLAG, "the real value lies inside the generated range"),
    "drift_p": (
        "p value",
        "two-sided permutation p of the log's own change over the split (last third minus first"
        " two thirds, its weeks dealt at random), uncorrected: the report calls drift by Holm's"
        " step-down over each log's statistics",
    ),
    "permutations": (COUNT, "random dealings of the log's weeks behind drift_p"),
    "target": (
        TEXT,
        "the log whose volume, article count, last third and statistics the runs of the shape"
        " fitted to `log` are compared with",
    ),
    "runs": (COUNT, "generated runs behind the range"),
    "target_saves_per_day": (
        "saves a day",
        "the volume the runs are generated at: the target's, fitted on its first two thirds",
    ),
    "publish": ("integer", "the publish's number in the log"),
    "time": (TEXT, "when, in UTC (ISO 8601)"),
    "articles_added": (COUNT, "articles the publish adds"),
    "saves_left_out": (COUNT, "the publish's saves (rows), left out of the fitted mix and profile"),
    "shape_json": ("JSON", "the fitted edit shape, as `python -m sim calibrate` writes it"),
    # the map (sim/studymap)
    "relation": (TEXT, "how question popularity relates to edit popularity: same or independent"),
    "edits_per_article_day": (
        "edits per article per 24 h",
        "mean edit intensity: saves over articles (alive ones, for a log), per calendar day",
    ),
    "age_s": ("s", "citation age: seconds from the read (for a CAS edit, its delay)"),
    "stale_at_age": (SHARE, "citations stale at that age (closed form, steady rates)"),
    "rejected_by": (TEXT, "whose write rejects: human (a save) or agent (its own other edits)"),
    "form_z": ("standard errors", "simulated mean minus the closed form, in standard errors"),
    "closed_form_in_ci": (FLAG, "the closed form lies inside the simulated mean's 95 % CI"),
    "within_tolerance": (FLAG, "the closed form is within its stated tolerance"),
    "se": (SHARE, "standard error of the simulated mean (at least the binomial one of the form)"),
    "margin": (SHARE, "the equivalence margin: the gap to the closed form the point must detect"),
    "margin_rel": (SHARE, "the margin as a share of the closed form (its floor: an absolute one)"),
    "power": (SHARE, "chance the point's |z| test detects a gap of the margin (normal approx.)"),
    "seeds_for_80_power": (COUNT, "seeds the point needs for 80 % power at its margin"),
    # control variates (sim/report/variance.py)
    "controls": (TEXT, "per-seed counts of known mean regressed on (' + '-joined; none: '')"),
    "plain_mean": (SHARE, "the figure's mean over seeds, no controls"),
    "plain_half_width": (SHARE, "half-width of its plain 95 % interval (normal quantile)"),
    "controlled_mean": (SHARE, "the control-variate mean Ȳ − β̂(C̄ − μ)"),
    "controlled_half_width": (SHARE, "half-width of its 95 % interval (t on n − q − 1 df)"),
    "vrf": ("ratio", "variance reduction factor: plain variance over the residual variance"),
    "narrower": (TEXT, "the narrower interval: plain or controlled (the figures table: plain)"),
    "saves_per_check": (COUNT, "human saves per hourly check (saves a day over checks a day)"),
    "citations_held": (COUNT, "distinct cited articles re-read per check (closed form)"),
    "saves_per_check_at_break_even": (COUNT, "saves per check where poll's calls reach re-read's"),
    "poll_page_events": (COUNT, "events a poll call takes at most (0: one call a check)"),
    "draw": (TEXT, "how the read's article is drawn: by the log's edit popularity, or uniformly"),
    "measured": (SHARE, "reads at a uniform instant stale at that age, from the log's own rows"),
    "pooled": (SHARE, "stale over alive article-time (weights the later, larger years)"),
    "estimand": (TEXT, "what `measured` is: the read's instant and article, when it is stale"),
    "interval": (TEXT, "how `measured`'s 95 % interval is made"),
    "block_days": ("days", "the interval's bootstrap block (Politis-White rule)"),
    "poisson_own_rates": (SHARE, "the same, for Poisson saves at the log's own article rates"),
    "model_writeup_shape": (SHARE, "the same, the write-up's popularity at the log's intensity"),
    "within_hour_share": (SHARE, "saves within an hour of the same article's previous save"),
    "within_hour_poisson": (SHARE, "the same, for Poisson saves at the log's own article rates"),
    "bulk_save_share": (SHARE, "saves in publishes that change 10 or more articles"),
    "saves_per_hour": ("saves per hour", "the log's saves over its span"),
    # the atlas (sim/atlas/, sim/report/atlas.py): sites, their spread, the checks
    "kind": (TEXT, "kind of site: help (help centres), product (user docs), developer (API)"),
    "generator": (TEXT, "the generator that builds the site (MkDocs, Hugo, Sphinx, ...)"),
    "lo": (SHARE, "low end of the measured share's 95 % interval over the site's history"),
    "hi": (SHARE, "high end of the measured share's 95 % interval over the site's history"),
    "sites": (COUNT, "atlas sites with a share at that age"),
    "p10": (SHARE, "10th percentile of the sites' shares"),
    "q25": (SHARE, "25th percentile of the sites' shares"),
    "median": (SHARE, "median of the sites' shares"),
    "q75": (SHARE, "75th percentile of the sites' shares"),
    "p90": (SHARE, "90th percentile of the sites' shares"),
    "pi_lo": (SHARE, "low end of the 90 % prediction interval for a further site (a ranked share)"),
    "pi_hi": (SHARE, "high end of the 90 % prediction interval for a further site"),
    "tried": (COUNT, "sites left out with an interval from the others (three others at least)"),
    "left_out_inside": (COUNT, "left-out sites inside the interval built from the others"),
    "loo_coverage": (SHARE, "left_out_inside over tried"),
    "sites_outside": (TEXT, "the left-out sites outside that interval, ;-separated"),
    "past": (SHARE, "the share measured on the first 70 % of the site's span"),
    "past_lo": (SHARE, "low end of its 95 % interval"),
    "past_hi": (SHARE, "high end of its 95 % interval"),
    "future": (SHARE, "the share measured on the last 30 % of the site's span"),
    "future_lo": (SHARE, "low end of its 95 % interval"),
    "future_hi": (SHARE, "high end of its 95 % interval"),
    "future_inside": (FLAG, "the future's share lies inside the past's 95 % interval"),
    "inside_pi": (FLAG, "the held-out site's share lies inside the atlas's 90 % PI (ends in)"),
    "percentile": ("percentile", "where a held-out site's share stands among the atlas's, 0–100"),
}
"""Base names: (unit, meaning)."""

PREFIXES = {
    "zipf_": "on the Zipf staleness day",
    "control_": "on the even control day",
    "cas_": "on the CAS day",
}
SUFFIXES = {
    "_all_seeds_mean": "mean over all seeds",
    "_all_seeds_ci_lo": "low end of the 95 % CI over all seeds",
    "_all_seeds_ci_hi": "high end of the 95 % CI over all seeds",
    "_all_seeds": "over all seeds",
    "_seeds_1_5": "on seeds 1–5 pooled",
    "_mean": "mean over seeds",
    "_ci_lo": "low end of the 95 % CI",
    "_ci_hi": "high end of the 95 % CI",
    "_closed_form": "closed form",
    "_theory": "closed form",
}
STATISTIC_PREFIXES = {
    "theory_": "closed form",
    "shift_": "shift from the default reading",
    "diff_": "seed-paired difference from the reference arm",
}
DELAY = re.compile(r"_(\d+)s$")

FILES: dict[str, str] = {
    "atlas_sites.csv": "each atlas site's stale share by age and CAS rejection by delay, own rows",
    "atlas_population.csv": "the sites' spread by age and kind, and a further site's 90 % PI",
    "atlas_loo.csv": "each site left out in turn: inside the interval built from the others?",
    "atlas_heldout.csv": "real docs sites not in the atlas against its 90 % PI: inside?",
    "atlas_outoftime.csv": "each site's first 70 % against its last 30 %: past predicts future?",
    "per_seed.csv": "every headline quantity per seed (staleness and CAS days joined)",
    "comparison.csv": "each figure of the write-up beside ours, with z and a verdict",
    "sensitivity.csv": "each figure under each reading of an open choice, at full strength",
    "staleness.csv": "the staleness days of seeds 1–5, per seed and pooled",
    "check_cost.csv": "what each check method cost on seeds 1–5, from the call log",
    "cas_by_delay.csv": "CAS edits per delay of the default ladder",
    "cas_curve.csv": "CAS edits on the whole curve of delays",
    "stale_over_day.csv": "the stale share at each hourly check",
    "check_calls_by_check.csv": "calls and characters of each method at each hourly check",
    "tool_calls.csv": "calls and characters per client, tool and outcome",
    "response_sizes.csv": "characters of each tool result, before and now",
    "break_even.csv": "poll against re-read cost over saves × questions a day",
    "break_even_crossings.csv": "saves per check where polling stops being cheaper",
    "gate.csv": "the write gate per strategy, approval latency and delay",
    "gate_conditions.csv": "both strategies under each reviewer and tool latency",
    "exposure.csv": "unnoticed time against cost per method and interval",
    "exposure_crossings.csv": "intervals where a periodic method costs what push costs",
    "exposure_theory.csv": "simulated against closed-form exposure quantities",
    "realshape.csv": "headline figures per real-shape arm, with paired differences",
    "realshape_moves.csv": "the real feature that moves each figure most, Holm-corrected",
    "realshape_paired.csv": "realshape.csv on the seeds every arm of a log ran (the grids)",
    "calibration_fit.csv": "the bundled log's fitted edit process, with bootstrap intervals",
    "calibration_gof.csv": "goodness of fit of each popularity family",
    "calibration_burstiness.csv": "burstiness and memory of the log and generated runs",
    "calibration_validation.csv": "held-out statistics against generated runs, per log, with"
    " the log's own drift",
    "calibration_shape.csv": "the fitted shape as JSON",
    "calibration_transfer.csv": "a shape fitted on one log against another log's last third",
    "calibration_imports.csv": "each log's initial imports, left out of its fit's mix and profile",
    "map_logs.csv": "each shared log's stale share by age and draw, from its own rows",
    "map_agreement.csv": "the map's closed forms against the simulated grid, point by point,"
    " with each point's margin and power",
    "map_stale_by_citation.csv": "the map's stale share of answers' first and other citations,"
    " each against its own form",
    "variance_reduction.csv": "each figure's interval plain and with control variates (VRF)",
    "map_stale.csv": "stale share by edit intensity, citation age and relation (closed form)",
    "map_cas.csv": "CAS rejection by delay: a human's save, the agent's own edits (closed form)",
    "map_break_even.csv": "poll's calls over re-read's by saves per check and questions",
    "map_break_even_points.csv": "saves per check where polling stops being cheaper",
    "map_break_even_settings.csv": "the same by events a poll call takes and spread of saves",
    "advise_pick_seedsets.csv": "the write-up's day pick made on two disjoint seed sets, set"
    " A's checked on set B",
    "advise_backtest.csv": "advice from each log before its last year, replayed on that year"
    " (python -m sim backtest)",
}
"""What each file holds (the per-seed rows in seeds/ share a table's name)."""
SEED_FILES = {
    "advise_seedsets.csv": "the advisor's simulated day per seed set, seed and option (sums)",
    "staleness_headline.csv": "the staleness days' headline quantities per seed",
    "cas_headline.csv": "the CAS day's headline quantities per seed",
    "staleness_by_run.csv": "each staleness run (Zipf, control) per seed",
    "staleness_checks.csv": "every hourly check per seed and method",
    "staleness_calls.csv": "the staleness days' calls per client, tool and outcome",
    "cas_calls.csv": "the CAS day's calls per client, tool and outcome",
    "cas_edits.csv": "the CAS day's edits per delay and seed",
    "exposure.csv": "the exposure day per seed, method and interval (sums)",
    "exposure_p95.csv": "the exposure's pooled 95th percentiles",
    "gate.csv": "the write gate's edits per seed",
    "gate_medians.csv": "the write gate's pooled medians",
    "gate_pairs.csv": "the strategies' matched edits per seed",
    "sensitivity.csv": "each reading's headline quantities per seed",
    "realshape.csv": "each real-shape arm's figures per seed",
    "realshape_traits.csv": "each panel log's traits the conclusions depend on (pooled)",
    "break_even.csv": "the break-even grid per point and seed",
    "map_stale.csv": "the map's grid: citations stale at the day's end per point and seed",
    "map_cas.csv": "the map's grid: CAS edits per point, seed and delay",
}
JSON_KEYS = {
    "summary.json": {
        "seeds": "seeds run per experiment",
        "analytic": "closed-form values (the top ten articles' Zipf weight)",
        "seeds_1_5": "each figure on seeds 1–5 (keys as comparison.csv's key)",
        "all_seeds": "each figure's mean and 95 % CI over all its seeds",
        "verdicts": "each figure's verdict",
    },
    "environment.json": {
        "version": "the version of stale-citations-sim that made results/, a release in"
        " CHANGELOG.md (recorded, not compared by make check)",
        "python": "the Python release that made results/ (recorded, not compared by make check)",
        "implementation": "the Python implementation (CPython)",
        "machine": "the processor architecture (e.g. x86_64)",
        "packages": "every direct dependency's installed version (make check compares these"
        " with a fresh run's; requirements.lock pins them)",
        "numpy_cpu": "numpy's baseline and the dispatched CPU features it found (recorded:"
        " the figures do not depend on them, sim/exactmath.py says why)",
    },
}
"""Top-level keys of the JSON files (bench.json, from `make bench`, is in results/SPEED.md)."""


def describe(column: str) -> tuple[str, str] | None:
    """(unit, meaning) of a column, or None when no rule describes it."""
    if column in BASE:
        return BASE[column]
    notes = []
    name = column
    for suffix, note in SUFFIXES.items():
        if name.endswith(suffix) and name != suffix:
            name, notes = name[: -len(suffix)], [note]
            break
    for prefix, note in STATISTIC_PREFIXES.items():
        if name.startswith(prefix):
            name, notes = name[len(prefix) :], [*notes, note]
    delay = DELAY.search(name)
    if delay and name[: delay.start()] in {*BASE, *(p + b for p in PREFIXES for b in BASE)}:
        notes.append(f"for edits {delay.group(1)} s after the read")
        name = name[: delay.start()]
    for prefix, note in PREFIXES.items():
        if name.startswith(prefix) and name[len(prefix) :] in BASE:
            name, notes = name[len(prefix) :], [*notes, note]
            break
    if name not in BASE:
        return None
    unit, meaning = BASE[name]
    return unit, meaning + "".join(f"; {n}" for n in notes)


def undescribed(columns: list[str]) -> list[str]:
    return [c for c in columns if describe(c) is None]


def _rows(columns: list[str]) -> list[tuple[str, str, str]]:
    """(column, unit, meaning) of each column; an undescribed one says so."""
    return [(c, *(describe(c) or ("?", "not described"))) for c in columns]


def sweep_columns(per_seed_columns: list[str]) -> list[str]:
    """The sweep CSV's columns (`sim.study.sweep.point_row`): every parameter, the per-seed
    headline quantities (per_seed.csv's), the seed and the runs simulated."""
    return [*Params().as_dict(), *per_seed_columns, "seed", "experiments"]


def described(column: str) -> bool:
    """A column of any output, the sweep's parameters included, is described."""
    return column in param_docs() or describe(column) is not None


def data_dictionary(out: Path, figures: Sequence[Mapping[str, object]]) -> str:
    """results/DATA.md: every CSV and JSON file in `out`, the sweep's output and each figure
    of ``figures`` (`sim/results/figtable.py`'s rows: what draws it, from what, where it is
    shown) (templates/columns_data.md.j2)."""
    sections = []
    for folder, files, title in ((out, FILES, "Tables"), (out / "seeds", SEED_FILES, "seeds/")):
        listed = []
        for path in sorted(folder.glob("*.csv")):
            listed.append(
                {
                    "name": path.relative_to(out).as_posix(),
                    "what": files.get(path.name) or FILES.get(path.name, ""),
                    "columns": _rows(list(pd.read_csv(path, nrows=0).columns)),
                }
            )
        sections.append((title, listed))
    json_keys = [
        (name, [(k, keys.get(k, "not described")) for k in json.loads((out / name).read_text())])
        for name, keys in JSON_KEYS.items()
        if (out / name).exists()
    ]
    docs = param_docs()
    params = list(Params().as_dict())
    per_seed = list(pd.read_csv(out / "per_seed.csv", nrows=0).columns)
    return render(
        "columns_data.md.j2",
        sections=sections,
        json=json_keys,
        params=[(p, "parameter", docs.get(p, "")) for p in params],
        sweep=_rows([c for c in sweep_columns(per_seed) if c not in params]),
        figures=figures,
    )
