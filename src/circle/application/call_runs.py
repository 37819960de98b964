"""One tool call run through its gate and its tool, again with the arguments an approver gave.

A PreToolUse hook's ``updatedInput`` changes the call the same way, except that the changed call
is not taken as approved: it asks where the policy asks.

An :class:`~circle.application.ports.approver.ApprovalDecision` may allow a call with changed
``arguments`` (a permission callback, the interface, an RPC client). The tool asks for approval
before it changes anything, so :func:`raise_if_changed` stops it there with
:class:`ArgumentsChanged`; :class:`CallRun` then checks the new arguments against the tool's
schema (a change that does not fit is refused, and the model told why) and runs the call again
from the start with them: the PreToolUse hooks, the tool's own refusals (an always-refused
command), the deny rules and the mode judge the changed call as they would one the model made.
The approver wrote the changed call, so where the policy would only ask about it, it runs; what
asks in every mode (an always-ask place, a command a rule might match) asks again, about the
changed call. A call is changed at most :data:`MAX_CHANGES` times.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from circle.domain.errors import ToolError
from circle.domain.schema_check import schema_problems
from circle.domain.secrets import Secrets

from .tools.base import ArgumentsChanged, Tool, ToolContext, ToolOutput, raise_if_changed

log = logging.getLogger("circle.loop")
MAX_CHANGES = 3


def change_problem(
    name: str, arguments: Mapping[str, object], schema: Mapping[str, JsonValue], *, by: str = "the approver"
) -> dict[str, JsonValue] | str:
    """The changed arguments as JSON values, or why they cannot run (one line, for the model)."""
    refused = f"{by} changed the arguments of {name}, but"
    try:
        values = json.loads(json.dumps(dict(arguments), allow_nan=False))
    except (TypeError, ValueError) as exc:
        return f"{refused} they are not JSON values ({exc}); {name} did not run"
    problems = schema_problems(values, schema)
    if problems:
        return f"{refused} they do not fit its schema: {'; '.join(problems)}; {name} did not run"
    return dict(values)


def changed_note(arguments: Mapping[str, JsonValue], *, by: str = "the approver") -> str:
    """The line before the tool's output telling the model which arguments ran."""
    return f"({by} changed the arguments: {json.dumps(arguments, ensure_ascii=False)})"


Gate = Callable[[dict[str, JsonValue]], Awaitable[ToolContext | ToolOutput]]
"""The PreToolUse hooks' word on the arguments: a refusal, or the context the tool runs with."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What a call gave: its output, the arguments it ran (or was refused) with, and whether it
    got past its gate (False: the hooks refused it before it started)."""

    output: ToolOutput
    arguments: dict[str, JsonValue]
    started: bool
    changed_by: str = "the approver"
    """Who changed the arguments last (when they were changed)."""


@dataclass
class CallRun:
    """One call of ``tool``: its gate, then the tool, again for each change of its arguments.

    Attributes:
        gate: The hooks' word on the arguments (run again on changed ones).
        started: Called once, when the call first gets past its gate (the call log's mark).
        progress: The running tool's progress callback.
        secrets: Saved secrets, whose ``%NAME%`` get their values as the tool runs.
    """

    tool: Tool
    schema: Mapping[str, JsonValue]
    gate: Gate
    started: Callable[[], Awaitable[None]]
    progress: Callable[[str], None]
    secrets: Secrets

    async def run(self, arguments: dict[str, JsonValue]) -> CallOutcome:
        """Run the call (again with each change of its arguments, at most :data:`MAX_CHANGES`)."""
        changes = 0
        marked = approved = False
        by = "the approver"
        while True:
            try:
                context = await self.gate(arguments)
                if isinstance(context, ToolOutput):
                    return CallOutcome(context, arguments, marked, by)
                if not marked:
                    await self.started()
                    marked = True
                allowed = context.hook_allowed or approved  # the approver wrote the changed call
                context = context.for_call(progress=self.progress, hook_allowed=allowed)
                return CallOutcome(await self._invoke(arguments, context), arguments, marked, by)
            except ArgumentsChanged as change:
                changes += 1
                refusal = self._refusal(change, changes)
                if isinstance(refusal, str):
                    return CallOutcome(ToolOutput(refusal, is_error=True), arguments, marked, by)
                log.info("%s changed the arguments of %s", change.by, self.tool.name)
                arguments, approved, by = refusal, change.approved, change.by

    def _refusal(self, change: ArgumentsChanged, changes: int) -> dict[str, JsonValue] | str:
        """The changed arguments, or why the call does not run with them."""
        if changes > MAX_CHANGES:
            name = self.tool.name
            return f"{name} did not run: {change.by} changed its arguments more than {MAX_CHANGES} times"
        return change_problem(self.tool.name, change.arguments, self.schema, by=change.by)

    async def _invoke(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutput:
        name = self.tool.name
        try:
            return await self.tool.invoke(self.secrets.expand(arguments), context)
        except ToolError as exc:
            return ToolOutput(exc.message, is_error=True, shown=exc.shown)
        except (asyncio.CancelledError, ArgumentsChanged):
            raise
        except Exception as exc:
            log.exception("tool %s crashed", name)
            return ToolOutput(f"{name} failed: {type(exc).__name__}: {exc}", is_error=True)


__all__ = [
    "MAX_CHANGES",
    "ArgumentsChanged",
    "CallOutcome",
    "CallRun",
    "change_problem",
    "changed_note",
    "raise_if_changed",
]
