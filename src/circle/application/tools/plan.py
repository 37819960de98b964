"""plan_enter and plan_exit: plan mode, where the model reads and plans but changes nothing.

plan_enter turns the session's :class:`~circle.application.approvals.PlanMode` on; its
:class:`~circle.application.approvals.PlanModeGate` then refuses every change (reads and known
read-only commands still run). plan_exit writes the plan as Markdown to
``<data folder>/session_plans/<session-id>.md`` and offers it to the person:

- accept and go on in default mode, or accept with accept-edits: plan mode ends, the approval
  mode is set accordingly, and the model carries the plan out;
- keep planning (or dismissing the question, or typing feedback instead of choosing): plan mode
  stays on and the model gets the feedback.

Where nobody can answer (print, JSON and RPC modes), plan_exit still saves the plan and leaves
plan mode, but the approval mode is left as the run set it (so in default mode changes are still
refused there): the model is told nobody approved the plan and to do only what the person asked.

Plan mode lives in the conversation: :func:`plan_mode_in` reads it back from the plan tools' results,
so a session opened again (``--session``, ``-c``, a fork, after a rewind) is in plan mode when its
conversation left it there.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field

from circle.application.approvals import ApprovalMode
from circle.application.ports.asker import Answer, Question
from circle.domain.errors import ToolError
from circle.domain.messages import Message

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

PLAN_ENTER = "plan_enter"
PLAN_EXIT = "plan_exit"
ENTERED = (
    "Plan mode is on: read, search and run read-only commands to understand the task; every change "
    "is refused until the person accepts your plan. When the plan is ready, call plan_exit with it."
)
ALREADY = "Plan mode is already on. When the plan is ready, call plan_exit with it."
ENTERED_SHOWN = "Plan mode: nothing changes until you accept a plan."
"""What the person reads for plan_enter (the words shift+tab says), not the model's instructions."""
ALREADY_SHOWN = "Plan mode was on already."
MODE_SHOWN: dict[ApprovalMode, str] = {
    "default": "commands and file changes ask",
    "accept-edits": "file changes inside the workspace no longer ask",
}
NOT_IN_PLAN_MODE = "not in plan mode: there is no plan to accept (plan_enter starts plan mode)"
NOT_ACCEPTED = "The person did not accept the plan"
ACCEPT = "Yes, and go on in default mode"
ACCEPT_EDITS = "Yes, and accept edits"
KEEP_PLANNING = "No, keep planning"
CHOICES: dict[str, ApprovalMode | None] = {
    ACCEPT: "default",
    ACCEPT_EDITS: "accept-edits",
    KEEP_PLANNING: None,
}


class PlanEnterArgs(ToolArgs):
    pass


class PlanExitArgs(ToolArgs):
    plan: str = Field(min_length=1, description="The plan, in Markdown, as the person should read it.")


async def _plan_enter(args: PlanEnterArgs, ctx: ToolContext) -> ToolOutput:
    if ctx.plan_mode.active:
        return ToolOutput(ALREADY, shown=ALREADY_SHOWN)
    ctx.plan_mode.enter()
    return ToolOutput(ENTERED, shown=ENTERED_SHOWN)


async def _save(plan: str, ctx: ToolContext) -> str:
    """Write the plan to the session's plan file; say where (or that it could not be)."""
    if ctx.plan_file is None:
        return "the conversation (no data folder to save it in)"
    try:
        await ctx.files.write_bytes(ctx.plan_file, plan.encode("utf-8"))
    except OSError as exc:
        raise ToolError(f"could not save the plan to {ctx.plan_file}: {exc}") from None
    return ctx.plan_file


def _outcome(answer: Answer | None, where: str, ctx: ToolContext) -> ToolOutput:
    chosen = answer.chosen[0] if answer is not None and answer.chosen else KEEP_PLANNING
    mode = CHOICES.get(chosen)
    feedback = answer.text.strip() if answer is not None else ""
    said = f"\nThe person said: {feedback}" if feedback else ""
    if mode is None:
        return ToolOutput(
            f"{NOT_ACCEPTED} (saved to {where}); plan mode stays on. "
            f"Keep planning, then call plan_exit with the revised plan.{said}",
            shown=f"Plan not accepted (saved to {where}): plan mode stays on.",
        )
    ctx.plan_mode.leave(mode)
    return ToolOutput(
        f"The person accepted the plan (saved to {where}). Plan mode is off and the approval mode is "
        f"{mode}: carry the plan out now, keeping the todo list up to date.{said}",
        shown=f"Plan accepted (saved to {where}): plan mode is off, {MODE_SHOWN.get(mode, mode)}.",
    )


async def _plan_exit(args: PlanExitArgs, ctx: ToolContext) -> ToolOutput:
    if not ctx.plan_mode.active:
        raise ToolError(NOT_IN_PLAN_MODE)
    where = await _save(args.plan, ctx)
    if ctx.asker is None:
        ctx.plan_mode.leave()
        return ToolOutput(
            f"The plan was saved to {where}; nobody can approve it here, so carry on only with what "
            "the person asked."
        )
    question = Question(f"Accept this plan? (saved to {where})\n\n{args.plan}", options=tuple(CHOICES))
    answers = await ctx.asker.ask([question])
    return _outcome(answers[0] if answers else None, where, ctx)


def plan_mode_in(messages: Iterable[Message]) -> bool:
    """Whether a conversation left its session in plan mode: a plan_enter that ran (or the person
    turning it on with a message), and no plan_exit after it that left plan mode (one the person did
    not accept keeps it on; a failed call changes nothing) nor the person turning it off."""
    active = False
    for message in messages:
        for aside in message.shown.asides if message.shown is not None else ():
            if aside.kind in ("plan-on", "plan-off"):  # the person switched it (shift+tab)
                active = aside.kind == "plan-on"
        for result in message.tool_results:
            if result.is_error:
                continue
            if result.tool_name == PLAN_ENTER:
                active = True
            elif result.tool_name == PLAN_EXIT and NOT_ACCEPTED not in result.text:
                active = False
    return active


PLAN_ENTER_TOOL = BuiltinTool(PLAN_ENTER, PlanEnterArgs, _plan_enter)
PLAN_EXIT_TOOL = BuiltinTool(PLAN_EXIT, PlanExitArgs, _plan_exit)

__all__ = [
    "ACCEPT",
    "ACCEPT_EDITS",
    "CHOICES",
    "KEEP_PLANNING",
    "PLAN_ENTER",
    "PLAN_ENTER_TOOL",
    "PLAN_EXIT",
    "PLAN_EXIT_TOOL",
    "PlanEnterArgs",
    "PlanExitArgs",
    "plan_mode_in",
]
