"""Which tool calls were stopped while their approval waited for an answer: they never ran.

A tool asks before it changes anything (:meth:`~.tools.base.ToolContext.approve`), and a
PreToolUse hook's ask comes before the tool starts, so a call whose approval was still waiting
when the turn was cancelled did nothing: its result says it was not run, not that it was
interrupted (:data:`~circle.domain.messages.UNANSWERED_RESULT`). The agent loop gives each call's
context a :class:`WatchedApprover` around the session's approver (:meth:`WatchedApprover.around`);
the calls it saw stopped are in its ``stopped`` set, by the id of the call that asked. A subagent's
loop watches its own calls around the same approver, not around its parent's watch, so the
``task`` call that started it, which was running, stays interrupted.

A Circle killed at the card (SIGKILL) records nothing on its way out: the approval policy tells
the running call's log as it asks the person (:func:`note_asking`, through :data:`PERSON_ASKED`,
which the loop sets around each call), so the session reopened says the call was not run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass

from circle.domain.messages import INTERRUPTED_RESULT, UNANSWERED_RESULT, UNANSWERED_SHOWN, ToolCallPart

from .events import ToolExecutionEnded
from .ports.approver import ApprovalDecision, ApprovalRequest, Approver


@dataclass(frozen=True, slots=True)
class WatchedApprover:
    """An :class:`Approver` that asks ``inner`` and notes the calls stopped while it waited.

    Attributes:
        inner: The session's approver.
        stopped: Where the id of a call whose ``decide`` was cancelled goes (shared with the loop).
        current: The id of the call asking now (the loop's ``CURRENT_CALL``); None outside a call.
    """

    inner: Approver
    stopped: set[str]
    current: Callable[[], str | None]

    @classmethod
    def around(
        cls, approver: Approver, stopped: set[str], current: Callable[[], str | None]
    ) -> WatchedApprover:
        """A watch around ``approver``, or around what it watches when it is a watch itself (a
        subagent's context has its parent's): each loop's watch sees its own calls only."""
        while isinstance(approver, WatchedApprover):
            approver = approver.inner
        return cls(approver, stopped, current)

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        call = self.current()
        try:
            return await self.inner.decide(request)
        except asyncio.CancelledError:
            if call is not None:
                self.stopped.add(call)
            raise


PERSON_ASKED: ContextVar[Callable[[bool], Awaitable[None]] | None] = ContextVar(
    "circle_person_asked", default=None
)
"""How the running call tells its log (the loop's, around each call): True as its approval goes to
the person, False once they allowed it (it runs now)."""


async def note_asking(waiting: bool) -> None:
    """The running call's approval goes to the person (``waiting``), or they allowed it: its call
    log marks it ``asking`` (reopened after a kill, it reads as not run), or ``started`` again."""
    mark = PERSON_ASKED.get()
    if mark is not None:
        await mark(waiting)


def stopped_end(call: ToolCallPart, *, waited: bool) -> ToolExecutionEnded:
    """How a call stopped by a cancelled turn ends: not run when its approval still ``waited``
    (an error's end, as a denied call's), else interrupted (``aborted``: it was running)."""
    if waited:
        return ToolExecutionEnded(
            tool_call_id=call.id,
            tool_name=call.name,
            result=UNANSWERED_RESULT,
            is_error=True,
            shown=UNANSWERED_SHOWN,
        )
    return ToolExecutionEnded(
        tool_call_id=call.id, tool_name=call.name, result=INTERRUPTED_RESULT, is_error=True, aborted=True
    )


__all__ = ["PERSON_ASKED", "WatchedApprover", "note_asking", "stopped_end"]
