"""compact_conversation: the model asks for a compaction.

The tool only answers; the loop compacts right after the round that called it (the call and its
result must be in the history first, so the plan never separates them). See
:mod:`circle.application.compaction`.
"""

from __future__ import annotations

from pydantic import Field

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

COMPACT_CONVERSATION = "compact_conversation"
REQUESTED = (
    "Compaction requested: older messages will be summarized before your next request; the newest "
    "request, the todo list, the plan and the most recent messages stay as they are."
)


class CompactArgs(ToolArgs):
    instructions: str | None = Field(None, description="What the summary should keep or focus on.")


async def _compact(args: CompactArgs, ctx: ToolContext) -> ToolOutput:
    return ToolOutput(REQUESTED)


COMPACT = BuiltinTool(COMPACT_CONVERSATION, CompactArgs, _compact)

__all__ = ["COMPACT", "COMPACT_CONVERSATION", "REQUESTED", "CompactArgs"]
