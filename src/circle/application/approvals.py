"""Approvers that need no person: everything allowed (--yolo, library default)."""

from __future__ import annotations

from .ports.approver import ApprovalDecision, ApprovalRequest


class AllowAll:
    """Nothing asks: every tool call may run."""

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=True)


class DenyChanges:
    """Refuses every change, saying how to allow it; for runs where no person can answer."""

    def __init__(self, hint: str) -> None:
        self.hint = hint

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=False, reason=f"no one can approve it here ({self.hint})")
