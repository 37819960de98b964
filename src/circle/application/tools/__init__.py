"""The built-in tools, by name."""

from __future__ import annotations

from .base import Tool
from .compaction import COMPACT
from .files import DELETE, EDIT_FILE, LS, READ_FILE, WRITE_FILE
from .jobs import LIST_JOBS, STOP_JOB, WAIT_JOBS
from .lsp import LSP_TOOL
from .patch import APPLY_PATCH
from .plan import PLAN_ENTER_TOOL, PLAN_EXIT_TOOL
from .questions import QUESTION_TOOL
from .search import GLOB, GREP
from .shell import EXECUTE
from .skills import SKILL_TOOL
from .task import TASK_TOOL
from .todos import WRITE_TODOS_TOOL
from .web import WEB_FETCH, WEB_SEARCH

BUILTIN_TOOLS: tuple[Tool, ...] = (
    LS,
    READ_FILE,
    GLOB,
    GREP,
    LSP_TOOL,
    WRITE_FILE,
    EDIT_FILE,
    DELETE,
    APPLY_PATCH,
    EXECUTE,
    LIST_JOBS,
    STOP_JOB,
    WAIT_JOBS,
    WEB_FETCH,
    WEB_SEARCH,
    WRITE_TODOS_TOOL,
    QUESTION_TOOL,
    PLAN_ENTER_TOOL,
    PLAN_EXIT_TOOL,
    SKILL_TOOL,
    TASK_TOOL,
    COMPACT,
)


def builtin_tools() -> dict[str, Tool]:
    return {tool.name: tool for tool in BUILTIN_TOOLS}


__all__ = ["BUILTIN_TOOLS", "builtin_tools"]
