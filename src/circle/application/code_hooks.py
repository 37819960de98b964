"""Hooks written in Python (``circle.Agent(hooks=circle.Hooks(...))``), beside hooks.json's.

Each is a plain or async function of one argument: the event as a hooks.json hook reads it on
stdin (``session_id``, ``cwd``, ``hook_event_name``, ``permission_mode``, ``tool_name``,
``tool_input``, ``tool_response``, ``source``, ``stop_hook_active``, ``last_assistant_message``,
as :mod:`circle.application.hooks` describes). It runs with the hooks.json hooks of the same event,
at the same time, and their verdicts combine as several hooks' do (any deny denies, else any ask
asks, else any allow allows). It answers with:

- None: no opinion; a ``str``: text for the model (after a tool, at session start), no opinion;
- a :class:`HookResult`: ``decision`` allow, deny or ask, with its ``reason`` and ``context``, and
  before a tool, ``arguments`` to run the call with instead (as hooks.json's ``updatedInput``:
  checked against the tool's schema, then the changed call goes through every check again);
- a mapping in Claude Code's JSON shape (``{"hookSpecificOutput": {"permissionDecision": ...}}``,
  ``{"decision": "block", "reason": ...}``), read as a hooks.json hook's stdout is.

As with hooks.json, a deny before a tool blocks the call and its reason is what the model reads; an
ask goes to the approver; an allow skips asking but never gets past a deny rule or an
always-refused command. At Stop, deny means "not yet": the reason goes to the model and the turn
goes on. A hook that raises, answers something else or runs past ``timeout_s`` denies (fail closed)
and the reason says so.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from pydantic import JsonValue

from circle.domain.hooks import (
    DEFAULT_TIMEOUT_S,
    HookDecision,
    HookEvent,
    HookVerdict,
    failure,
    interpret_answer,
)

log = logging.getLogger("circle.hooks")


@dataclass(frozen=True, slots=True)
class HookResult:
    """A Python hook's answer.

    Attributes:
        decision: ``"allow"``, ``"deny"`` or ``"ask"``; None: no opinion. At Stop, ``"deny"``
            means "do not stop yet".
        reason: Why; a deny's reason is what the model reads.
        context: Text for the model (after a tool, at session start).
        arguments: Before a tool: run the call with these arguments instead (None: as they are).
    """

    decision: HookDecision | None = None
    reason: str = ""
    context: str = ""
    arguments: Mapping[str, JsonValue] | None = None


HookInput: TypeAlias = Mapping[str, JsonValue]
"""What a hook gets: the event as a hooks.json hook reads it on stdin."""
HookAnswer: TypeAlias = HookResult | Mapping[str, object] | str | None
HookFunction: TypeAlias = Callable[[HookInput], HookAnswer | Awaitable[HookAnswer]]
"""A plain or async function answering one event."""


@dataclass(frozen=True, slots=True)
class Hooks:
    """Python hooks, one function per event, run beside hooks.json's (see the module docstring).

    Example::

        def no_pushes(event):
            if "git push" in str(event["tool_input"].get("command", "")):
                return circle.HookResult("deny", "pushing waits for review")

        circle.Agent("repo", hooks=circle.Hooks(pre_tool_use=no_pushes))

    Attributes:
        pre_tool_use: Before a tool call runs: allow, deny (blocks it) or ask.
        post_tool_use: After a call ran: its text (or a deny's reason) goes to the model.
        stop: Before a turn ends: deny keeps the turn going, its reason given to the model.
        session_start: When a session starts: its text goes into the system prompt.
        timeout_s: How long an async hook may take before it counts as failed (denies).
    """

    pre_tool_use: HookFunction | None = None
    post_tool_use: HookFunction | None = None
    stop: HookFunction | None = None
    session_start: HookFunction | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    def on(self, event: HookEvent) -> HookFunction | None:
        """The function for ``event``, if one was given."""
        match event:
            case "PreToolUse":
                return self.pre_tool_use
            case "PostToolUse":
                return self.post_tool_use
            case "Stop":
                return self.stop
            case "SessionStart":
                return self.session_start


async def run_hook(
    function: HookFunction, message: HookInput, *, event: HookEvent, timeout_s: float
) -> HookVerdict:
    """What ``function`` decides of ``message`` (see the module docstring); it fails closed."""
    label = f"python {event} hook {getattr(function, '__qualname__', None) or type(function).__name__}"
    try:
        answer = function(message)
        if inspect.isawaitable(answer):
            answer = await asyncio.wait_for(answer, timeout_s)
    except asyncio.CancelledError:
        raise
    except TimeoutError:
        return failure(label, f"hook {label} timed out after {timeout_s:g} s")
    except Exception as exc:
        log.warning("hook %s raised", label, exc_info=True)
        return failure(label, f"hook {label} failed: {type(exc).__name__}: {exc}")
    return _verdict(label, answer, event=event)


def _verdict(label: str, answer: object, *, event: HookEvent) -> HookVerdict:
    if answer is None:
        return HookVerdict(hook=label)
    if isinstance(answer, str):
        return HookVerdict(context=answer.strip(), hook=label)
    if isinstance(answer, HookResult):
        if answer.decision not in (None, "allow", "deny", "ask"):
            return failure(label, f"hook {label} gave an unknown decision {answer.decision!r}")
        if answer.arguments is not None and event != "PreToolUse":
            return failure(label, f"hook {label} changed arguments at {event}, where there is no call")
        if answer.arguments is not None and not isinstance(answer.arguments, Mapping):
            return failure(label, f"hook {label} gave arguments Circle cannot use: {answer.arguments!r}")
        changed = (
            dict(answer.arguments) if answer.arguments is not None and answer.decision != "deny" else None
        )
        return HookVerdict(
            answer.decision, answer.reason.strip(), answer.context.strip(), hook=label, updated_input=changed
        )
    if isinstance(answer, Mapping):
        return interpret_answer(label, answer, event=event)
    return failure(label, f"hook {label} answered {answer!r}, not a circle.HookResult, a dict or a str")


__all__ = ["HookAnswer", "HookFunction", "HookInput", "HookResult", "Hooks", "run_hook"]
