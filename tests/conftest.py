"""Shared fixtures: a KB on a hand-driven clock, and a session granted to it."""

from __future__ import annotations

import gc
import os
import random
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis.internal.detection import is_hypothesis_test

from sim.kb.store import KBStore
from sim.server.tools import KBServer, Session
from tests.forkserve import Zygote

KB = "kb-test"
OTHER_KB = "kb-other"
START_US = 1_794_000_000_000_000


@dataclass
class ManualClock:
    us: int = START_US

    def __call__(self) -> int:
        return self.us

    def advance(self, seconds: float) -> None:
        self.us += round(seconds * 1_000_000)


ARTICLES = [
    (
        "a1",
        "How to reset the password in the web app",
        "Open Settings and choose password. Reset it from the login page.",
    ),
    (
        "a2",
        "Exporting the invoice PDF in the admin console",
        "Billing admins can export every invoice PDF as a file.",
    ),
    (
        "a3",
        "Guide to sharing the task board (iOS app)",
        "Share the task board with a guest from the iOS app.",
    ),
]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store(clock: ManualClock) -> KBStore:
    s = KBStore(clock)
    s.create_kb(KB)
    s.create_articles(KB, ARTICLES)
    s.create_kb(OTHER_KB)
    s.create_articles(OTHER_KB, [("secret", "Other team's password policy", "Do not leak.")])
    return s


@pytest.fixture
def server(store: KBStore, clock: ManualClock) -> KBServer:
    return KBServer(store, clock)


@pytest.fixture
def session(server: KBServer) -> Session:
    return server.connect("tester", [KB])


def read(session: Session, article_id: str, kb: str = KB) -> dict:
    r = session.call("read_knowledge_article", {"knowledge_base_id": kb, "article_id": article_id})
    return r.structured


def edit_args(article_id: str, version: str, key: str, content: str = "new body", **extra) -> dict:
    return {
        "knowledge_base_id": KB,
        "article_id": article_id,
        "content": content,
        "expected_version": version,
        "idempotency_key": key,
        **extra,
    }


@pytest.fixture(scope="session")
def serve_command() -> Iterator[list[str]]:
    """The command that runs `python -m sim serve` (flags go after it) in a process forked
    from this worker's zygote, which imported the SDK once (tests/forkserve.py)."""
    zygote = Zygote()
    yield zygote.command("serve")
    zygote.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--deep",
        action="store_true",
        help="run the tests marked deep on their full samples (make check): more seeds, "
        "every property test's examples; without it they take the smaller ones of make test",
    )


@pytest.fixture(scope="session")
def deep(pytestconfig: pytest.Config) -> bool:
    """Whether this run is the deep one (`make check`): a test marked ``deep`` then takes its
    full sample, which has more power than the loop of `make test` can pay for."""
    return bool(pytestconfig.getoption("deep"))


DEEP_ENV = "SIM_TESTS_DEEP"
"""Set from --deep before any test module is imported (pytest_configure), so a property
test's example count can be read where its ``settings`` are written. (An environment
variable: test modules import this file as ``tests.conftest``, a module apart from the
``conftest`` pytest loads.)"""
SHALLOW_SHARE = 3
"""`make test` tries a third of each property test's examples; `make check` all of them."""


def examples(n: int, shallow: int | None = None) -> int:
    """A property test's example count for this run: all n under --deep, else a third (at
    least 20), or `shallow` where each example costs a second and the test's explicit
    examples hold the cases that matter."""
    if os.environ.get(DEEP_ENV) == "1":
        return n
    return max(20, n // SHALLOW_SHARE) if shallow is None else shallow


SAMPLE_SEED = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    """Draws the seed of the regression test's sample once per run: new on each run unless
    REGRESSION_SAMPLE_SEED is set. Under pytest-xdist only the controller draws it and hands
    it to every worker, so all workers rerun one sample and the printed seed reruns it.

    SIGINT is given back its default if this run inherited it ignored, as a non-interactive
    shell's `make test &` does (and exec keeps it so): the tests start servers and send them
    Ctrl-C as from a terminal, and a server started ignoring SIGINT keeps ignoring it."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ[DEEP_ENV] = "1" if config.getoption("deep") else "0"
    config.addinivalue_line(
        "markers", "deep: takes a larger sample under --deep (make check) than in make test"
    )
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        config.stash[SAMPLE_SEED] = int(workerinput["regression_sample_seed"])
        return
    drawn = os.environ.get("REGRESSION_SAMPLE_SEED") or random.SystemRandom().randrange(1_000_000)
    config.stash[SAMPLE_SEED] = int(drawn)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:  # xdist WorkerController
    node.workerinput["regression_sample_seed"] = node.config.stash[SAMPLE_SEED]


def pytest_report_header(config: pytest.Config) -> str:
    seed = config.stash[SAMPLE_SEED]
    return f"regression sample seed: {seed} (rerun it: REGRESSION_SAMPLE_SEED={seed} make test)"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The seed again at the end: `make test` runs pytest -q, which shows no header."""
    seed = config.stash[SAMPLE_SEED]
    terminalreporter.write_line(f"regression sample seed: {seed} (REGRESSION_SAMPLE_SEED={seed})")


@pytest.fixture(scope="session")
def regression_sample_seed(pytestconfig: pytest.Config) -> int:
    """The run's regression sample seed (see pytest_configure)."""
    return pytestconfig.stash[SAMPLE_SEED]


MAX_WORKERS = 4
"""More workers than this would each rebuild the module-scoped fixtures for little gain."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


LONGEST_FIRST = (
    "test_regression.py",
    "test_cpu_levels.py",
    "test_readme.py",
    "test_studymap.py",
    "test_notebooks.py",
    "test_advise_sampled.py",
    "test_stdio.py",
    "test_theory.py",
    "test_seedrule.py",
    "test_model.py",
    "test_push.py",
    "test_realshape.py",
    "test_faults.py",
    "test_advise_calllog.py",
    "test_calibrate_cli.py",
    "test_advise_extremes.py",
    "test_calibrate_long.py",
    "test_workers.py",
    "test_lock.py",
    "test_gate.py",
    "test_mcp.py",
    "test_http_sessions.py",
    "test_hosts.py",
    "test_advise_calibrated.py",
    "test_http.py",
    "test_forkserve.py",
    "test_corpus_draws.py",
    "test_calibrate.py",
    "test_logreport_input.py",
    "test_calibrated_process.py",
    "test_requests.py",
    "test_search_index.py",
    "test_sweep.py",
    "test_import.py",
)
"""The modules that take longest, started first so no worker is left with one at the end:
ordered by their summed wall times in one `pytest -n 0` run (the others are a second or two
each)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (--dist loadfile) each module runs on one worker, so a module-scoped
    fixture (a rebuild of results/, a simulated day) is built once, not once per worker;
    the longest modules go first. (loadgroup, which would split a module, leaves its groups
    apart with pytest 9 and pytest-xdist 3.8: xdist writes the group into a field pytest 9
    no longer reads.)"""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
    for item in items:  # every property test takes examples(n): deep, so make check runs it
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.deep)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What every test module imported (pandas, the MCP SDK, the model) lives as long as the
    worker: frozen out of the cyclic collector's full passes, which otherwise walk it again
    and again while tests simulate (20 Poisson days took 5-8 % less CPU)."""
    gc.collect()
    gc.freeze()
