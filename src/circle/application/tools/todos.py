"""write_todos: the model replaces the session's todo list.

The list is not stored apart: :func:`circle.domain.todos.current_todos` reads it back from the
latest successful write_todos call in the conversation. At most one item may be in progress;
a list with more is refused (the model is told to fix it), so the list always shows one focus.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from circle.domain.todos import WRITE_TODOS, Todo, check_todos, format_todos

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput


class WriteTodosArgs(ToolArgs):
    todos: tuple[Todo, ...] = Field(description="The whole new list, in order.")

    @field_validator("todos")
    @classmethod
    def _one_in_progress(cls, todos: tuple[Todo, ...]) -> tuple[Todo, ...]:
        check_todos(todos)
        return todos


async def _write_todos(args: WriteTodosArgs, ctx: ToolContext) -> ToolOutput:
    if not args.todos:
        return ToolOutput("Todo list cleared.")
    return ToolOutput(format_todos(args.todos))


WRITE_TODOS_TOOL = BuiltinTool(WRITE_TODOS, WriteTodosArgs, _write_todos)

__all__ = ["WRITE_TODOS_TOOL", "WriteTodosArgs"]
