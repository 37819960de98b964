"""task: start a subagent with its own fresh context and return its final answer.

The work is the session's :class:`SubagentRunner` (``ctx.subagents``, see
:mod:`circle.application.subagents`); adjacent task calls run at the same time (the loop's
``PARALLEL_TOOLS``). With ``background`` the subagent runs as a background job of the session's
:class:`~circle.application.jobs.JobManager` (``ctx.jobs``): the call returns at once with the job's
id, and the subagent's report reaches the model as the job's notice when it ends.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from pydantic import Field, JsonValue

from circle.domain.errors import ToolError
from circle.domain.model import ToolSpec
from circle.domain.subagents import GENERAL_PURPOSE, SubagentSpec

from .base import BuiltinTool, Tool, ToolArgs, ToolContext, ToolOutput

TASK = "task"
NO_BACKGROUND = (
    "background jobs are not available in this session: call task again without background "
    "(adjacent task calls already run at the same time)"
)


class TaskArgs(ToolArgs):
    description: str = Field(description="A 3 to 5 word label, shown to the person.")
    prompt: str = Field(
        description="The whole task for the subagent: the goal, what you already know, and what to report."
    )
    subagent_type: str = Field(GENERAL_PURPOSE, description="Which subagent: general-purpose, explore, ...")
    background: bool = Field(False, description="Run it as a background job.")


async def _task(args: TaskArgs, ctx: ToolContext) -> ToolOutput:
    if ctx.subagents is None:
        raise ToolError("subagents are not available here (a subagent cannot start another)")
    if not args.prompt.strip():
        raise ToolError("prompt is empty: say what the subagent should do and report")
    if args.background:
        if ctx.jobs is None:
            raise ToolError(NO_BACKGROUND)
        return await ctx.subagents.start_task(
            description=args.description, prompt=args.prompt, subagent_type=args.subagent_type, ctx=ctx
        )
    return await ctx.subagents.run_task(
        description=args.description, prompt=args.prompt, subagent_type=args.subagent_type, ctx=ctx
    )


TASK_TOOL = BuiltinTool(TASK, TaskArgs, _task)


@dataclass(frozen=True)
class DescribedTool:
    """A tool whose description has a paragraph added (what this session found)."""

    tool: Tool
    extra: str

    @property
    def name(self) -> str:
        return self.tool.name

    def spec(self) -> ToolSpec:
        spec = self.tool.spec()
        return replace(spec, description=f"{spec.description}\n\n{self.extra}")

    async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
        return await self.tool.invoke(arguments, ctx)


def described_task(tool: Tool, agents: Iterable[SubagentSpec]) -> Tool:
    """``tool`` (task) with the subagents of the agent files listed in its description."""
    lines = [f"- {spec.name}: {spec.description}" for spec in sorted(agents, key=lambda s: s.name)]
    if not lines:
        return tool
    return DescribedTool(
        tool, "Subagents defined by agent files (an agent file may replace one above):\n" + "\n".join(lines)
    )


__all__ = ["NO_BACKGROUND", "TASK", "TASK_TOOL", "DescribedTool", "TaskArgs", "described_task"]
