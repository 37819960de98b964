"""Tool-call repair: a call whose meaning is clear is mended, then checked against the tool's schema.

:func:`repair_call` takes the name and raw argument text a model wrote and the JSON schema of every
tool. It makes only repairs with one possible reading:

- the tool name, matched ignoring case, ``-``, ``_`` and camelCase (``Read-File`` → ``read_file``)
  when exactly one tool matches;
- the argument text: a code fence around it, text after a complete JSON object, a JSON object
  encoded inside a JSON string, ``null`` for no arguments;
- argument names (:mod:`circle.domain.argument_names`): another case or separator (``filePath`` →
  ``file_path``), a name models commonly send (``cmd`` → ``command``, ``old_str`` → ``old_string``),
  or a generic word for a required one (``path`` → ``file_path``), when exactly one parameter fits;
- argument values: one value where an array is wanted (``"a.py"`` → ``["a.py"]``, or a string
  holding a JSON array), ``"true"``/``"3"`` where a boolean or a number is wanted, a number where
  a string is wanted, a string holding a JSON object where an object is wanted.

What is left is validated (:mod:`circle.domain.schema_check`) with jsonschema (the dialect the
schema names, else Draft 2020-12). The result is :class:`Repaired` (with a note per repair) or
:class:`RepairError`, one line for the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from .argument_names import Schema, properties, repair_names, squash
from .schema_check import schema_problems


@dataclass(frozen=True, slots=True)
class Repaired:
    """A call that may run: the tool's real name, its arguments, and what was mended (if anything)."""

    name: str
    arguments: dict[str, JsonValue]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RepairError:
    """A call that must not run; ``message`` says why, in one line, for the model."""

    message: str


def repair_call(name: str, raw_arguments: str, tools: Mapping[str, Schema]) -> Repaired | RepairError:
    """Mend a tool call when its meaning is clear and check it against the tool's schema.

    Args:
        name: The tool name as the model wrote it.
        raw_arguments: The argument text as the model wrote it (JSON, or close to it).
        tools: Every tool's name and JSON schema of its arguments.
    """
    notes: list[str] = []
    resolved = _resolve_name(name, tools)
    if isinstance(resolved, RepairError):
        return resolved
    if resolved != name:
        notes.append(f"tool name {name} → {resolved}")
    arguments = _parse_arguments(raw_arguments, notes)
    if arguments is None:
        return RepairError(f"the arguments of {resolved} are not a JSON object: {raw_arguments[:200]!r}")
    schema = tools[resolved]
    arguments = repair_names(arguments, schema, notes)
    arguments = _repair_values(arguments, schema, notes)
    problems = schema_problems(arguments, schema)
    if problems:
        return RepairError(f"invalid arguments for {resolved}: " + "; ".join(problems))
    return Repaired(name=resolved, arguments=arguments, notes=tuple(notes))


def _resolve_name(name: str, tools: Mapping[str, Schema]) -> str | RepairError:
    if name in tools:
        return name
    matches = [tool for tool in tools if squash(tool) == squash(name)] if squash(name) else []
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(sorted(tools))
    if matches:
        return RepairError(f"unknown tool {name!r}: it could be {' or '.join(sorted(matches))}; say which")
    return RepairError(f"unknown tool {name!r}; the tools are: {known}")


# ---- the argument text ---------------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^```[\w-]*[ \t]*\n?")


def _parse_arguments(raw: str, notes: list[str]) -> dict[str, JsonValue] | None:
    if raw.strip() in ("", "null"):
        return {}
    value = _decode(raw, notes)
    if isinstance(value, str) and value.strip().startswith("{"):
        inner = _decode(value, notes)
        if isinstance(inner, dict):
            notes.append("decoded the JSON object inside a string")
            return inner
    return value if isinstance(value, dict) else None


def _decode(raw: str, notes: list[str]) -> JsonValue:
    """The JSON value of ``raw``, allowing a code fence and text after a complete object.

    Returns None when there is no value (which is also what ``null`` gives).
    """
    text = raw.strip()
    if not text:
        return None
    fence = _FENCE_OPEN.match(text)
    if fence is not None:
        text = text[fence.end() :].strip()
        notes.append("removed a code fence")
    try:
        value: JsonValue = json.loads(text)
        return value
    except (ValueError, RecursionError):
        pass
    if fence is not None and text.endswith("```"):
        try:
            value = json.loads(text[:-3])
            return value
        except (ValueError, RecursionError):
            pass
    if not text.startswith("{"):
        return None
    decoder = json.JSONDecoder()
    try:
        value, end = decoder.raw_decode(text)
    except (ValueError, RecursionError):
        return None
    rest = text[end:].strip()
    if fence is not None and rest.startswith("```"):
        rest = rest[3:].strip()
    if rest.startswith("{"):
        try:
            decoder.raw_decode(rest)
        except (ValueError, RecursionError):
            pass
        else:
            return None  # two objects: perhaps two calls run together; not ours to choose
    if rest:
        notes.append(f"ignored {rest[:30]!r} after the JSON object")
    return value if isinstance(value, dict) else None


# ---- argument values -----------------------------------------------------------------------------


def _deref(schema: Schema, root: Schema) -> Schema:
    for _ in range(10):
        ref = schema.get("$ref")
        if not (isinstance(ref, str) and ref.startswith("#/")):
            return schema
        node: JsonValue = dict(root)
        for part in ref[2:].split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return schema
        schema = node
    return schema


def _json_type(value: JsonValue) -> str:
    match value:
        case bool():
            return "boolean"
        case int():
            return "integer"
        case float():
            return "number"
        case str():
            return "string"
        case list():
            return "array"
        case dict():
            return "object"
    return "null"


def _types(schema: Schema, root: Schema) -> set[str] | None:
    """The JSON types ``schema`` admits, or None when it does not say (anything goes)."""
    schema = _deref(schema, root)
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options and (key != "allOf" or len(options) == 1):
            found: set[str] = set()
            for option in options:
                sub = _types(option, root) if isinstance(option, dict) else None
                if sub is None:
                    return None
                found |= sub
            return found
    values = schema.get("enum")
    if isinstance(values, list) and values:
        return {_json_type(v) for v in values}
    return None


def _fits(value: JsonValue, types: set[str]) -> bool:
    match value:
        case bool():
            return "boolean" in types
        case int():
            return bool(types & {"integer", "number"})
        case float():
            return "number" in types or ("integer" in types and value.is_integer())
        case str():
            return "string" in types
        case list():
            return "array" in types
        case dict():
            return "object" in types
        case None:
            return "null" in types
    return False


def _loads(text: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value


def _coerce(value: JsonValue, types: set[str]) -> tuple[JsonValue] | None:
    """The one reading of ``value`` that fits ``types``, if there is one."""
    if isinstance(value, str):
        text = value.strip()
        parsed = _loads(text) if text.startswith(("[", "{")) else None
        if "array" in types and isinstance(parsed, list):
            return (parsed,)
        if "object" in types and isinstance(parsed, dict):
            return (parsed,)
        if "boolean" in types and text.lower() in ("true", "false"):
            return (text.lower() == "true",)
        if types & {"integer", "number"} and re.fullmatch(r"[+-]?\d+", text):
            return (int(text),)
        if "number" in types and re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
            return (float(text),)
    if "string" in types and isinstance(value, int | float) and not isinstance(value, bool):
        return (str(value),)
    if "array" in types and value is not None and not isinstance(value, list):
        return ([value],)
    return None


def _repair_values(arguments: dict[str, JsonValue], schema: Schema, notes: list[str]) -> dict[str, JsonValue]:
    props = properties(schema)
    fixed = dict(arguments)
    for key, value in arguments.items():
        prop = props.get(key)
        types = _types(prop, schema) if isinstance(prop, dict) else None
        if types is None or _fits(value, types):
            continue
        coerced = _coerce(value, types)
        if coerced is not None:
            fixed[key] = coerced[0]
            notes.append(f"{key}: {_short(value)} → {_short(coerced[0])}")
    return fixed


def _short(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["RepairError", "Repaired", "repair_call"]
