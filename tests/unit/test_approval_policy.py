"""The approval policy: rules, mode, hooks and the person, in the documented order."""

from __future__ import annotations

import pytest

from circle.application.approvals import ApprovalMode, ApprovalPolicy
from circle.application.ports.approver import ApprovalDecision, ApprovalKind, ApprovalRequest
from circle.domain.approval_rules import Rule
from circle.testing import ScriptedApprover


def request(
    tool: str = "execute",
    kind: ApprovalKind = "execute",
    subject: str = "make",
    *,
    safe: bool = False,
    outside: bool = False,
    always_ask: bool = False,
    hook_allowed: bool = False,
) -> ApprovalRequest:
    return ApprovalRequest(
        tool_name=tool,
        kind=kind,
        summary=subject,
        workspace="/w",
        subject=subject,
        outside_workspace=outside,
        always_ask=always_ask,
        safe=safe,
        hook_allowed=hook_allowed,
    )


EDIT = {"tool": "write_file", "kind": "edit", "subject": "src/a.py"}

# mode, request, rules (layer -> rules), expected: "allow" | "deny" | "ask"
CASES: list[tuple[ApprovalMode, dict[str, object], dict[str, list[Rule]], str]] = [
    ("default", {}, {}, "ask"),
    ("default", {"safe": True}, {}, "allow"),
    ("default", EDIT, {}, "ask"),
    ("accept-edits", EDIT, {}, "allow"),
    ("accept-edits", {**EDIT, "outside": True}, {}, "ask"),
    ("accept-edits", {}, {}, "ask"),
    ("read-only", EDIT, {}, "deny"),
    ("read-only", {}, {}, "deny"),
    ("read-only", {"safe": True}, {}, "allow"),
    ("auto", {}, {}, "allow"),
    ("auto", {**EDIT, "outside": True}, {}, "allow"),
    ("auto", {**EDIT, "always_ask": True}, {}, "ask"),
    ("auto", {}, {"user": [Rule("execute", "make*", "deny")]}, "deny"),
    ("default", {}, {"user": [Rule("execute", "make", "allow")]}, "allow"),
    (
        "default",
        {},
        {"user": [Rule("execute", "*", "ask")], "session": [Rule("execute", "*", "allow")]},
        "ask",
    ),
    ("default", {}, {"project": [Rule("execute", "*", "allow")]}, "ask"),
    ("auto", {}, {"project": [Rule("execute", "make", "deny")]}, "deny"),
    ("default", {"hook_allowed": True}, {}, "allow"),
    ("default", {"hook_allowed": True}, {"user": [Rule("*", "*", "deny")]}, "deny"),
    ("default", {**EDIT, "always_ask": True, "hook_allowed": True}, {}, "ask"),
    ("read-only", {"hook_allowed": True}, {}, "deny"),
]


@pytest.mark.parametrize(("mode", "fields", "layers", "expected"), CASES)
async def test_policy_table(
    mode: ApprovalMode, fields: dict[str, object], layers: dict[str, list[Rule]], expected: str
) -> None:
    person = ScriptedApprover(allow={"execute", "write_file"})
    policy = ApprovalPolicy(mode, layers, person=person)  # type: ignore[arg-type]
    decision = await policy.decide(request(**fields))  # type: ignore[arg-type]
    asked = bool(person.requests)
    outcome = "ask" if asked else ("allow" if decision.allowed else "deny")
    assert outcome == expected, decision.reason


async def test_nobody_to_ask_refuses_and_says_how_to_allow() -> None:
    decision = await ApprovalPolicy("default", person=None).decide(request())
    assert not decision.allowed
    assert "execute asks in default mode" in decision.reason and "--yolo" in decision.reason


async def test_a_deny_rule_names_its_layer() -> None:
    policy = ApprovalPolicy("auto", {"user": [Rule("execute", "make*", "deny")]})
    decision = await policy.decide(request())
    assert "denied by" in decision.reason and "make*" in decision.reason


async def test_allow_for_this_session_becomes_a_session_rule() -> None:
    class Remembering:
        def __init__(self) -> None:
            self.asked = 0

        async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
            self.asked += 1
            return ApprovalDecision(allowed=True, remember=True)

    person = Remembering()
    policy = ApprovalPolicy("default", person=person)
    assert (await policy.decide(request(subject="make test"))).allowed
    assert (await policy.decide(request(subject="make test"))).allowed
    assert person.asked == 1
    await policy.decide(request(subject="make other"))
    assert person.asked == 2
