"""The built-in tools, by name."""

from __future__ import annotations

from .base import Tool
from .compaction import COMPACT
from .files import DELETE, EDIT_FILE, LS, READ_FILE, WRITE_FILE
from .search import GLOB, GREP
from .shell import EXECUTE

BUILTIN_TOOLS: tuple[Tool, ...] = (LS, READ_FILE, GLOB, GREP, WRITE_FILE, EDIT_FILE, DELETE, EXECUTE, COMPACT)


def builtin_tools() -> dict[str, Tool]:
    return {tool.name: tool for tool in BUILTIN_TOOLS}


__all__ = ["BUILTIN_TOOLS", "builtin_tools"]
