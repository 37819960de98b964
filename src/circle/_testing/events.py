"""Fakes of the EventSink and Approver ports, recording what they saw."""

from __future__ import annotations

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
    """Answers approvals from a fixed set of allowed tool names, recording every request."""

    def __init__(self, allow: Iterable[str] = ()) -> None:
        self.allow = set(allow)
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        if request.tool_name in self.allow:
            return ApprovalDecision(allowed=True)
        return ApprovalDecision(allowed=False, reason="scripted refusal")
