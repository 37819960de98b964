"""Tool-call repair: clear mistakes are mended and the result is checked against the tool's schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import pytest
from pydantic import BaseModel, Field, JsonValue

from circle.domain.messages import ToolCallPart
from circle.domain.tool_repair import Repaired, RepairError, repair_call


class ReadFile(BaseModel):
    file_path: str
    offset: int = Field(1, ge=1)
    limit: int = Field(2000, ge=1, le=10000)


class Grep(BaseModel):
    pattern: str
    path: str = "."
    glob: str | None = None
    output_mode: Literal["content", "files_with_matches", "count"] = "files_with_matches"
    case_insensitive: bool = False
    context: int = Field(0, ge=0, le=20)


class Glob(BaseModel):
    pattern: str
    path: str = "."


class EditFile(BaseModel):
    file_path: str
    old_string: str
    new_string: str
    replace_all: bool = False


class Edit(BaseModel):
    old: str
    new: str


class MultiEdit(BaseModel):
    file_path: str
    edits: list[Edit]


class Stat(BaseModel):
    paths: list[str]
    depth: float = 1.0


class Copy(BaseModel):
    src_path: str
    dst_path: str


class Ls(BaseModel):
    path: str = "."


def schema(model: type[BaseModel]) -> dict[str, JsonValue]:
    return model.model_json_schema()


TOOLS: dict[str, dict[str, JsonValue]] = {
    "read_file": schema(ReadFile),
    "grep": schema(Grep),
    "glob": schema(Glob),
    "edit_file": schema(EditFile),
    "multi_edit": schema(MultiEdit),
    "stat": schema(Stat),
    "copy": schema(Copy),
    "ls": schema(Ls),
    "strict": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "additionalProperties": False,
    },
    "broken": {"type": "object", "properties": {"x": {"type": "no-such-type"}}},
}


@dataclass(frozen=True)
class Fixed:
    """A call that is repaired (or already right): the expected name, arguments and a note."""

    name: str
    raw: str
    tool: str
    arguments: dict[str, JsonValue]
    note: str | None = None


@dataclass(frozen=True)
class Refused:
    """A call that must not run: the expected words of the error."""

    name: str
    raw: str
    error: str


def args(**values: JsonValue) -> str:
    return json.dumps(values)


FIXED = [
    Fixed("read_file", args(file_path="a.py"), "read_file", {"file_path": "a.py"}),
    Fixed("Read_File", args(file_path="a.py"), "read_file", {"file_path": "a.py"}, "tool name Read_File"),
    Fixed("read-file", args(file_path="a.py"), "read_file", {"file_path": "a.py"}, "→ read_file"),
    Fixed("readFile", args(file_path="a.py"), "read_file", {"file_path": "a.py"}, "→ read_file"),
    Fixed("GREP", args(pattern="x"), "grep", {"pattern": "x"}, "tool name GREP → grep"),
    Fixed(
        "read_file", '```json\n{"file_path": "a.py"}\n```', "read_file", {"file_path": "a.py"}, "code fence"
    ),
    Fixed(
        "read_file",
        '```\n{"file_path": "a.py"}\n```\nHope this helps!',
        "read_file",
        {"file_path": "a.py"},
        "after the JSON object",
    ),
    Fixed(
        "read_file", '{"file_path": "a.py"}\n</tool_call>', "read_file", {"file_path": "a.py"}, "</tool_call>"
    ),
    Fixed("read_file", '{"file_path": "a.py"}}', "read_file", {"file_path": "a.py"}, "'}'"),
    Fixed(
        "read_file",
        json.dumps(json.dumps({"file_path": "a.py"})),
        "read_file",
        {"file_path": "a.py"},
        "inside a string",
    ),
    Fixed("read_file", args(filePath="a.py"), "read_file", {"file_path": "a.py"}, "filePath → file_path"),
    Fixed("read_file", args(FILE_PATH="a.py"), "read_file", {"file_path": "a.py"}, "FILE_PATH → file_path"),
    Fixed("read_file", args(path="a.py"), "read_file", {"file_path": "a.py"}, "argument path → file_path"),
    Fixed(
        "edit_file",
        args(file_path="a.py", old="x", new="y"),
        "edit_file",
        {"file_path": "a.py", "old_string": "x", "new_string": "y"},
        "old → old_string",
    ),
    Fixed("stat", args(paths="a.py"), "stat", {"paths": ["a.py"]}, 'paths: "a.py" → ["a.py"]'),
    Fixed("stat", args(paths='["a.py", "b.py"]'), "stat", {"paths": ["a.py", "b.py"]}, "paths:"),
    Fixed("stat", args(paths=["a"], depth="2.5"), "stat", {"paths": ["a"], "depth": 2.5}, "depth"),
    Fixed(
        "grep",
        args(pattern="x", case_insensitive="True", context="3"),
        "grep",
        {"pattern": "x", "case_insensitive": True, "context": 3},
        'context: "3" → 3',
    ),
    Fixed("grep", args(pattern=404), "grep", {"pattern": "404"}, 'pattern: 404 → "404"'),
    Fixed("grep", args(pattern="x", glob=None), "grep", {"pattern": "x", "glob": None}),
    Fixed("ls", "", "ls", {}),
    Fixed("ls", "null", "ls", {}),
    Fixed("ls", "  {}  ", "ls", {}),
    Fixed(
        "multi_edit",
        args(file_path="a.py", edits=json.dumps([{"old": "a", "new": "b"}])),
        "multi_edit",
        {"file_path": "a.py", "edits": [{"old": "a", "new": "b"}]},
        "edits:",
    ),
    Fixed(
        "multi_edit",
        args(file_path="a.py", edits={"old": "a", "new": "b"}),
        "multi_edit",
        {"file_path": "a.py", "edits": [{"old": "a", "new": "b"}]},
        "edits:",
    ),
    Fixed("broken", args(x=1), "broken", {"x": 1}),
]

REFUSED = [
    Refused("nope", "{}", "unknown tool 'nope'; the tools are: broken, copy, edit_file"),
    Refused("read_file", '{"file_path": ', "the arguments of read_file are not a JSON object"),
    Refused("read_file", '{"file_path": "a"}{"file_path": "b"}', "not a JSON object"),
    Refused("read_file", '["a.py"]', "not a JSON object"),
    Refused("read_file", "file_path=a.py", "not a JSON object"),
    Refused("read_file", '"just a string"', "not a JSON object"),
    Refused("read_file", "{}", "invalid arguments for read_file: 'file_path' is a required property"),
    Refused("glob", args(path="src"), "'pattern' is a required property"),
    Refused("copy", args(path="a"), "unknown argument path (the arguments are: src_path, dst_path)"),
    Refused(
        "read_file", args(name="a.py"), "unknown argument name (the arguments are: file_path, offset, limit)"
    ),
    Refused(
        "grep", args(pattern="x", case_insensitive="yes"), "case_insensitive: 'yes' is not of type 'boolean'"
    ),
    Refused("read_file", args(file_path="a", offset="3.5"), "offset: '3.5' is not of type 'integer'"),
    Refused("read_file", args(file_path="a", offset=0), "offset: 0 is less than the minimum of 1"),
    Refused("grep", args(pattern="x", output_mode="lines"), "output_mode: 'lines' is not one of"),
    Refused("read_file", args(file_path=None), "file_path: None is not of type 'string'"),
    Refused("strict", args(file_path="a", filePath="b"), "Additional properties are not allowed"),
    Refused("multi_edit", args(file_path="a", edits=[{"old": "a"}]), "edits.0: 'new' is a required property"),
]


@pytest.mark.parametrize("case", FIXED, ids=[f"{c.name}:{c.raw[:30]}" for c in FIXED])
def test_clear_mistakes_are_repaired(case: Fixed) -> None:
    result = repair_call(case.name, case.raw, TOOLS)
    assert isinstance(result, Repaired), result
    assert (result.name, result.arguments) == (case.tool, case.arguments)
    if case.note is None:
        assert result.notes == ()
    else:
        assert any(case.note in note for note in result.notes), result.notes


@pytest.mark.parametrize("case", REFUSED, ids=[f"{c.name}:{c.raw[:30]}" for c in REFUSED])
def test_unclear_or_invalid_calls_are_refused_with_a_clear_line(case: Refused) -> None:
    result = repair_call(case.name, case.raw, TOOLS)
    assert isinstance(result, RepairError), result
    assert case.error in result.message
    assert "\n" not in result.message


def test_a_name_two_tools_could_have_is_not_guessed() -> None:
    tools: dict[str, dict[str, JsonValue]] = {"read_file": schema(ReadFile), "readFile": schema(ReadFile)}
    result = repair_call("READFILE", args(file_path="a"), tools)
    assert isinstance(result, RepairError)
    assert "could be readFile or read_file" in result.message


def test_both_spellings_of_an_argument_are_left_for_the_tool_to_refuse() -> None:
    result = repair_call("read_file", args(file_path="a", filePath="b"), TOOLS)
    assert isinstance(result, Repaired)
    assert result.arguments == {"file_path": "a", "filePath": "b"} and result.notes == ()


def test_a_long_bad_value_is_shortened_in_the_error() -> None:
    result = repair_call("read_file", args(file_path="a", offset="x" * 5000), TOOLS)
    assert isinstance(result, RepairError) and len(result.message) < 400


def test_arguments_nested_past_the_parsers_depth_are_refused_not_a_crash() -> None:
    deep = '{"command": ' + "[" * 100_000 + "]" * 100_000 + "}"
    checked = repair_call("execute", deep, {"execute": {"type": "object"}})
    assert isinstance(checked, RepairError)
    assert ToolCallPart(id="c1", name="execute", arguments=deep).parsed_arguments() is None
