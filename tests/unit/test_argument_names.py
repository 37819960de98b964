"""Argument names models commonly send are mended to the tool's own, only when one parameter fits."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from circle.application.tools import builtin_tools
from circle.domain.argument_names import ALIASES, repair_names, squash
from circle.domain.tool_repair import Repaired, RepairError, repair_call

SCHEMAS = {name: tool.spec().parameters for name, tool in builtin_tools().items()}

MENDED: list[tuple[str, dict[str, JsonValue], dict[str, JsonValue]]] = [
    ("execute", {"cmd": "ls"}, {"command": "ls"}),
    ("execute", {"cmd": "make", "run_in_background": True}, {"command": "make", "background": True}),
    ("execute", {"command": "make", "timeout_seconds": 30}, {"command": "make", "timeout": 30}),
    ("read_file", {"filepath": "a.py"}, {"file_path": "a.py"}),
    (
        "read_file",
        {"path": "a.py", "start_line": 3, "num_lines": 5},
        {"file_path": "a.py", "offset": 3, "limit": 5},
    ),
    ("read_file", {"filename": "a.py"}, {"file_path": "a.py"}),
    ("write_file", {"path": "a.py", "text": "x"}, {"file_path": "a.py", "content": "x"}),
    ("write_file", {"file_path": "a.py", "file_text": "x"}, {"file_path": "a.py", "content": "x"}),
    (
        "edit_file",
        {"path": "a.py", "old_str": "a", "new_str": "b"},
        {"file_path": "a.py", "old_string": "a", "new_string": "b"},
    ),
    (
        "edit_file",
        {"file_path": "a.py", "search": "a", "replace": "b", "all": True},
        {"file_path": "a.py", "old_string": "a", "new_string": "b", "replace_all": True},
    ),
    (
        "grep",
        {"query": "x", "include": "*.py", "ignore_case": True},
        {"pattern": "x", "glob": "*.py", "case_insensitive": True},
    ),
    ("grep", {"regex": "x", "dir": "src"}, {"pattern": "x", "path": "src"}),
    ("glob", {"glob": "**/*.py", "directory": "src"}, {"pattern": "**/*.py", "path": "src"}),
    ("ls", {"folder": "src"}, {"path": "src"}),
    ("apply_patch", {"input": "*** Begin Patch"}, {"patch": "*** Begin Patch"}),
    ("websearch", {"q": "circle", "num_results": 3}, {"query": "circle", "max_results": 3}),
    (
        "webfetch",
        {"link": "https://a.test", "question": "what?"},
        {"url": "https://a.test", "prompt": "what?"},
    ),
    ("stop_job", {"shell_id": "job-1"}, {"job_id": "job-1"}),
    ("wait_jobs", {"job_id": "job-1"}, {"job_ids": ["job-1"]}),
    ("skill", {"skill": "create-pr"}, {"name": "create-pr"}),
    ("plan_exit", {"content": "# Plan"}, {"plan": "# Plan"}),
    ("compact_conversation", {"focus": "the tests"}, {"instructions": "the tests"}),
    (
        "lsp",
        {"op": "hover", "path": "a.py", "line_number": 3, "column": 4},
        {"operation": "hover", "file_path": "a.py", "line": 3, "character": 4},
    ),
    (
        "task",
        {"description": "d", "instructions": "do it", "agent_type": "explore"},
        {"description": "d", "prompt": "do it", "subagent_type": "explore"},
    ),
    (
        "write_todos",
        {"items": [{"content": "a", "status": "pending"}]},
        {"todos": [{"content": "a", "status": "pending"}]},
    ),
]


@pytest.mark.parametrize(("tool", "sent", "meant"), MENDED, ids=[f"{t}:{','.join(s)}" for t, s, _ in MENDED])
def test_names_models_commonly_send_are_mended_for_the_builtin_tools(
    tool: str, sent: dict[str, JsonValue], meant: dict[str, JsonValue]
) -> None:
    result = repair_call(tool, json.dumps(sent), SCHEMAS)
    assert isinstance(result, Repaired), result
    assert result.arguments == meant
    assert all(note.startswith(("argument ", "job_ids:")) for note in result.notes)


def test_execute_with_cmd_runs_and_says_what_was_mended() -> None:
    result = repair_call("execute", '{"cmd": "ls -la"}', SCHEMAS)
    assert isinstance(result, Repaired)
    assert result.arguments == {"command": "ls -la"} and result.notes == ("argument cmd → command",)


def test_two_names_for_one_parameter_are_not_guessed_between() -> None:
    result = repair_call("grep", '{"query": "a", "regex": "b"}', SCHEMAS)
    assert isinstance(result, RepairError)
    assert "'pattern' is a required property" in result.message
    assert "unknown arguments query, regex" in result.message


def test_a_name_two_parameters_could_take_is_left_for_the_schema_check() -> None:
    schema: dict[str, JsonValue] = {
        "type": "object",
        "properties": {"content": {"type": "string"}, "plan": {"type": "string"}},
        "required": ["content", "plan"],
    }
    result = repair_call("t", '{"text": "x", "plan": "p"}', {"t": schema})
    assert isinstance(result, Repaired) and result.arguments == {"content": "x", "plan": "p"}
    result = repair_call("t", '{"text": "x"}', {"t": schema})
    assert isinstance(result, RepairError) and "unknown argument text" in result.message


def test_every_alias_names_a_parameter_of_a_builtin_tool_and_none_is_ambiguous_within_one() -> None:
    params = {p for schema in SCHEMAS.values() for p in schema.get("properties", {})}  # type: ignore[union-attr]
    assert set(ALIASES) <= params
    for tool, schema in SCHEMAS.items():
        own = list(schema.get("properties", {}))  # type: ignore[union-attr]
        for alias in {squash(a) for p in own for a in ALIASES.get(p, ())}:
            takers = [p for p in own if alias in {squash(a) for a in ALIASES.get(p, ())}]
            assert len(takers) == 1 or alias in {"search", "question", "count", "limit"}, (
                tool,
                alias,
                takers,
            )


WORDS = sorted({a for aliases in ALIASES.values() for a in aliases} | {"path", "file", "name", "src"})
PARAMS = sorted(set(ALIASES) | {"src_path", "dst_path", "file_name", "path_prefix", "name_hint"})


def _renamed_to(key: str, names: list[str]) -> str | None:
    schema: dict[str, JsonValue] = {
        "type": "object",
        "properties": {n: {"type": "string"} for n in names},
        "required": list(names),
    }
    arguments = repair_names({key: "v"}, schema, [])
    return next((n for n in names if n in arguments), None)


@settings(max_examples=300, deadline=None)
@given(
    key=st.sampled_from(WORDS), names=st.lists(st.sampled_from(PARAMS), min_size=1, max_size=4, unique=True)
)
def test_a_repair_never_fires_when_two_parameters_could_fit(key: str, names: list[str]) -> None:
    if key in names:
        return
    alone = [n for n in names if _renamed_to(key, [n]) == n]
    together = _renamed_to(key, names)
    if len(alone) >= 2:
        assert together is None, (key, names, alone)
    else:
        assert together == (alone[0] if alone else None), (key, names)
