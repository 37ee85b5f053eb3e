"""Prose lives in templates (sim/report/templates): no f-string, and no block of implicitly
concatenated strings, in sim/ runs over 15 lines. A docstring or a single literal (an SQL
schema, say) is not prose put together in code, so only those two shapes are counted."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import sim

LIMIT = 15
SIM = Path(sim.__file__).parent


def _pieces(segment: str) -> int:
    """How many string literals a source segment is made of (inside brackets, so a block's
    later lines may keep their indent)."""
    tokens = tokenize.generate_tokens(io.StringIO(f"({segment})").readline)
    return sum(t.type == tokenize.STRING for t in tokens)


def long_prose(source: str, limit: int = LIMIT) -> list[tuple[int, int]]:
    """(first line, lines) of each outermost f-string or implicit concatenation of strings
    in ``source`` over ``limit`` lines."""
    found: list[tuple[int, int]] = []

    def visit(node: ast.AST) -> None:
        lines = (getattr(node, "end_lineno", None) or 0) - getattr(node, "lineno", 0) + 1
        if lines > limit and (
            isinstance(node, ast.JoinedStr)
            or (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _pieces(ast.get_source_segment(source, node) or "") > 1
            )
        ):
            found.append((node.lineno, lines))
            return  # an f-string's inner f-strings are part of it
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def test_no_prose_f_string_or_string_block_in_sim_runs_over_15_lines() -> None:
    offenders = [
        f"{path.relative_to(SIM.parent)}:{line} ({lines} lines)"
        for path in sorted(SIM.rglob("*.py"))
        for line, lines in long_prose(path.read_text())
    ]
    assert not offenders, (
        f"prose over {LIMIT} lines in code, not in sim/report/templates: {', '.join(offenders)}"
    )


def test_the_scan_finds_a_long_f_string_and_string_block_not_a_docstring_or_one_literal() -> None:
    def lines(n: int, end: str = "") -> str:
        return "\n".join(f"line {i}{end}" for i in range(n))

    source = "\n".join(
        [
            f'"""{lines(20)}"""',  # a docstring: 20 lines
            f'SCHEMA = """{lines(20)}"""',  # one literal: lines 21–40
            f'at_limit = f"""{lines(15, " {SCHEMA}")}"""',  # 41–55
            f'over = f"""{lines(16, " {SCHEMA}")}"""',  # 56–71
            "block = (\n" + "\n".join(f'    "line {i} "' for i in range(16)) + "\n)",  # 72–89
        ]
    )
    assert long_prose(source) == [(56, 16), (73, 16)]
