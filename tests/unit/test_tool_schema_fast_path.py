"""The quick schema check agrees with jsonschema wherever it gives a verdict."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circle.application.tools import builtin_tools
from circle.domain.schema_check import plainly_valid

SCHEMAS = {name: tool.spec().parameters for name, tool in builtin_tools().items()}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 700)
    | st.floats(-10, 10, allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _arguments_for(schema: dict[str, object]) -> st.SearchStrategy[dict[str, object]]:
    names = list(schema.get("properties", {}))  # type: ignore[arg-type]
    keys = st.sampled_from(names) if names else st.text(max_size=5)
    return st.dictionaries(keys | st.text(max_size=4), json_values, max_size=5)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_a_verdict_is_the_one_jsonschema_gives(name: str, data: st.DataObject) -> None:
    schema = SCHEMAS[name]
    arguments = data.draw(_arguments_for(schema))  # type: ignore[arg-type]
    verdict = plainly_valid(arguments, schema)
    if verdict is None:
        return
    valid = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    assert verdict == valid, (arguments, schema)


def test_every_built_in_schema_gets_a_verdict_for_a_proper_call() -> None:
    assert plainly_valid({"command": "ls"}, SCHEMAS["execute"]) is True
    assert plainly_valid({"command": "ls", "timeout": 0}, SCHEMAS["execute"]) is False
    assert plainly_valid({"file_path": "a.txt"}, SCHEMAS["read_file"]) is True
    assert plainly_valid({}, SCHEMAS["read_file"]) is False


def test_unknown_keywords_leave_the_verdict_to_jsonschema() -> None:
    assert plainly_valid("abc", {"type": "string", "pattern": "^a"}) is None
    assert plainly_valid({"a": 1}, {"$ref": "https://example.com/schema"}) is None
    assert plainly_valid(1, {"oneOf": [{"type": "integer"}]}) is None
