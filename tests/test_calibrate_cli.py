"""`python -m sim calibrate`: malformed logs refused in one line with nothing written, a git
repository extracted to the expected rows, and the summary and shape file of a real log."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from sim.__main__ import main
from sim.calibrate.gitlog import git_log_text
from sim.calibrate.logs import BUNDLED
from sim.calibrate.shape import load_shape

HEADER = "time,publish,author,article,change,lines_added,lines_removed\n"
GOOD = "2024-01-01T10:00:00Z,0,u001,a0001,add,5,0\n2024-01-02T10:00:00Z,1,u001,a0001,modify,1,1\n"


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("content", "line", "problem"),
    [
        (HEADER.replace(",author", "") + GOOD, "line 1", "header lacks column(s) author"),
        (HEADER + GOOD + "2024-13-02T10:00:00Z,2,u001,a0001,modify,1,1\n", "line 4", "time"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,2,u001,a0001,edit,1,1\n", "line 4", "'edit'"),
        (HEADER + "0001-01-01T00:00:00Z,0,u001,a0001,add,5,0\n", "line 2", "outside 1970"),
        (HEADER + GOOD + "9999-12-31T23:59:59Z,2,u001,a0001,modify,1,1\n", "line 4", "2100"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,0,u001,a0002,add,1,1\n", "line 4", "decrease"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,1,u001,a0002,add,1,1\n", "line 4", "one instant"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,2,u001,a0002,add,x,1\n", "line 4", "lines_added"),
        ("", "line 1", "empty file"),
        (HEADER, "line 2", "no rows"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,2,u001,a\0\x01,add,1,1\n", "line 4", "binary"),
        (HEADER + GOOD + "2024-01-03T10:00:00Z,2,u001,a\xff,add,1,1\n", "line 4", "not UTF-8"),
    ],
)
def test_a_malformed_log_gets_one_line_exit_2_and_no_file(
    tmp_path: Path, capsys, content: str, line: str, problem: str
) -> None:
    log = tmp_path / "bad.csv"
    log.write_bytes(content.encode("latin-1"))
    out = tmp_path / "shape.json"
    code, stdout, stderr = _run(["calibrate", str(log), "--out", str(out), "--boot", "5"], capsys)
    assert code == 2
    assert stdout == ""
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert f"bad.csv: {line}: " in stderr and problem in stderr, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_bad_flags_are_refused_with_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = _run(["calibrate"], capsys)
    assert code == 2 and "one of the two" in err
    code, _, err = _run(["calibrate", "--git", str(tmp_path)], capsys)
    assert code == 2 and "--path" in err
    code, _, err = _run(["calibrate", str(BUNDLED), "--boot", "1"], capsys)
    assert code == 2 and "--boot" in err


def _git(repo: Path, *args: str, when: int = 0) -> None:
    stamp = f"{1_700_000_000 + when} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Writer",
        "GIT_AUTHOR_EMAIL": f"w{(when // 60) % 2}@example.com",
        "GIT_COMMITTER_NAME": "Writer",
        "GIT_COMMITTER_EMAIL": "w@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit(repo: Path, when: int, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = repo / name
        if text is None:
            _git(repo, "rm", "-q", name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"commit {when}", when=when)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "help"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    body = "\n".join(f"line {i} of a long enough article body" for i in range(30)) + "\n"
    _commit(repo, 0, {"en/a.md": body, "en/b.md": body + "b\n", "README.txt": "x\n"})
    _commit(repo, 60, {"en/a.md": body + "more\n"})
    _commit(repo, 3600, {"en/c.md": "c\n", "en/a.md": body + "more\nagain\n", "de/a.md": "d\n"})
    _git(repo, "mv", "en/b.md", "en/b-renamed.md")
    _commit(repo, 7200, {})
    _commit(repo, 90000, {"en/c.md": None, "en/a.md": body})
    _commit(repo, 90100, {"notes.txt": "not an article\n"})
    return repo


def test_a_git_repository_is_extracted_to_the_expected_rows(repo: Path) -> None:
    lines = git_log_text(repo, "en/").splitlines()
    assert lines[0] == HEADER.strip()
    rows = [line.split(",") for line in lines[1:]]
    got = [(r[0], r[1], r[2], r[3], r[4]) for r in rows]
    t = ["2023-11-14T22:13:20Z", "2023-11-14T22:14:20Z", "2023-11-14T23:13:20Z"]
    t += ["2023-11-15T00:13:20Z", "2023-11-15T23:13:20Z"]
    assert got == [
        (t[0], "0", "u001", "a0001", "add"),
        (t[0], "0", "u001", "a0002", "add"),
        (t[1], "1", "u002", "a0001", "modify"),
        (t[2], "2", "u001", "a0001", "modify"),
        (t[2], "2", "u001", "a0003", "add"),
        (t[3], "3", "u001", "a0002", "rename"),
        (t[4], "4", "u001", "a0001", "modify"),
        (t[4], "4", "u001", "a0003", "delete"),
    ]
    assert rows[2][5:] == ["1", "0"]  # lines added and removed
    assert rows[7][5:] == ["0", "1"]


def test_calibrate_from_git_writes_the_shape_and_the_log(repo: Path, tmp_path, capsys) -> None:
    _commit(repo, 200_000, {"en/b-renamed.md": "changed\n"})
    _commit(repo, 200_600, {"en/a.md": "shorter\n", "en/b-renamed.md": "again\n"})
    out, log_out = tmp_path / "shape.json", tmp_path / "log.csv"
    argv = ["calibrate", "--git", str(repo), "--path", "en/", "--out", str(out)]
    code, stdout, err = _run([*argv, "--log-out", str(log_out), "--boot", "5"], capsys)
    assert code == 0, err
    assert "Edit popularity" in stdout and "Wrote the shape" in stdout
    assert load_shape(out).log_articles == 3
    assert log_out.read_text() == git_log_text(repo, "en/")


@pytest.fixture(scope="module")
def shared_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """One `calibrate` of the shared log with --map-figure, read by the two tests below: its
    text is the text a run without the figure prints, plus the figure's line (a second fit
    of the same log took a second)."""
    folder = tmp_path_factory.mktemp("shared")
    argv = ["calibrate", str(BUNDLED), "--out", str(folder / "shape.json"), "--boot", "4"]
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main([*argv, "--map-figure", str(folder / "map.png")])
    return folder, code, stdout.getvalue()


def test_calibrate_on_the_shared_log_prints_each_value_with_its_interval(
    shared_run: tuple[Path, int, str], capsys
) -> None:
    folder, code, stdout = shared_run
    out = folder / "shape.json"
    assert code == 0
    for needle in ("Zipf s = 0.57", "Goodness of fit", "Burstiness B", "Bulk publishes", "Mix:"):
        assert needle in stdout
    assert "Stale citations by age, from the log's own rows" in stdout
    assert "30 d: 25.9 %" in stdout  # results/map_logs.csv's Obsidian month, the same measure
    assert "  Against the atlas: your 1-day share is at the atlas's " in stdout
    shape = load_shape(out)
    assert shape.log_articles == 288 and len(shape.hour_weights) == 24
    code, stdout, _ = _run(
        ["calibrate", str(BUNDLED), "--out", str(out), "--boot", "4", "--json", "--force"], capsys
    )
    data = json.loads(stdout)
    assert data["shape"]["popularity_family"] == shape.popularity_family
    assert {r["quantity"] for r in data["fit"]} >= {"zipf s", "saves per day", "mix body"}
    month = [r for r in data["stale_by_age"] if r["age_s"] == 30 * 86400 and r["draw"] == "uniform"]
    assert len(month) == 1 and 0 < month[0]["measured"] < 1
    assert [p["age_s"] for p in data["atlas_percentiles"]] == [86400.0, 7 * 86400.0, 30 * 86400.0]


def test_map_figure_places_the_log_on_the_map_and_bad_names_change_nothing(
    shared_run: tuple[Path, int, str], tmp_path: Path, capsys
) -> None:
    folder, code, stdout = shared_run
    png = folder / "map.png"
    assert code == 0 and f"the map's figure in {png}" in stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    atlas_png = folder / "map-atlas.png"  # the log among the atlas's sites, beside the map's
    assert f"the atlas's in {atlas_png}" in stdout
    assert atlas_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    made = png.read_bytes()
    for flags, says in (
        (["--map-figure", str(tmp_path / "map.svg")], "expected a .png file name"),
        (["--map-figure", str(png)], "the file exists; pass --force"),
        (["--map-figure", str(tmp_path / "no" / "map.png")], "its folder does not exist"),
    ):
        code, _, err = _run(["calibrate", str(BUNDLED), "--out", str(tmp_path / "x.json"),
                             "--boot", "4", *flags], capsys)  # fmt: skip
        assert code == 2 and "--map-figure" in err and says in err, err
        assert "Traceback" not in err
    assert png.read_bytes() == made and not (tmp_path / "x.json").exists()


def test_a_badly_fitting_zipf_mandelbrot_is_warned_of_as_zipf_is(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared log's Zipf–Mandelbrot, the law its shape uses, has p = 0.02 over 200
    simulations (results/calibration_gof.csv): said as Zipf's p is, and warned of."""
    from dataclasses import replace

    from sim.calibrate.fit import Fit, fit
    from sim.cli import calibrate as cli

    def fitted(*args: object, **kwargs: object) -> Fit:
        f = fit(*args, **kwargs)  # type: ignore[arg-type]
        zipf, zm = (replace(g, p_value=p) for g, p in zip(f.gof, (0.5, 0.005), strict=True))
        shape = replace(f.shape, popularity_family="zipf_mandelbrot", popularity_params=(1, 2))
        return replace(f, shape=shape, gof=(zipf, zm))

    log = tmp_path / "log.csv"
    log.write_text(HEADER + GOOD + "2024-01-03T10:00:00Z,2,u001,a0002,modify,5,0\n")
    monkeypatch.setattr(cli, "fit", fitted)
    # 4 resamples and goodness-of-fit simulations, not 200: the p-values are set above
    argv = ["calibrate", str(log), "--out", str(tmp_path / "s.json"), "--boot", "4"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "p = 0.500 (not rejected at 5 %)" in out
    assert "p = 0.005 (fits badly at 5 %); AIC" in out and "Shape uses: Zipf–Mandelbrot" in out
    assert "warning: the edit popularity's law the shape uses, Zipf–Mandelbrot, fits badly" in err
    assert "p = 0.005 < 0.05" in err
