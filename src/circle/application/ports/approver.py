"""Approver: asks the person whether a tool call may run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

ApprovalKind = Literal["edit", "execute", "other"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    tool_name: str
    kind: ApprovalKind
    summary: str
    workspace: str


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    allowed: bool
    reason: str = ""


class Approver(Protocol):
    async def decide(self, request: ApprovalRequest) -> ApprovalDecision: ...
