"""A tool's arguments schema as it goes to the model: pydantic's, less what tells a model nothing.

Every request carries every tool's schema, so each byte left out here is saved on every round:

- ``title`` (pydantic derives it from the field's name);
- ``additionalProperties: false`` (the arguments model refuses unknown names itself, and a
  misnamed argument is repaired before the call is checked);
- ``anyOf: [X, {"type": "null"}]`` of an optional field becomes X with ``type: [X's type,
  "null"]``, which accepts and refuses the same values (X's other keywords apply to X's type
  only).
"""

from __future__ import annotations

from pydantic import JsonValue

_NULL: dict[str, JsonValue] = {"type": "null"}


def wire_schema(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """``schema`` (a pydantic JSON schema) with titles, closed-object marks and nullable
    ``anyOf`` pairs written the short way; the values it accepts are the same."""
    cleaned: dict[str, JsonValue] = {}
    for key, value in schema.items():
        if key == "title" or (key == "additionalProperties" and value is False):
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {
                name: wire_schema(prop) if isinstance(prop, dict) else prop for name, prop in value.items()
            }
        elif isinstance(value, dict):
            cleaned[key] = wire_schema(value)
        elif isinstance(value, list):
            cleaned[key] = [wire_schema(item) if isinstance(item, dict) else item for item in value]
        else:
            cleaned[key] = value
    return _nullable(cleaned)


def _nullable(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or _NULL not in branches:
        return schema
    other = branches[0] if branches[1] == _NULL else branches[1]
    if not isinstance(other, dict) or not isinstance(other.get("type"), str) or set(other) & set(schema):
        return schema
    rest = {key: value for key, value in schema.items() if key != "anyOf"}
    return {**other, "type": [other["type"], "null"], **rest}


__all__ = ["wire_schema"]
