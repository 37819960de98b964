"""The built-in tools, by name, each loaded on first use.

A tool's module (its argument model, its checks: the command classifier for ``execute``) is
imported when the tool is first invoked or its spec is first made, not when Circle starts: a start
takes the specs from the spec cache (:mod:`circle.application.tool_specs`), and a first turn that
calls no tool never loads them. Invoked first from an event loop, the module is imported on a
thread (``execute``'s, some 40 ms, held the interface's keys on the loop).
"""

from __future__ import annotations

import asyncio
import functools
import sys
from dataclasses import dataclass, field, replace
from importlib import import_module
from typing import cast

from pydantic import JsonValue

from circle.domain.model import ToolSpec

from .base import Tool, ToolContext, ToolOutput

_TABLE: tuple[tuple[str, str], ...] = (
    ("ls", "files:LS"),
    ("read_file", "files:READ_FILE"),
    ("glob", "search:GLOB"),
    ("grep", "search:GREP"),
    ("lsp", "lsp:LSP_TOOL"),
    ("write_file", "files:WRITE_FILE"),
    ("edit_file", "files:EDIT_FILE"),
    ("delete", "files:DELETE"),
    ("apply_patch", "patch:APPLY_PATCH"),
    ("execute", "shell:EXECUTE"),
    ("list_jobs", "jobs:LIST_JOBS"),
    ("stop_job", "jobs:STOP_JOB"),
    ("wait_jobs", "jobs:WAIT_JOBS"),
    ("webfetch", "web:WEB_FETCH"),
    ("websearch", "web:WEB_SEARCH"),
    ("write_todos", "todos:WRITE_TODOS_TOOL"),
    ("question", "questions:QUESTION_TOOL"),
    ("plan_enter", "plan:PLAN_ENTER_TOOL"),
    ("plan_exit", "plan:PLAN_EXIT_TOOL"),
    ("skill", "skills:SKILL_TOOL"),
    ("task", "task:TASK_TOOL"),
    ("compact_conversation", "compaction:COMPACT"),
)
"""Each built-in tool's name and where it is: ``module:NAME`` in this package."""


@functools.cache
def load_tool(where: str) -> Tool:
    """The built-in tool at ``where`` (``module:NAME``), its module imported on the first call."""
    module, _, name = where.partition(":")
    return cast(Tool, getattr(import_module(f"{__name__}.{module}"), name))


@dataclass(frozen=True)
class LazyTool:
    """A built-in tool whose module loads when it is first invoked or its spec first made."""

    name: str
    where: str
    known: ToolSpec | None = field(default=None, compare=False)
    """The spec kept from an earlier run (see :meth:`with_spec`)."""

    def load(self) -> Tool:
        """The tool itself."""
        return load_tool(self.where)

    def with_spec(self, spec: ToolSpec) -> LazyTool:
        """This tool with ``spec`` given by :meth:`spec` without loading it."""
        return replace(self, known=spec)

    def spec(self) -> ToolSpec:
        return self.known if self.known is not None else self.load().spec()

    async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
        module = f"{__name__}.{self.where.partition(':')[0]}"
        if module not in sys.modules:  # imported on a thread: the event loop (the interface's keys)
            await asyncio.to_thread(import_module, module)  # goes on meanwhile
        return await self.load().invoke(arguments, ctx)


BUILTIN_TOOLS: tuple[LazyTool, ...] = tuple(LazyTool(name, where) for name, where in _TABLE)


def builtin_tools() -> dict[str, Tool]:
    return {tool.name: tool for tool in BUILTIN_TOOLS}


__all__ = ["BUILTIN_TOOLS", "LazyTool", "builtin_tools", "load_tool"]
