"""What a library user may pass as ``approver=``: an :class:`Approver`, or an async function."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

from circle.application.approvals import AllowHints
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest, Approver

ApproverFunction = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]
"""An async function answering one :class:`ApprovalRequest`."""
ApproverLike = Approver | ApproverFunction
NOT_AN_APPROVER = (
    "approver must be an async function taking a circle.ApprovalRequest, or an object with an "
    "async decide(request) method (a circle.Approver); got {!r}"
)
log = logging.getLogger("circle")
LIBRARY_HINTS = AllowHints(
    modes="approver= (a function that answers), approval_mode='accept-edits' or 'auto'",
    auto="approval_mode='auto'",
    person="an approver= that answers",
)
"""How a library agent's refusals say the person could allow a call: its own arguments."""


class _Checked:
    """The caller's approver, its answer held to an :class:`ApprovalDecision`: anything else, or
    an exception, refuses the call (the model reads why in one line; the traceback goes to the
    log at debug level) rather than let it run."""

    def __init__(self, decide: ApproverFunction, name: str) -> None:
        self._decide = decide
        self._name = name

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        try:
            decision: object = await self._decide(request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            said = f"{type(exc).__name__}: {exc}"
            log.warning("the approver %s failed (%s); the call did not run", self._name, said)
            log.debug("the approver %s raised", self._name, exc_info=True)
            return ApprovalDecision(
                allowed=False, reason=f"the approver failed: {said}; the call did not run"
            )
        if isinstance(decision, ApprovalDecision):
            changed = decision.arguments
            if decision.allowed and changed is not None and not isinstance(changed, Mapping):
                reason = f"the approver answered with arguments Circle cannot use: {changed!r}"
                return ApprovalDecision(allowed=False, reason=reason)
            return decision
        log.warning("the approver %s answered %r, not a circle.ApprovalDecision", self._name, decision)
        return ApprovalDecision(
            allowed=False, reason=f"the approver answered {decision!r}, not an ApprovalDecision"
        )


def as_approver(approver: ApproverLike | None) -> Approver | None:
    """``approver`` as an :class:`Approver`; None stays None (nobody can answer).

    Raises:
        TypeError: it is neither an object with an async ``decide`` nor an async function.
    """
    if approver is None:
        return None
    decide = getattr(approver, "decide", None)
    if decide is not None and inspect.iscoroutinefunction(decide):
        return _Checked(cast(ApproverFunction, decide), type(approver).__name__)
    if inspect.iscoroutinefunction(approver) or (
        callable(approver) and inspect.iscoroutinefunction(type(approver).__call__)  # an async __call__
    ):
        return _Checked(cast(ApproverFunction, approver), getattr(approver, "__name__", "function"))
    raise TypeError(NOT_AN_APPROVER.format(approver))


__all__ = ["LIBRARY_HINTS", "ApproverFunction", "ApproverLike", "as_approver"]
