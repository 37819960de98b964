"""A tool's arguments schema as it is sent: pydantic's, less what tells a model nothing."""

from __future__ import annotations

import json

import jsonschema
from pydantic import BaseModel, ConfigDict, Field

from circle.application.tools import builtin_tools
from circle.application.tools._schema import wire_schema


class Item(BaseModel):
    """One item."""

    model_config = ConfigDict(extra="forbid")
    text: str


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="A name.")
    note: str | None = Field(None, description="Optional.")
    tags: tuple[str, ...] | None = Field(None, min_length=2)
    items: list[Item] = []


def test_an_optional_field_is_one_type_list_not_an_any_of() -> None:
    schema = wire_schema(Args.model_json_schema())

    note = {"type": ["string", "null"], "default": None, "description": "Optional."}
    assert schema["properties"]["note"] == note
    assert schema["properties"]["tags"]["type"] == ["array", "null"]
    assert schema["properties"]["tags"]["minItems"] == 2


def test_titles_and_closed_objects_are_left_out_but_a_property_named_title_stays() -> None:
    class Titled(BaseModel):
        title: str

    text = json.dumps(wire_schema(Args.model_json_schema()))
    titled = wire_schema(Titled.model_json_schema())

    assert '"title"' not in text and "additionalProperties" not in text
    assert list(titled["properties"]) == ["title"]


def test_the_wire_schema_accepts_and_refuses_what_the_full_one_does() -> None:
    full, wire = Args.model_json_schema(), wire_schema(Args.model_json_schema())
    cases: list[dict[str, object]] = [
        {"name": "a"},
        {"name": "a", "note": None, "tags": None},
        {"name": "a", "note": "n", "tags": ["x", "y"], "items": [{"text": "t"}]},
        {"name": 1},
        {"note": "n"},
        {"name": "a", "note": 3},
        {"name": "a", "tags": ["only one"]},
    ]

    for case in cases:
        assert jsonschema.Draft202012Validator(wire).is_valid(case) == jsonschema.Draft202012Validator(
            full
        ).is_valid(case), case


def test_every_builtin_schema_is_a_valid_json_schema_without_any_of_null() -> None:
    for name, tool in builtin_tools().items():
        parameters = tool.spec().parameters
        jsonschema.Draft202012Validator.check_schema(parameters)
        assert '{"type": "null"}' not in json.dumps(parameters), name
