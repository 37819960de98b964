"""The check of a tool call's arguments against its JSON schema (see :mod:`circle.domain.tool_repair`).

:func:`plainly_valid` gives a quick verdict by the common keywords alone, so that jsonschema loads
and runs only for calls that are wrong or schemas that are unusual; :func:`schema_problems` gives the
problems jsonschema finds, each in a few words for the model.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol

from pydantic import JsonValue

MAX_PROBLEMS = 5


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


def schema_problems(arguments: dict[str, JsonValue], schema: Mapping[str, JsonValue]) -> list[str]:
    """What is wrong with ``arguments`` by ``schema`` (at most :data:`MAX_PROBLEMS`), none: they fit."""
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
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    unknown = [key for key in arguments if props and key not in props]
    if problems and unknown:
        plural = "s" if len(unknown) > 1 else ""
        known = ", ".join(props)
        problems.append(f"unknown argument{plural} {', '.join(unknown)} (the arguments are: {known})")
    return problems


__all__ = ["MAX_PROBLEMS", "plainly_valid", "schema_problems"]
