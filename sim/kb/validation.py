"""Argument checking against the tools' JSON Schemas, with errors that point somewhere.

The schemas are ``tools.json`` exactly as the real server lists them. Checking
is strict where a strict client would be: a JSON boolean is not an integer, and
neither is 5.0 (jsonschema alone would accept 5.0). Unknown argument names are
refused too, so a misspelt ``limt`` is not silently ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, validators

TOOLS: list[dict[str, Any]] = json.loads(
    resources.files("sim.kb").joinpath("tools.json").read_text(encoding="utf-8")
)["tools"]
TOOL_NAMES: tuple[str, ...] = tuple(t["name"] for t in TOOLS)

_StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, x: isinstance(x, int) and not isinstance(x, bool)
    ),
)
_VALIDATORS = {
    t["name"]: _StrictValidator(
        t["inputSchema"], format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    for t in TOOLS
}
_SCHEMAS = {t["name"]: t["inputSchema"] for t in TOOLS}

EXAMPLE_VERSION = "2026-11-08T09:00:00.000000Z"

# What to do instead, for the arguments where the generic advice is not enough.
_HINTS: dict[tuple[str, str], str] = {
    ("search_knowledge_base", "query"): (
        "Send 2 to 200 characters of search words; cut a long question down to its key terms."
    ),
    ("search_knowledge_base", "limit"): (
        "Send an integer from 1 to 20, or leave limit out for the default of 5."
    ),
    ("poll_resource_events", "after_sequence"): (
        "Send 0 to read from the start, or the next_after_sequence of your last poll."
    ),
    ("poll_resource_events", "limit"): (
        "Send an integer from 1 to 100, or leave limit out for the default of 100; "
        "page on with next_after_sequence."
    ),
    ("edit_knowledge_article", "expected_version"): (
        "Send the updated_at string exactly as read_knowledge_article returned it."
    ),
}


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    code: str
    argument: str
    allowed: str
    received: str
    what_to_do: str


def describe_allowed(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if kind == "integer":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is not None and hi is not None:
            return f"an integer from {lo} to {hi}"
        return f"an integer of {lo} or more" if lo is not None else "an integer"
    if schema.get("format") == "date-time":
        return f"an RFC 3339 date-time with a UTC offset, such as {EXAMPLE_VERSION}"
    lo, hi = schema.get("minLength"), schema.get("maxLength")
    if lo is not None and hi is not None:
        return f"a string of {lo} to {hi} characters"
    return "a string"


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, float):
        return f"{value!r} (a number with a decimal point)"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if len(value) <= 40:
            return f"{json.dumps(value, ensure_ascii=False)} ({len(value)} characters)"
        return f"a string of {len(value)} characters"
    return f"a JSON {type(value).__name__.replace('dict', 'object').replace('list', 'array')}"


def _advice(tool: str, name: str, allowed: str, value: Any) -> str:
    hint = _HINTS.get((tool, name), f"Send {name} as {allowed}.")
    if isinstance(value, float) and value.is_integer():
        hint += f" Write whole numbers without a decimal point ({int(value)})."
    return hint


def check_arguments(tool: str, arguments: dict[str, Any]) -> ArgumentProblem | None:
    """The first problem with the arguments, or None; required names are checked first."""
    schema = _SCHEMAS[tool]
    props: dict[str, Any] = schema["properties"]
    for name in schema["required"]:
        if name not in arguments:
            allowed = describe_allowed(props[name])
            return ArgumentProblem(
                "missing_argument",
                name,
                allowed,
                "nothing",
                f"{name} is required by {tool}. Send it as {allowed}.",
            )
    for name in arguments:
        if name not in props:
            names = ", ".join(props)
            return ArgumentProblem(
                "unknown_argument",
                name,
                f"one of: {names}",
                describe_value(arguments[name]),
                f"Remove {name}; {tool} takes only {names}.",
            )
    for error in _VALIDATORS[tool].iter_errors(arguments):
        name = str(error.path[0]) if error.path else ""
        value = arguments.get(name)
        allowed = describe_allowed(props.get(name, {}))
        return ArgumentProblem(
            "invalid_argument",
            name,
            allowed,
            describe_value(value),
            _advice(tool, name, allowed, value),
        )
    return None
