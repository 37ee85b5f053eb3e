"""A flag that sets a `Params` field is built from the field (sim/cli/paramflags.py): its
default is the field's, its help and limits the field's metadata, so no command writes one of
them again; and no command's flag declarations run past 80 lines."""

from __future__ import annotations

import argparse
import ast
import json
from dataclasses import fields
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from sim.cli import COMMANDS
from sim.cli.paramflags import default, flagged
from sim.params import Params

CLI = Path(__file__).resolve().parents[1] / "sim" / "cli"


def _actions() -> list[tuple[str, argparse.Action]]:
    sub = argparse.ArgumentParser().add_subparsers()
    return [(name, a) for name, (add, _) in COMMANDS.items() for a in add(sub)._actions]


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
    ]


def test_no_function_declaring_flags_is_over_80_lines() -> None:
    """add_parser, and every function that adds flags, reads in one screen."""
    long = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and (node.name == "add_parser" or _calls(node)):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > 80:
                    long.append(f"{path.name}:{node.name} {lines} lines")
    assert long == []


def test_every_params_flag_takes_the_fields_default_limits_and_help() -> None:
    """Each flag a field's metadata names, in every command that has it: the field's default
    in the flag's unit (or none, the command deciding, its help still stating the field's),
    the metadata's help, the field's choices or limits."""
    seen = set()
    by_flag = {flag.name: (name, flag) for name, (_, flag) in flagged().items()}
    for command, action in _actions():
        if not action.option_strings or action.option_strings[0] not in by_flag:
            continue
        name, flag = by_flag[action.option_strings[0]]
        seen.add(name)
        assert action.default in (default(name), None), (command, name)
        assert action.help is not None and action.help.startswith(flag.help.replace("%", "%%"))
        value = default(name)
        shown = {str: "{}", int: "{:,}", float: "{:g}"}[type(value)].format(value)
        assert f"default: {flag.shown or shown}" in action.help, (command, action.help)
        if flag.limits is None:
            assert action.choices == get_args(get_type_hints(Params)[name])
            assert value in action.choices
            continue
        assert action.type is not None
        lo, hi = flag.limits
        if command == "serve" and name == "n_articles":
            lo = 0  # an empty KB may be served; no day is simulated on it
        assert action.type(str(hi)) == hi and action.type(str(lo)) == lo
        for outside in (lo - 1e-3 * max(1, abs(lo)), hi * 1.001 + 1):
            with pytest.raises(argparse.ArgumentTypeError, match="expected"):
                action.type(str(outside))
    assert seen == set(flagged()), "a field's flag that no command has"


def test_each_fields_flag_default_lies_within_its_limits() -> None:
    """A default the flag itself would refuse is said in words instead (inf: the day's end)."""
    for name, (_, flag) in flagged().items():
        if flag.limits is not None and not flag.shown:
            lo, hi = flag.limits
            assert lo <= default(name) <= hi, name


def test_no_command_writes_a_params_default_or_flag_by_hand() -> None:
    """No add_argument in sim/cli declares a flag a field's metadata names, nor gives a
    literal default to a flag named after a field: they come from sim/cli/paramflags.py."""
    names = {flag.name for _, flag in flagged().values()}
    dests = {f.name.replace("_", "-") for f in fields(Params)}
    found = []
    for path in sorted(CLI.glob("*.py")):
        for call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            flags = [a.value for a in call.args if isinstance(a, ast.Constant)]
            literal = any(
                k.arg == "default" and isinstance(k.value, ast.Constant) for k in call.keywords
            )
            for text in flags:
                if text in names or (literal and str(text).lstrip("-") in dests):
                    found.append(f"{path.name}:{call.lineno} {text}")
    assert found == []


def test_advise_prices_the_fields_defaults_when_no_flag_is_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """advise with no flag: the day it prices is Params' own (its --articles and
    --saves-per-day default to none, the closed forms taking the fields')."""
    from sim.__main__ import main

    assert main(["advise", "--json"]) == 0
    inputs = json.loads(capsys.readouterr().out)["inputs"]
    p = Params()
    assert (inputs["articles"], inputs["saves_per_day"]) == (p.n_articles, p.n_saves)
    assert (inputs["questions_per_day"], inputs["day_hours"] * 3600) == (p.n_questions, p.day_s)
    assert (inputs["zipf_s"], inputs["citations_per_answer"]) == (
        p.zipf_s,
        p.citations_per_answer,
    )
