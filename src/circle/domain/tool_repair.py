"""Tool-call repair: a call whose meaning is clear is mended, then checked against the tool's schema.

:func:`repair_call` takes the name and raw argument text a model wrote and the JSON schema of every
tool. It makes only repairs with one possible reading:

- the tool name, matched ignoring case, ``-``, ``_`` and camelCase (``Read-File`` → ``read_file``)
  when exactly one tool matches;
- the argument text: a code fence around it, text after a complete JSON object, a JSON object
  encoded inside a JSON string, ``null`` for no arguments;
- argument names: spelled with another case or separator (``filePath`` → ``file_path``), or a
  generic name for the one required argument that is missing and ends or starts with it (``path``
  → ``file_path`` when ``path`` is not an argument of its own);
- argument values: one value where an array is wanted (``"a.py"`` → ``["a.py"]``, or a string
  holding a JSON array), ``"true"``/``"3"`` where a boolean or a number is wanted, a number where
  a string is wanted, a string holding a JSON object where an object is wanted.

What is left is validated with jsonschema (the dialect the schema names, else Draft 2020-12). The
result is :class:`Repaired` (with a note per repair) or :class:`RepairError`, one line for the model.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pydantic import JsonValue

Schema = Mapping[str, JsonValue]
MAX_PROBLEMS = 5


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
    arguments = _repair_names(arguments, schema, notes)
    arguments = _repair_values(arguments, schema, notes)
    problems = _problems(arguments, schema)
    if problems:
        return RepairError(f"invalid arguments for {resolved}: " + "; ".join(problems))
    return Repaired(name=resolved, arguments=arguments, notes=tuple(notes))


def _squash(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _segments(name: str) -> list[str]:
    """``file_path``, ``filePath`` and ``file-path`` → ``["file", "path"]``."""
    return [s.lower() for s in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)]


def _resolve_name(name: str, tools: Mapping[str, Schema]) -> str | RepairError:
    if name in tools:
        return name
    matches = [tool for tool in tools if _squash(tool) == _squash(name)] if _squash(name) else []
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


# ---- argument names ------------------------------------------------------------------------------


def _properties(schema: Schema) -> Mapping[str, JsonValue]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _required(schema: Schema) -> list[str]:
    required = schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _repair_names(arguments: dict[str, JsonValue], schema: Schema, notes: list[str]) -> dict[str, JsonValue]:
    props = _properties(schema)
    if not props:
        return arguments
    fixed = dict(arguments)

    def rename(key: str, target: str) -> None:
        fixed[target] = fixed.pop(key)
        notes.append(f"argument {key} → {target}")

    for key in [k for k in fixed if k not in props]:
        spelled = [p for p in props if _squash(p) == _squash(key) and p not in fixed]
        if len(spelled) == 1:
            rename(key, spelled[0])
    for key in [k for k in fixed if k not in props]:
        if len(segments := _segments(key)) != 1:
            continue
        missing = [p for p in _required(schema) if p not in fixed and _generic_for(segments[0], p)]
        if len(missing) == 1:
            rename(key, missing[0])
    return fixed


def _generic_for(word: str, name: str) -> bool:
    """``path`` is a generic name for ``file_path``; ``file`` too; ``name`` is not for ``file_path``."""
    segments = _segments(name)
    return len(segments) > 1 and word in (segments[0], segments[-1])


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
    props = _properties(schema)
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


# ---- validation ----------------------------------------------------------------------------------


class _ValidationError(Protocol):
    message: str
    absolute_path: Sequence[str | int]


class _Validator(Protocol):
    def iter_errors(self, instance: object) -> Iterator[_ValidationError]: ...


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> _Validator | None:
    import jsonschema  # type: ignore[import-untyped]  # loaded on the first tool call, not at start

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError:
        return None  # a tool with a broken schema checks its own arguments
    validator: _Validator = cls(schema)
    return validator


_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$defs", "definitions"})
_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def plainly_valid(value: object, schema: object, root: Mapping[str, object] | None = None) -> bool | None:
    """True when ``value`` meets ``schema`` by the common keywords alone (type, properties,
    required, additionalProperties, items, enum, anyOf, local $ref and simple bounds), False when
    it plainly does not, None when the schema uses anything else. A quick check before jsonschema,
    which then only has to run (and load) for calls that are wrong or schemas that are unusual."""
    if not isinstance(schema, dict):
        return None if schema is not True else True
    root = schema if root is None else root
    verdict = True
    for key, rule in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "$ref":
            target = _local_ref(root, rule)
            if target is None:
                return None
            found = plainly_valid(value, target, root)
        elif key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not all(isinstance(n, str) and n in _TYPES for n in names):
                return None
            found = any(_TYPES[str(n)](value) for n in names)
        elif key == "enum":
            found = isinstance(rule, list) and value in rule
        elif key == "anyOf":
            if not isinstance(rule, list):
                return None
            branches = [plainly_valid(value, branch, root) for branch in rule]
            found = True if any(b is True for b in branches) else None if None in branches else False
        elif key in ("properties", "required", "additionalProperties"):
            found = _object_rule(key, rule, value, schema, root)
        elif key in ("items", "minItems", "maxItems"):
            found = _array_rule(key, rule, value, root)
        elif key in ("minimum", "maximum", "minLength"):
            found = _bound(key, rule, value)
        else:
            return None
        if found is None:
            return None
        verdict = verdict and found
    return verdict


def _local_ref(root: Mapping[str, object], ref: object) -> object | None:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    node: object = root
    for step in ref[2:].split("/"):
        if not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


def _object_rule(
    key: str, rule: object, value: object, schema: Mapping[str, object], root: Mapping[str, object]
) -> bool | None:
    if not isinstance(value, dict):
        return True  # these keywords say nothing of other types
    if key == "required":
        return isinstance(rule, list) and all(name in value for name in rule)
    if key == "properties":
        if not isinstance(rule, dict):
            return None
        checks = [plainly_valid(value[name], sub, root) for name, sub in rule.items() if name in value]
        return None if None in checks else all(checks)
    props = schema.get("properties", {})
    extra = [name for name in value if not (isinstance(props, dict) and name in props)]
    if rule is False:
        return not extra
    if rule is True or not extra:
        return True
    checks = [plainly_valid(value[name], rule, root) for name in extra]
    return None if None in checks else all(checks)


def _array_rule(key: str, rule: object, value: object, root: Mapping[str, object]) -> bool | None:
    if not isinstance(value, list):
        return True
    if key == "items":
        checks = [plainly_valid(item, rule, root) for item in value]
        return None if None in checks else all(checks)
    if not isinstance(rule, int):
        return None
    return len(value) >= rule if key == "minItems" else len(value) <= rule


def _bound(key: str, rule: object, value: object) -> bool | None:
    if not isinstance(rule, int | float) or isinstance(rule, bool):
        return None
    if key == "minLength":
        return not isinstance(value, str) or len(value) >= rule
    if not isinstance(value, int | float) or isinstance(value, bool):
        return True
    return value >= rule if key == "minimum" else value <= rule


def _problems(arguments: dict[str, JsonValue], schema: Schema) -> list[str]:
    if plainly_valid(arguments, schema) is True:
        return []
    from referencing.exceptions import Unresolvable

    validator = _validator(json.dumps(schema, sort_keys=True, default=dict))
    if validator is None:
        return []
    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    except Unresolvable:
        return []
    problems = []
    for error in errors[:MAX_PROBLEMS]:
        where = ".".join(str(p) for p in error.absolute_path)
        message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
        problems.append(f"{where}: {message}" if where else message)
    props = _properties(schema)
    unknown = [key for key in arguments if props and key not in props]
    if problems and unknown:
        plural = "s" if len(unknown) > 1 else ""
        known = ", ".join(props)
        problems.append(f"unknown argument{plural} {', '.join(unknown)} (the arguments are: {known})")
    return problems


__all__ = ["RepairError", "Repaired", "repair_call"]
