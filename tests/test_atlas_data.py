"""The atlas's data: each site of sites.csv has its log, which parses and meets the stated
selection rule (3 years, 30 articles, 200 rows), with the counts sites.csv gives; the atlas
has 30 sites, 3 kinds and 4 generators; the held-out sites are listed and checked alike and
share no repository with it; its gzip files are byte-reproducible (no name, no
time); the package ships them; and the stated extract command, run on a tiny repository,
gives a log in the shared format with pseudonymous ids."""

from __future__ import annotations

import gzip
import os
import re
import shlex
import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

import sim.atlas as atlas
from sim.__main__ import main
from sim.atlas import heldout
from sim.calibrate.logs import COLUMNS, LogError, read_log

ROOT = Path(__file__).resolve().parents[1]
YEAR_S = 365.25 * 86_400


def test_the_atlas_has_30_sites_of_3_kinds_and_4_generators() -> None:
    sites = atlas.sites()
    assert len(sites) >= 30
    assert {s.kind for s in sites} == {"help", "product", "developer"}
    assert len({s.generator for s in sites}) >= 4
    assert len({s.site for s in sites}) == len(sites) == len({s.repo for s in sites})


ALL_SITES = [*atlas.sites(), *heldout.sites()]


@pytest.mark.parametrize("site", [s.site for s in ALL_SITES])
def test_each_log_parses_meets_the_rule_and_matches_its_row(site: str) -> None:
    s = next(x for x in ALL_SITES if x.site == site)
    log = read_log(s.path)
    assert (log.epoch_s.max() - log.epoch_s.min()) / YEAR_S >= 3
    assert log.n_articles >= 30 and len(log) >= 200
    assert (len(log), len(np.unique(log.publish)), log.n_articles) == (
        s.rows,
        s.publishes,
        s.articles,
    )
    day = np.datetime_as_string(np.array([log.epoch_s.min(), log.epoch_s.max()], "M8[s]"), "D")
    assert [str(d) for d in day] == [s.first, s.last]
    assert re.fullmatch(r"[0-9a-f]{40}", s.commit)
    assert s.licence and s.extract.count(s.commit) == 1


def test_the_held_out_sites_are_not_in_the_atlas_and_every_kind_is_there() -> None:
    """Held out means not in the population: no repository, no name shared."""
    held = heldout.sites()
    assert 3 <= len(held) <= 6
    assert not {s.repo for s in held} & {s.repo for s in atlas.sites()}
    assert not {s.site for s in held} & {s.site for s in atlas.sites()}
    assert {s.kind for s in held} == {"help", "product", "developer"}
    assert all(s.log == f"atlas/heldout/{s.site}.csv.gz" for s in held)


@pytest.mark.parametrize(("folder", "records"), [("logs", atlas.sites), ("heldout", heldout.sites)])
def test_the_gzip_logs_are_reproducible_bytes(folder: str, records) -> None:
    packed = sorted((ROOT / "sim/atlas" / folder).glob("*.csv.gz"))
    assert {p.name for p in packed} == {
        Path(s.log).name for s in records() if s.log.startswith("atlas/")
    }
    for p in packed:
        raw = p.read_bytes()
        assert raw[:3] == b"\x1f\x8b\x08" and raw[3] & 0x08 == 0, p  # gzip, no file name
        assert raw[4:8] == b"\0\0\0\0", p  # mtime 0
        text = gzip.decompress(raw).decode()
        assert text.startswith(",".join(COLUMNS) + "\n"), p


def test_the_package_ships_the_atlas() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = data["package-data"]["sim.atlas"]
    held = (ROOT / "sim/atlas/heldout").iterdir()
    for path in [atlas.SITES, *(ROOT / "sim/atlas/logs").iterdir(), *held]:
        rel = path.relative_to(ROOT / "sim/atlas").as_posix()
        assert any(fnmatch(rel, g) for g in globs), rel


def test_an_unknown_site_is_one_line_naming_the_sites() -> None:
    with pytest.raises(LogError, match="not in the atlas; expected one of obsidian-help"):
        atlas.log("nope")


def _git(repo: Path, *args: str, when: int = 0) -> None:
    stamp = f"{1_600_000_000 + when} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Real Name",
        "GIT_AUTHOR_EMAIL": f"person{when % 2}@example.com",
        "GIT_COMMITTER_NAME": "Real Name",
        "GIT_COMMITTER_EMAIL": "person@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_the_stated_extract_command_gives_the_committed_format(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    s = next(x for x in atlas.sites() if x.log.startswith("atlas/"))
    steps = [shlex.split(step) for step in s.extract.split("&&")]
    calibrate = next(step for step in steps if step[:4] == ["python", "-m", "sim", "calibrate"])
    assert steps[-1] == ["gzip", "-n", "-9", f"{s.site}.csv"]
    repo = tmp_path / s.site
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    folder = s.folder.split("*")[0]
    for i in range(6):
        for k in range(2):
            page = repo / folder / f"page{(i + k) % 3}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"# Page\n\nversion {i} {k}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"edit {i}", when=86_400 * i + i)
    monkeypatch.chdir(tmp_path)
    try:
        code = main(calibrate[3:])
    except SystemExit as e:
        code = e.code
    assert code == 0, capsys.readouterr().err
    subprocess.run(steps[-1], check=True, cwd=tmp_path)
    raw = (tmp_path / f"{s.site}.csv.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"
    lines = gzip.decompress(raw).decode().splitlines()
    assert lines[0] == ",".join(COLUMNS)
    for line in lines[1:]:
        when, publish, author, article, change, added, removed = line.split(",")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", when)
        assert re.fullmatch(r"u\d{3}", author) and re.fullmatch(r"a\d{4}", article)
        assert change in {"add", "modify", "rename", "delete"}
        assert publish.isdigit() and added.isdigit() and removed.isdigit()
    assert "example.com" not in "\n".join(lines) and "page" not in "\n".join(lines)
    assert len(read_log(tmp_path / f"{s.site}.csv.gz")) == len(lines) - 1
