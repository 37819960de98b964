"""The session's todo list: what write_todos writes, read back from the conversation.

There is no separate storage: the list is the ``todos`` of the latest write_todos call that
succeeded, so it is kept with the session, follows a fork or a rewind, and survives a resume.
At most one item is ``in_progress`` at a time (the one being worked on); the rest are ``pending``
or ``completed``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from .messages import Message

WRITE_TODOS = "write_todos"
TodoStatus = Literal["pending", "in_progress", "completed"]
MARKS: dict[TodoStatus, str] = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
TOO_MANY_IN_PROGRESS = (
    "at most one todo may be in_progress (the one being worked on now): mark the others pending or completed"
)


class Todo(BaseModel):
    """One item of the todo list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str = Field(min_length=1, description="What to do, in a short imperative sentence.")
    status: TodoStatus = "pending"


_TODO_LIST = TypeAdapter(tuple[Todo, ...])


def check_todos(todos: Sequence[Todo]) -> None:
    """Raise ValueError when the list breaks a rule (more than one item in progress)."""
    if sum(1 for todo in todos if todo.status == "in_progress") > 1:
        raise ValueError(TOO_MANY_IN_PROGRESS)


def format_todos(todos: Sequence[Todo]) -> str:
    """The list, one line an item: ``[x]`` done, ``[>]`` in progress, ``[ ]`` pending."""
    if not todos:
        return "The todo list is empty."
    done = sum(1 for todo in todos if todo.status == "completed")
    lines = [f"{MARKS[todo.status]} {todo.content}" for todo in todos]
    return f"Todos ({done}/{len(todos)} done):\n" + "\n".join(lines)


def parse_todos(arguments: dict[str, JsonValue]) -> tuple[Todo, ...] | None:
    """The list a write_todos call's arguments hold, or None when they do not hold a valid one."""
    raw = arguments.get("todos")
    if isinstance(raw, str):  # a model that wrote the list as a JSON string (mended by the loop)
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    try:
        todos = _TODO_LIST.validate_python(raw)
        check_todos(todos)
    except (ValidationError, ValueError):
        return None
    return todos


def current_todos(messages: Sequence[Message]) -> tuple[Todo, ...]:
    """The session's todo list: the latest write_todos call whose result was not an error.

    A call still waiting for its result counts (the list is being written); an empty tuple when
    the conversation has no such call.
    """
    failed = {
        result.tool_call_id
        for message in messages
        if message.role == "tool"
        for result in message.tool_results
        if result.is_error
    }
    for message in reversed(messages):
        for call in reversed(message.tool_calls):
            if call.name != WRITE_TODOS or call.id in failed:
                continue
            arguments = call.parsed_arguments()
            todos = parse_todos(arguments) if arguments is not None else None
            if todos is not None:
                return todos
    return ()


__all__ = [
    "MARKS",
    "TOO_MANY_IN_PROGRESS",
    "WRITE_TODOS",
    "Todo",
    "TodoStatus",
    "check_todos",
    "current_todos",
    "format_todos",
    "parse_todos",
]
