"""The README stays short and every command it shows runs: each `python -m sim` line of
its shell blocks (and of sim/README.md and sim/server/README.md) is run with small
arguments, the host configuration starts the server it names, and the quick start's SDK
client gets a search answer.

A command runs in a process forked from a zygote that imported the third-party libraries
once (tests/forkserve.py, kind "libraries"): the command imports `sim`'s own modules and
runs `python -m sim`'s entry point on its arguments, in its folder, with its streams and
its exit status, as a fresh interpreter would, without paying numpy's, pandas', SciPy's and
the SDK's imports a dozen times. `python -m sim --help` and the quick start client's server
(`python -m sim serve`) start real interpreters; the client's own code runs in the test's."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.forkserve import Zygote
from tests.test_import import _docs

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [ROOT / "sim" / "README.md", ROOT / "sim" / "server" / "README.md"]
MAX_LINES = 200
MAX_QUICK_START_LINES = 15
SMALL = {"--seeds": "1", "--articles": "400", "--boot": "5"}
"""Flag values a test run replaces: seeds and sizes that keep each command to seconds."""
EXTRA = {"calibrate": ["--boot", "5"], "sweep": ["--experiments", "staleness"]}
"""Flags a test run adds, by command: the bootstrap's resamples (200 by default), one
experiment of the sweep's three."""
EXTRA_DB = {"advise": ["--simulate", "1"]}
"""Flags a test run adds to a command on an imported KB (`--db`): one simulated day, not as
many as the default precision asks (up to its 25 s cap, on both cores); the command's days
and their figures are tests/test_advise_sampled.py's."""
TIMEOUT_S = 120
DOCS_PLACEHOLDER = "path/to/docs"
"""The reader's docs folder in the README's import command: a test run imports a git
repository of docs built in its folder (tests/test_import.py's: renames, drafts, a bulk
commit, non-ASCII titles, a deletion)."""
IMPORTED_DB = "kb.sqlite"
"""The KB file the import command writes and the README's next commands read: a test run of
one of those runs in a copy of a folder the import command ran in (``imported``)."""


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {p.split("\n", 1)[0]: p.split("\n", 1)[1] for p in parts}


def _commands() -> list[str]:
    """Every `python -m sim` command in the shell blocks, `&&` chains kept whole."""
    found = []
    for path in (README, *DOCS):
        for block in _blocks(path.read_text(), "sh"):
            for line in block.splitlines():
                line = line.split("  #", 1)[0].strip()
                if line.startswith("python -m sim"):
                    found.append(line)
    return found


def test_the_readme_is_short_and_opens_with_a_quick_start() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MAX_LINES
    sections = list(_sections(text))
    assert sections[0] == "Quick start", sections
    quick = [line for line in _sections(text)["Quick start"].splitlines() if line.strip()]
    assert len(quick) <= MAX_QUICK_START_LINES, len(quick)
    assert sections[1] == "Findings", sections


def test_every_path_the_readme_names_exists() -> None:
    text = README.read_text()
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert (ROOT / target).exists(), target
    for command in _commands():
        for word in shlex.split(command):
            if "/" in word and not word.startswith("-") and "://" not in word:
                if word == DOCS_PLACEHOLDER:
                    continue
                assert (ROOT / word).exists(), f"{command}: {word} does not exist"


def _small(command: str) -> list[str]:
    """A README command as argv, with small values for the flags in SMALL and the extra
    flags its subcommand needs; `python` is this interpreter."""
    argv = shlex.split(command)
    argv[0] = sys.executable
    for i, word in enumerate(argv[:-1]):
        if word in SMALL:
            argv[i + 1] = SMALL[word]
    command = argv[3] if len(argv) > 3 else ""
    extra = EXTRA_DB.get(command, []) if "--db" in argv else []
    return argv + EXTRA.get(command, []) + extra


def _import_command() -> str:
    [command] = [c for c in _commands() if f"import {DOCS_PLACEHOLDER}" in c]
    return command


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    """The libraries imported once for this module's commands."""
    z = Zygote("libraries")
    yield z
    z.close()


def _argv(part: str, zygote: Zygote) -> list[str]:
    """The command to run for one README command: `--help` in a fresh interpreter, any
    other forked from the zygote."""
    argv = [str(ROOT / w) if (ROOT / w).is_file() else w for w in _small(part)]
    assert argv[1:3] == ["-m", "sim"], argv
    return argv if argv[3:] == ["--help"] else zygote.command(*argv[3:])


def _run(part: str, folder: Path, zygote: Zygote) -> None:
    """One README command, run in folder, must succeed."""
    part = part.replace(DOCS_PLACEHOLDER, "docs")
    done = subprocess.run(
        _argv(part, zygote),
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, f"{part}: {done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, zygote: Zygote) -> Path:
    """A folder where the README's import command ran on the docs repository: each command
    that reads its KB runs in a copy of it (one import for them all, not one each)."""
    folder = tmp_path_factory.mktemp("imported")
    _docs(folder)  # in folder/docs
    _run(_import_command(), folder, zygote)
    return folder


@pytest.mark.parametrize("command", _commands())
def test_every_readme_command_runs_with_small_arguments(
    command: str, tmp_path: Path, zygote: Zygote, request: pytest.FixtureRequest
) -> None:
    if DOCS_PLACEHOLDER in command:  # the import itself, on a repository of its own
        _docs(tmp_path)
    elif f"--db {IMPORTED_DB}" in command:
        imported = request.getfixturevalue("imported")
        shutil.copytree(imported, tmp_path, symlinks=True, dirs_exist_ok=True)
    for part in command.split(" && "):
        _run(part, tmp_path, zygote)


def test_the_readme_shows_commands() -> None:
    assert any(c.startswith("python -m sim serve") for c in _commands())
    assert any(c.startswith("python -m sim calibrate sim/calibrate/logs/") for c in _commands())


def test_the_host_configuration_is_a_command_the_readme_runs() -> None:
    """The host's server command is one of the commands above, so it is run there."""
    [config] = _blocks(_sections(README.read_text())["Quick start"], "json")
    [server] = json.loads(config)["mcpServers"].values()
    assert server["command"].endswith(".venv/bin/python")
    assert shlex.join(["python", *server["args"]]) in _commands()


def test_the_quick_start_client_gets_a_search_answer(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The client's code runs in this process, from the checkout, as its own script would
    (its imports in its own namespace; an interpreter of its own, importing the SDK again,
    was over half of this test's CPU), within TIMEOUT_S as before; its server, `python -m
    sim serve`, is a real interpreter it starts."""
    [client] = _blocks(_sections(README.read_text())["Quick start"], "python")
    assert 'command=".venv/bin/python"' in client
    source = client.replace('command=".venv/bin/python"', f"command={sys.executable!r}")
    monkeypatch.chdir(ROOT)

    def too_long(signum: int, frame: object) -> None:
        raise TimeoutError(f"the quick start client ran past {TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIMEOUT_S)
    try:
        exec(compile(source, "README.md quick start", "exec"), {"__name__": "__main__"})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out = capfd.readouterr().out
    first = out.splitlines()[0]
    assert first.endswith(".") and "kb-support" in first, out
