"""Every knob of the simulated day, in one frozen, validated dataclass.

Defaults are the write-up's day. Vary it with ``dataclasses.replace`` (``Params.with_``
where the fields are named at run time); a bad value raises ``ValueError`` on
construction, naming the field, what it accepts and what it got. The module is longer than
~300 lines because it is that one dataclass: each field with its docstring (the report's
parameter list reads them) and its check beside the others it depends on. A field a command
line flag sets names that flag, its limits and help in its metadata (``Flag``), so that
`sim/cli/paramflags.py` builds the flag from the field and no default is written twice.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any, Literal, cast

from sim.calibrate.shape import EditShape, load_shape
from sim.calibrate.trace import SaveTrace

HOUR_S = 3600.0
LADDER_S = (5.0, 600.0, 3600.0, 4 * 3600.0)
SHAPE_FEATURES = ("popularity", "bursts", "bulk", "profile")
"""The calibrated edit process's real features (sim.calibrate.generate.FEATURES)."""

ApprovalStrategy = Literal["approve_then_write", "reread_after_approval"]
ApprovalReviewer = Literal["independent", "queue", "batch"]
Transport = Literal["direct", "mcp"]
QuestionRelation = Literal["same", "independent", "clustered"]


@dataclass(frozen=True)
class Flag:
    """The command-line flag that sets a field (`sim/cli/paramflags.py` builds it), kept in
    the field's metadata so that its default, limits and help are written once."""

    name: str
    help: str
    limits: tuple[float, float] | None = None
    """Lowest and highest value the flag takes, in its own unit; None for a choice."""
    unit: float = 1.0
    """The field's value is the flag's times this (3600: a flag in hours, a field in seconds)."""
    kind: type[int] | type[float] | None = None
    """The number the flag takes, where the field's type allows both."""
    metavar: str | None = None
    shown: str = ""
    """The default as the help says it, where its value would not (inf)."""


def flag(
    name: str,
    help: str,
    limits: tuple[float, float] | None = None,
    *,
    unit: float = 1.0,
    kind: type[int] | type[float] | None = None,
    metavar: str | None = None,
    shown: str = "",
) -> dict[str, Flag]:
    """A field's metadata naming its flag (see Flag)."""
    return {"flag": Flag(name, help, limits, unit, kind, metavar, shown)}


@lru_cache(maxsize=8)
def _load_shape(path: str) -> EditShape:
    return load_shape(path)


@dataclass(frozen=True)
class Params:
    n_articles: int = field(
        default=400, metadata=flag("--articles", "articles in the KB", (1, 100_000))
    )
    """Articles in the knowledge base, all published at the start of the day."""
    n_questions: int = field(
        default=120,
        metadata=flag("--questions-per-day", "questions the agent answers a day", (1, 10_000_000)),
    )
    """Customer questions in the day (the mean, with ``arrivals='poisson'``)."""
    n_saves: int | float = field(
        default=300,
        # the flag's top: advise simulates every save of the day its result sizes are measured
        # on (0.15 CPU-s a thousand saves) and, with an edit log, of its first batch's days:
        # 52 CPU-s at 50,000 with --edit-log (measured), under a minute on two cores; 10
        # million, the top before, ran some 25 minutes. 50,000 is 125 saves an article a day
        # on the write-up's 400 articles, past the map's 100.
        metadata=flag("--saves-per-day", "human saves in the day", (0, 50_000), kind=int),
    )
    """Human saves in the day (the mean, with ``arrivals='poisson'`` or the calibrated
    process, where it may be a fraction: a quiet help centre's day)."""
    day_s: float = field(
        default=8 * HOUR_S,
        metadata=flag(
            "--day-hours",
            "working hours a day, when questions and saves come",
            (0.1, 24),
            unit=HOUR_S,
        ),
    )
    """Length of the working day in seconds; questions and saves fall inside it."""
    zipf_s: float = field(
        default=0.9,
        metadata=flag("--zipf", "Zipf exponent of question popularity over the articles", (0, 10)),
    )
    """Zipf exponent of article popularity; 0 is uniform."""
    save_popularity: Literal["zipf", "even"] = "zipf"
    """'zipf': saves follow popularity; 'even': the control, saves spread uniformly."""
    edit_follows_questions: float = 1.0
    """1: saves use the questions' popularity ranking (the write-up); 0: an independent
    ranking of the same Zipf shape; in between: a mixture of the two."""
    save_mix: tuple[float, float, float] = (0.85, 0.10, 0.05)
    """Shares of saves that edit the body, edit body and title, unpublish."""
    citations_per_answer: int = field(
        default=2,
        metadata=flag(
            "--citations-per-answer", "top hits the agent reads and cites an answer", (1, 20)
        ),
    )
    """Top search hits the agent reads and cites per question."""
    check_interval_s: float = HOUR_S
    """Seconds between the checker's rounds over every citation held so far."""
    run_checker: bool = True
    """Run the hourly checks (the staleness experiment)."""
    agent_edits: bool = False
    """After each answer, edit the first cited article after a delay (the CAS experiment)."""
    edit_delays_s: tuple[float, ...] = LADDER_S
    """Delays in seconds, assigned round-robin by answer index."""
    max_edit_attempts: int = 5
    """Attempts per agent edit (first try plus re-read-and-retry) before giving up."""
    arrivals: Literal["uniform", "poisson"] = "uniform"
    """'uniform': exactly n_questions and n_saves at independent uniform times (a Poisson
    process conditioned on its count); 'poisson': Poisson counts with those means."""
    tool_latency_s: float = 0.0
    """Simulated seconds each tool call takes."""
    title_check_limit: int = 5
    """Hits the title-only check asks for when it searches a kept title."""
    transport: Transport = "direct"
    """'direct': the agent and checker call the tools in-process; 'mcp': every call crosses
    the MCP protocol (official SDK client and server, JSON-RPC over in-memory streams)."""
    unpublished_save: Literal["draft", "redraw", "republish"] = "draft"
    """A save drawn for an unpublished article: 'draft' edits its draft (invisible to search
    and read); 'redraw' draws another published article by the same weights; 'republish'
    publishes it again with the edit (an unpublish drawn for it still edits the draft). The
    write-up is silent."""
    agent_edit_targets: Literal["any", "distinct_articles"] = field(
        default="any",
        metadata=flag(
            "--edit-targets",
            "'any': every answer edits its first citation; 'distinct_articles': not an "
            "article an earlier answer of the day edits",
        ),
    )
    """'any': each answer's edited citation is edited, so two answers citing one article both
    edit it and may reject each other; 'distinct_articles': an answer whose article an
    earlier answer of the day already edits makes no edit."""
    agent_edit_share: float = field(
        default=1.0,
        metadata=flag(
            "--edit-share",
            "the share of answers that edit, each drawn at random; 1, every answer, is the "
            "write-up's agent",
            (0, 1),
            metavar="0..1",
        ),
    )
    """Share of answers that edit in the CAS run: each answer edits with this probability,
    drawn from its own random stream; 1, the write-up's agent, every answer edits."""
    citation_hold_s: float = field(
        default=math.inf,
        metadata=flag(
            "--hold-hours",
            "hours a citation is held after its read; then it is no longer checked, and "
            "counts as stale only if it was stale when let go",
            (0.01, 168),
            unit=HOUR_S,
            metavar="H",
            shown="to the day's end",
        ),
    )
    """Seconds the agent holds a citation after its read; then it is let go: no method
    checks it, and it counts as stale only if it was stale when let go (its stale time ends
    there). inf: the write-up's agent, every citation held to the day's end."""
    replays: Literal["first_try_successes", "every_success"] = "first_try_successes"
    """Which successful edits are sent again with the same key: the write-up's 409 equals
    600 − 19 gone − 172 first-try rejections, so only first-try successes."""
    day_profile: Literal["uniform", "two_peaks", "questions_peak", "saves_peak"] = "uniform"
    """When questions and saves come: independent uniform times over the day ('spread over
    8 hours'); one shared profile with a morning and an afternoon peak ('two_peaks', one
    monotone warp of both clocks: it keeps every question's order against every save, so it
    cannot move a day-end staleness figure); or that profile for questions only, saves
    uniform ('questions_peak'), or for saves only ('saves_peak'), which move them apart.
    Every profile maps the same uniforms of the same streams."""
    edited_citation: Literal["first", "second"] = "first"
    """Which of an answer's citations the CAS run edits ('the article it cited first')."""
    humans_after_day_end: bool = False
    """Humans keep saving at the day's rate, with the same popularity, while the agent's
    late edits land (up to the longest delay after the day); the write-up's 300 saves fall
    inside the 8 hours."""
    save_spread: Literal["independent", "distinct_articles", "even_times"] = "independent"
    """How the saves are spread, on the Zipf day and the even control alike: independent
    draws of article and time; each save on a different article (drawn without replacement
    by the same weights); or saves at evenly spaced times."""
    write_gate: bool = False
    """Every agent edit needs its own recorded approval of exactly its arguments, decided by
    a reviewer (the write-up's closing advice); off in the write-up's study."""
    approval_strategy: ApprovalStrategy = "approve_then_write"
    """With the gate: write with the citation's version once approved, or re-read after the
    approval and, if the article changed, re-apply the change and ask a second approval."""
    approval_median_s: float = 120.0
    """Median seconds from an approval request to the reviewer's decision (lognormal)."""
    approval_sigma: float = 1.0
    """Shape of the lognormal approval latency: 1.0 puts the 95th percentile at about 5.2
    times the median."""
    approval_decline_share: float = 0.05
    """Share of approval requests the reviewer declines."""
    approval_ttl_s: float = 900.0
    """Seconds a granted approval stays usable after the decision."""
    approval_reviewer: ApprovalReviewer = "independent"
    """Who decides: 'independent', each request after its own lognormal latency (a reviewer
    free for every request); 'queue', one reviewer deciding requests one at a time in the
    order asked, each taking a lognormal latency; 'batch', one reviewer deciding every
    pending request at once every 2 × approval_median_s (so a request's median wait is
    about approval_median_s)."""
    push: bool = False
    """The agent subscribes to every article it cites (MCP resource subscriptions) and
    re-reads one when notified of a change; off in the write-up's study."""
    sweep_intervals_s: tuple[float, ...] = ()
    """More check intervals in seconds, beside the hourly checker: at each, re-read and poll
    (cursor kept between checks, and restarted from the oldest citation); empty in the
    write-up's study."""
    stop_checking_known_stale: bool = True
    """In the interval sweep (not the hourly checker): once all held citations of an article
    are known stale, re-read and poll stop checking it until it is cited again, as push
    unsubscribes; a stated choice, so that every method is costed under the same rule.
    False keeps checking every held citation at every check."""

    save_process: Literal["writeup", "calibrated", "trace"] = "writeup"
    """How human saves arrive: 'writeup', independent uniform times on Zipf-drawn articles
    (the write-up); 'calibrated', the edit shape fitted to a real edit log (`edit_shape`),
    mapped onto the busiest weekday working window of its profile, n_saves in the day on
    average; 'trace', a KB's own history's saves replayed, days drawn from it in blocks
    (`save_trace`)."""
    edit_shape: EditShape | str = ""
    """With save_process 'calibrated': the fitted shape (an EditShape, or the path of the JSON
    that `python -m sim calibrate` writes)."""
    save_trace: SaveTrace | None = None
    """With save_process 'trace': the KB's edit history on its published articles
    (sim.calibrate.trace), whose days are replayed as they happened."""
    shape_features: tuple[str, ...] = SHAPE_FEATURES
    """The calibrated shape's real features switched on (popularity, bursts, bulk, profile);
    each one off is replaced by the write-up's counterpart (Zipf zipf_s popularity,
    independent saves, one article per publish, uniform time)."""
    question_relation: QuestionRelation = "same"
    """How question popularity relates to edit popularity under the calibrated process: the
    same ranking (the write-up); an independent ranking; or the same ranking with a share of
    questions ('cluster_share') arriving shortly after a publish, on an article it touched.
    The log says nothing about questions. With the write-up's process only 'same' (see
    edit_follows_questions) and 'clustered' apply."""
    cluster_share: float = 0.5
    """With question_relation 'clustered': share of questions drawn around a publish."""
    cluster_delay_s: float = 1800.0
    """With question_relation 'clustered': mean seconds (exponential) from a publish to a
    question it prompts; one that would fall after the day keeps its independent draw."""

    corpus_db: str = ""
    """The KB file `python -m sim import` wrote: its published articles are the day's corpus
    and n_articles must be their count (questions from their titles and headings, or
    corpus_queries);
    empty, the write-up's synthetic corpus."""
    corpus_queries: str = ""
    """With corpus_db: a query log, one query a line; an article's questions are the
    queries that find it first (its title and headings where none does)."""

    def __post_init__(self) -> None:
        def bad(name: str, allowed: str) -> ValueError:
            return ValueError(
                f"Params.{name}: expected {allowed}; received {getattr(self, name)!r}"
            )

        for name in (
            "n_articles",
            "n_questions",
            "citations_per_answer",
            "max_edit_attempts",
            "title_check_limit",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise bad(name, "an integer of 1 or more")
        saves = self.n_saves
        number = isinstance(saves, int | float) and not isinstance(saves, bool)
        if not number or not 0 <= saves < math.inf:
            raise bad("n_saves", "a number of 0 or more")
        exact = self.save_process == "writeup" and self.arrivals == "uniform"
        if exact and not float(saves).is_integer():
            raise bad(
                "n_saves",
                "a whole number (a fraction is a mean: with save_process='calibrated' or "
                "arrivals='poisson')",
            )
        for name in ("day_s", "check_interval_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise bad(name, "a finite number of seconds above 0")
        if not 0 <= self.tool_latency_s < math.inf:
            raise bad("tool_latency_s", "a finite number of seconds, 0 or more")
        if not 0 <= self.zipf_s < math.inf:
            raise bad("zipf_s", "a finite exponent of 0 or more")
        if not 0 <= self.edit_follows_questions <= 1:
            raise bad("edit_follows_questions", "a number from 0 to 1")
        if self.save_popularity not in ("zipf", "even"):
            raise bad("save_popularity", "'zipf' or 'even'")
        if self.transport not in ("direct", "mcp"):
            raise bad("transport", "'direct' or 'mcp'")
        if self.arrivals not in ("uniform", "poisson"):
            raise bad("arrivals", "'uniform' or 'poisson'")
        for name, allowed in (
            ("unpublished_save", ("draft", "redraw", "republish")),
            ("agent_edit_targets", ("any", "distinct_articles")),
            ("replays", ("first_try_successes", "every_success")),
            ("day_profile", ("uniform", "two_peaks", "questions_peak", "saves_peak")),
            ("edited_citation", ("first", "second")),
            ("save_spread", ("independent", "distinct_articles", "even_times")),
        ):
            if getattr(self, name) not in allowed:
                raise bad(name, " or ".join(repr(a) for a in allowed))
        share = self.agent_edit_share
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            raise bad("agent_edit_share", "a share from 0 to 1")
        hold = self.citation_hold_s
        if isinstance(hold, bool) or not isinstance(hold, int | float) or not hold > 0:
            raise bad("citation_hold_s", "a number of seconds above 0 (inf: to the day's end)")
        if not isinstance(self.humans_after_day_end, bool):
            raise bad("humans_after_day_end", "True or False")
        if self.save_spread == "distinct_articles" and self.n_saves > self.n_articles:
            raise bad("save_spread", "'distinct_articles' only with n_saves <= n_articles")
        if self.edited_citation == "second" and self.citations_per_answer < 2:
            raise bad("edited_citation", "'second' only with citations_per_answer >= 2")
        if self.approval_strategy not in ("approve_then_write", "reread_after_approval"):
            raise bad("approval_strategy", "'approve_then_write' or 'reread_after_approval'")
        for name in ("approval_median_s", "approval_ttl_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0 < value < math.inf:
                raise bad(name, "a finite number of seconds above 0")
        if self.approval_reviewer not in ("independent", "queue", "batch"):
            raise bad("approval_reviewer", "'independent', 'queue' or 'batch'")
        if not 0 <= self.approval_sigma < math.inf:
            raise bad("approval_sigma", "a finite lognormal shape of 0 or more")
        if not 0 <= self.approval_decline_share < 1:
            raise bad("approval_decline_share", "a share from 0 up to (not including) 1")
        if (
            len(self.save_mix) != 3
            or any(not 0 <= x <= 1 for x in self.save_mix)
            or not math.isclose(sum(self.save_mix), 1.0, abs_tol=1e-9)
        ):
            raise bad("save_mix", "three shares from 0 to 1 (body, title, unpublish) summing to 1")
        if not self.edit_delays_s or any(
            not isinstance(d, int | float) or not 0 <= d < math.inf for d in self.edit_delays_s
        ):
            raise bad("edit_delays_s", "a non-empty tuple of finite delays in seconds, 0 or more")
        if any(
            not isinstance(t, int | float) or not 0 < t <= self.day_s
            for t in self.sweep_intervals_s
        ):
            raise bad("sweep_intervals_s", "a tuple of intervals in seconds, above 0 up to day_s")
        if not isinstance(self.stop_checking_known_stale, bool):
            raise bad("stop_checking_known_stale", "True or False")
        if not isinstance(self.push, bool):
            raise bad("push", "True or False")
        if self.push and self.agent_edits and self.transport == "mcp":
            raise bad(
                "push",
                "False with agent_edits over transport 'mcp' (the agent's own writes would "
                "notify it from inside a tool call, which the in-memory transport cannot order)",
            )
        if self.save_process not in ("writeup", "calibrated", "trace"):
            raise bad("save_process", "'writeup', 'calibrated' or 'trace'")
        if (self.save_process == "trace") != isinstance(self.save_trace, SaveTrace):
            raise bad(
                "save_trace",
                "a SaveTrace with save_process 'trace' (sim.calibrate.trace), else None",
            )
        if self.save_trace is not None and self.save_trace.n_articles != self.n_articles:
            raise bad("save_trace", f"a trace on the day's {self.n_articles} articles")
        if self.question_relation not in ("same", "independent", "clustered"):
            raise bad("question_relation", "'same', 'independent' or 'clustered'")
        if self.save_process == "writeup" and self.question_relation == "independent":
            raise bad(
                "question_relation",
                "'same' or 'clustered' with save_process 'writeup' (its independent ranking "
                "is edit_follows_questions=0)",
            )
        if not isinstance(self.shape_features, tuple) or not set(self.shape_features) <= set(
            SHAPE_FEATURES
        ):
            raise bad("shape_features", f"a tuple of features among {SHAPE_FEATURES}")
        if not 0 <= self.cluster_share <= 1:
            raise bad("cluster_share", "a share from 0 to 1")
        if not isinstance(self.cluster_delay_s, int | float) or not 0 < self.cluster_delay_s < (
            math.inf
        ):
            raise bad("cluster_delay_s", "a finite number of seconds above 0")
        if self.save_process == "calibrated":
            self.shape()
            if self.save_spread != "independent" or self.save_popularity != "zipf":
                raise bad(
                    "save_process",
                    "'writeup' with save_spread or save_popularity changed (the calibrated "
                    "shape decides how saves spread)",
                )
        elif self.edit_shape != "":
            self.shape()
        if not isinstance(self.corpus_db, str) or not isinstance(self.corpus_queries, str):
            raise bad("corpus_db", "the path of a KB file as a string (empty: synthetic)")
        if self.corpus_queries and not self.corpus_db:
            raise bad("corpus_queries", "empty unless corpus_db names an imported KB")
        if self.citations_per_answer > 20:
            raise bad("citations_per_answer", "at most 20 (search_knowledge_base's limit)")
        if self.title_check_limit > 20:
            raise bad("title_check_limit", "at most 20 (search_knowledge_base's limit)")

    @property
    def n_checks(self) -> int:
        return int(self.day_s // self.check_interval_s) if self.run_checker else 0

    def shape(self) -> EditShape:
        """The calibrated edit shape, loaded once per process when given as a path."""
        if isinstance(self.edit_shape, EditShape):
            return self.edit_shape
        if not isinstance(self.edit_shape, str) or not self.edit_shape:
            raise ValueError(
                "Params.edit_shape: expected an EditShape or the path of a fitted shape JSON "
                f"(python -m sim calibrate LOG.csv writes one); received {self.edit_shape!r}"
            )
        try:
            return _load_shape(self.edit_shape)
        except ValueError as e:
            raise ValueError(
                f"Params.edit_shape: expected the path of a fitted shape JSON; {e}. Write one "
                "with python -m sim calibrate LOG.csv."
            ) from None

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_(self, **overrides: object) -> Params:
        """A copy with fields named at run time (a sweep's axes, a reading's field) changed.

        Where the names are written out, ``dataclasses.replace`` lets the type checker see
        each value; here an unknown name is a ValueError naming the fields, and each value
        is checked by ``__post_init__`` as on construction.
        """
        names = [f.name for f in fields(self)]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise ValueError(
                f"Params: expected field names among {', '.join(names)}; received "
                f"{', '.join(unknown)}"
            )
        # The names are checked above and the values by __post_init__, at run time.
        return replace(self, **cast(dict[str, Any], overrides))


@lru_cache(maxsize=1)
def _field_docs() -> tuple[tuple[str, str], ...]:
    """Parsed once a process: the data dictionary asks for every column it describes."""
    [cls] = ast.parse(inspect.getsource(Params)).body
    assert isinstance(cls, ast.ClassDef)
    docs = {}
    for node, after in itertools.pairwise(cls.body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return tuple(docs.items())


def param_docs() -> dict[str, str]:
    """Each field's docstring, read from this module's source so the report cannot drift."""
    return dict(_field_docs())
