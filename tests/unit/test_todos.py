"""write_todos and the todo list read back from the conversation."""

from __future__ import annotations

import json

import pytest
from pydantic import JsonValue

from circle.application.tools import builtin_tools
from circle.domain.errors import ToolError
from circle.domain.messages import Message, StopReason, ToolCallPart
from circle.domain.todos import Todo, current_todos, format_todos
from circle.testing import Call, answer

from ._harness import Harness

TODOS: list[JsonValue] = [
    {"content": "Read the parser", "status": "completed"},
    {"content": "Fix the bug", "status": "in_progress"},
    {"content": "Add a test", "status": "pending"},
]


def _call(call_id: str, todos: list[JsonValue]) -> Message:
    part = ToolCallPart(id=call_id, name="write_todos", arguments=json.dumps({"todos": todos}))
    return Message(role="assistant", parts=(part,), stop_reason=StopReason.TOOL_USE)


async def test_write_todos_shows_the_list_compactly() -> None:
    out = await builtin_tools()["write_todos"].invoke({"todos": TODOS}, Harness().context())
    assert out.text == "Todos (1/3 done):\n[x] Read the parser\n[>] Fix the bug\n[ ] Add a test"
    cleared = await builtin_tools()["write_todos"].invoke({"todos": []}, Harness().context())
    assert cleared.text == "Todo list cleared."


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        (
            [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}],
            "at most one",
        ),
        ([{"content": "a", "status": "doing"}], "todos.0.status"),
        ([{"content": "", "status": "pending"}], "todos.0.content"),
        ([{"content": "a", "status": "pending", "priority": "high"}], "todos.0.priority"),
    ],
)
async def test_write_todos_refuses_bad_lists(todos: list[JsonValue], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await builtin_tools()["write_todos"].invoke({"todos": todos}, Harness().context())


def test_current_todos_is_the_latest_successful_call() -> None:
    first: list[JsonValue] = [{"content": "old", "status": "pending"}]
    bad: list[JsonValue] = [
        {"content": "x", "status": "in_progress"},
        {"content": "y", "status": "in_progress"},
    ]
    messages = [
        Message.user("go"),
        _call("c1", first),
        Message.tool_result(call_id="c1", name="write_todos", text="ok"),
        _call("c2", TODOS),
        Message.tool_result(call_id="c2", name="write_todos", text="ok"),
        _call("c3", bad),
        Message.tool_result(call_id="c3", name="write_todos", text="invalid", is_error=True),
    ]
    todos = current_todos(messages)
    assert [t.content for t in todos] == ["Read the parser", "Fix the bug", "Add a test"]
    assert current_todos(messages[:3]) == (Todo(content="old", status="pending"),)
    assert current_todos([Message.user("hi")]) == ()


def test_current_todos_skips_a_refused_call_and_reads_a_list_sent_as_text() -> None:
    as_text = ToolCallPart(id="c1", name="write_todos", arguments=json.dumps({"todos": json.dumps(TODOS)}))
    refused = _call("c2", [{"content": "new", "status": "pending"}])
    messages = [
        Message(role="assistant", parts=(as_text,)),
        Message.tool_result(call_id="c1", name="write_todos", text="ok"),
        refused,
        Message.tool_result(call_id="c2", name="write_todos", text="blocked by a hook", is_error=True),
    ]
    assert len(current_todos(messages)) == 3


def test_format_todos_of_an_empty_list() -> None:
    assert format_todos([]) == "The todo list is empty."


async def test_the_list_is_kept_with_the_session() -> None:
    h = Harness()
    h.model.add(answer("", Call("write_todos", {"todos": TODOS})), answer("Started."))
    session = await h.runtime().new_session()
    await session.prompt("fix it")
    reopened = await h.runtime().open_session(session.session_id)
    assert [t.status for t in current_todos(reopened.conversation.messages)] == [
        "completed",
        "in_progress",
        "pending",
    ]
