"""The release is one version everywhere a user looks for it: pyproject.toml, CITATION.cff
(dated), the CHANGELOG's newest dated heading (an Unreleased heading above it), the README;
and a result names the version that made it (results/environment.json)."""

from __future__ import annotations

import datetime
import json
import re
import tomllib
from importlib import metadata
from pathlib import Path

import yaml

from sim import environment

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def _releases() -> list[tuple[str, str]]:
    return RELEASE.findall((ROOT / "CHANGELOG.md").read_text())


def test_the_version_is_the_changelogs_newest_release_with_its_date_in_the_citation() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    newest, date = _releases()[0]
    assert newest == VERSION
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{newest}]")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(citation["version"]) == VERSION
    released = citation["date-released"]
    assert datetime.date.fromisoformat(str(released)) == datetime.date.fromisoformat(date)
    assert f"The current release is {VERSION} ({date})" in (ROOT / "README.md").read_text()


def test_a_result_names_the_released_version_that_made_it() -> None:
    """environment.json records the installed package's version; the committed one names a
    release of the CHANGELOG."""
    assert environment.describe()["version"] == metadata.version(environment.DISTRIBUTION)
    committed = json.loads((ROOT / "results" / environment.FILE).read_text())
    assert committed["version"] in {v for v, _ in _releases()}
    assert "version" not in environment.COMPARED  # a later release may give the same figures
