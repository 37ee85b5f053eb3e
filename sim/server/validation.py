"""Argument checking against the tools' JSON Schemas, with errors that point somewhere.

The schemas are ``tools.json`` exactly as the real server lists them. Checking
is strict where a strict client would be: a JSON boolean is not an integer, and
neither is 5.0 (jsonschema alone would accept 5.0). Unknown argument names are
refused too, so a misspelt ``limt`` is not silently ignored.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from sim.server.describe import describe_name, describe_value, is_unicode_text

UNCHECKED_FORMAT_LIBRARIES = (
    "rfc3987_syntax",
    "rfc3987",
    "rfc3986_validator",
    "isoduration",
    "webcolors",
    "fqdn",
    "idna",
    "jsonpointer",
    "uri_template",
)
"""The libraries of the format checkers this server never uses: tools.json's only format is
date-time (rfc3339_validator, kept)."""


def _import_jsonschema_without_unused_formats() -> None:
    """Import jsonschema without the format checkers we never use.

    jsonschema registers every format checker whose library is installed, and imports it
    to do so; with the dev tools most are. Compiling rfc3987-syntax's IRI grammar alone took
    over a second of every fresh process (the stdio server's cold start), and the others
    (arrow under isoduration among them) about 90 ms more. Hidden for this one import only.
    """
    if "jsonschema" in sys.modules:
        return
    hidden = [m for m in UNCHECKED_FORMAT_LIBRARIES if m not in sys.modules]
    for name in hidden:
        # None in sys.modules blocks an import (documented); typeshed types the values as modules
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import jsonschema  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


_import_jsonschema_without_unused_formats()
from jsonschema import Draft202012Validator, ValidationError, validators  # noqa: E402

TOOLS: list[dict[str, Any]] = json.loads(
    resources.files("sim.server").joinpath("tools.json").read_text(encoding="utf-8")
)["tools"]
TOOL_NAMES: tuple[str, ...] = tuple(t["name"] for t in TOOLS)


# jsonschema words its errors with repr(instance), which fails on what a hostile client
# sends (an integer of 5,000 digits, a list nested 5,000 deep). These keywords decide the
# same way but carry no wording: the refusal's words are this module's own.
def _type(validator: Any, types: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if not any(
        validator.is_type(instance, t) for t in ([types] if isinstance(types, str) else types)
    ):
        yield ValidationError("type")


def _minimum(validator: Any, bound: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "number") and instance < bound:
        yield ValidationError("minimum")


def _maximum(validator: Any, bound: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "number") and instance > bound:
        yield ValidationError("maximum")


_StrictValidator = validators.extend(
    Draft202012Validator,
    validators={"type": _type, "minimum": _minimum, "maximum": _maximum},
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


def _advice(tool: str, name: str, allowed: str, value: Any) -> str:
    hint = _HINTS.get((tool, name), f"Send {name} as {allowed}.")
    if isinstance(value, float) and value.is_integer():
        hint += f" Write whole numbers without a decimal point ({int(value)})."
    return hint


# Each tool's schema is an object of independent properties, so arguments are valid iff
# every required name is present, no other name is sent (checked here) and each value is
# valid under its own property's schema. Each value is then checked alone, and the ones
# found valid are remembered: a client sends the same ids, queries and versions again and
# again (the checker re-reads its citations every hour). A refusal is still worded from
# jsonschema's pass over the whole object, as before.
for _tool in TOOLS:
    if set(_tool["inputSchema"]) - {"type", "properties", "required"}:
        raise RuntimeError(
            f"{_tool['name']}: its schema has a keyword over several properties; "
            "check_arguments checks each property alone and must learn it first"
        )
_PROPERTY_VALIDATORS = {
    (tool, name): _StrictValidator(sub, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for tool, schema in _SCHEMAS.items()
    for name, sub in schema["properties"].items()
}
_TYPE_ONLY = {key for key, v in _PROPERTY_VALIDATORS.items() if set(v.schema) == {"type"}}
"""Properties whose schema is a type alone: their values are valid by type, whatever they say."""
VALID_MEMO_SIZE = 16_384
VALID_MEMO_STR_CHARS = 256
_valid: set[tuple[object, ...]] = set()


def _value_valid(tool: str, name: str, value: Any) -> bool:
    """Value alone under its property's schema (remembered when found valid)."""
    kind = type(value)
    key: tuple[object, ...] | None = None
    if (tool, name) in _TYPE_ONLY:
        key = (tool, name, kind)  # the type decides alone
    elif kind in (str, int, float) and not (kind is str and len(value) > VALID_MEMO_STR_CHARS):
        key = (tool, name, kind, value)  # the type tells 1 from 1.0 and True from 1
    if key is not None and key in _valid:
        return True
    if not _PROPERTY_VALIDATORS[tool, name].is_valid(value):
        return False
    if key is not None:
        if len(_valid) >= VALID_MEMO_SIZE:
            _valid.clear()
        _valid.add(key)
    return True


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
            shown = describe_name(name)
            return ArgumentProblem(
                "unknown_argument",
                shown,
                f"one of: {names}",
                describe_value(arguments[name]),
                f"Remove {shown}; {tool} takes only {names}.",
            )
    if all(_value_valid(tool, name, value) for name, value in arguments.items()):
        return _text_problem(arguments)
    return _schema_problem(tool, arguments)


def _schema_problem(tool: str, arguments: dict[str, Any]) -> ArgumentProblem:
    """jsonschema's first error over the whole object, worded for the client."""
    props: dict[str, Any] = _SCHEMAS[tool]["properties"]
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
    raise AssertionError(f"{tool}: a value failed its property's schema, the object passed")


def _text_problem(arguments: dict[str, Any]) -> ArgumentProblem | None:
    for name, value in arguments.items():
        if isinstance(value, str) and not is_unicode_text(value):
            return ArgumentProblem(
                "invalid_argument",
                name,
                "Unicode text (a lone surrogate such as \\ud800 is not a character)",
                describe_value(value),
                f"Send {name} as UTF-8 text; pair each surrogate escape or remove it.",
            )
    return None
