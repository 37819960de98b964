"""Fakes of the EventSink and Approver ports, recording what they saw."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from circle.application.events import AgentEvent
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest


class RecordingSink:
    """Keeps every event it is given, in order."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def emit(self, event: AgentEvent) -> None:
        self.events.append(event)

    def of(self, kind: type[AgentEvent]) -> list[AgentEvent]:
        return [e for e in self.events if isinstance(e, kind)]


class ScriptedApprover:
    """An approver for tests: it records every request in ``requests`` and answers it.

    ``decisions`` are played in order, one per request (a bool stands for allow or deny); once they
    run out, or with none given, a call is allowed when its tool is in ``allow`` and denied with
    "scripted refusal" otherwise.

    Example::

        approver = ScriptedApprover(decisions=[True, ApprovalDecision(allowed=False, reason="no")])
    """

    def __init__(
        self, allow: Iterable[str] = (), *, decisions: Iterable[ApprovalDecision | bool] = ()
    ) -> None:
        self.allow = set(allow)
        self.decisions = deque(decisions)
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        if self.decisions:
            decision = self.decisions.popleft()
            if isinstance(decision, bool):
                return ApprovalDecision(allowed=decision, reason="" if decision else "scripted refusal")
            return decision
        if request.tool_name in self.allow:
            return ApprovalDecision(allowed=True)
        return ApprovalDecision(allowed=False, reason="scripted refusal")
