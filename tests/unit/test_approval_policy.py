"""The approval policy: rules, mode, hooks and the person, in the documented order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from circle.application.approvals import ApprovalMode, ApprovalPolicy
from circle.application.ports.approver import ApprovalDecision, ApprovalKind, ApprovalRequest
from circle.domain.approval_rules import Rule, RuleLayer, command_subjects
from circle.domain.approvals import classify_command
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


def command(text: str, *, parts: bool = True, hook_allowed: bool = False) -> ApprovalRequest:
    """An execute request as the execute tool makes it: the line, and its parts when ``parts``."""
    verdict = classify_command(text, workspace="/w", home="/h")
    return ApprovalRequest(
        tool_name="execute",
        kind="execute",
        summary=text,
        workspace="/w",
        subject=text,
        subjects=command_subjects(verdict.words) if parts else (),
        hook_allowed=hook_allowed,
    )


DISGUISED_PUSHES = [
    "cd . && git push",
    "git  push",
    "command git push",
    "git -c x.y=1 push",
    '"git" push',
    r"git p\ush",
    "/usr/bin/git push",
]


@pytest.mark.parametrize("parts", [True, False], ids=["parts-given", "parts-computed"])
@pytest.mark.parametrize("text", DISGUISED_PUSHES)
async def test_a_deny_rule_stops_a_disguised_command_even_in_auto_mode(text: str, parts: bool) -> None:
    person = ScriptedApprover(allow={"execute"})
    policy = ApprovalPolicy("auto", {"user": [Rule("execute", "git push*", "deny")]}, person=person)
    decision = await policy.decide(command(text, parts=parts))
    assert not decision.allowed and "git push*" in decision.reason
    assert person.requests == []


@pytest.mark.parametrize("parts", [True, False], ids=["parts-given", "parts-computed"])
async def test_an_allow_rule_does_not_allow_what_follows_the_command_it_names(parts: bool) -> None:
    person = ScriptedApprover()
    policy = ApprovalPolicy("default", {"user": [Rule("execute", "git status*", "allow")]}, person=person)
    assert (await policy.decide(command("git status -s", parts=parts))).allowed
    assert person.requests == []
    decision = await policy.decide(command("git status && touch ../outside/x", parts=parts))
    assert not decision.allowed
    assert [r.subject for r in person.requests] == ["git status && touch ../outside/x"]


async def test_allow_for_this_session_remembers_the_exact_command_line() -> None:
    class Remembering:
        def __init__(self) -> None:
            self.asked: list[str] = []

        async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
            self.asked.append(request.subject)
            return ApprovalDecision(allowed=True, remember=True)

    person = Remembering()
    policy = ApprovalPolicy("default", person=person)
    line = "git status && touch x"
    assert (await policy.decide(command(line))).allowed
    assert (await policy.decide(command(line))).allowed
    assert person.asked == [line]
    await policy.decide(command("git status && touch y"))
    await policy.decide(command("git status"))
    assert person.asked == [line, "git status && touch y", "git status"]


@pytest.mark.parametrize("text", ["$X push", "$(echo git) push", "git $(cat verb)", "g${X}it push"])
async def test_a_command_not_known_statically_asks_where_a_deny_rule_could_match(text: str) -> None:
    layers: dict[RuleLayer, list[Rule]] = {
        "user": [Rule("execute", "git push*", "deny"), Rule("execute", "*", "allow")]
    }
    person = ScriptedApprover(allow={"execute"})
    assert (
        await ApprovalPolicy("auto", layers, person=person).decide(command(text, hook_allowed=True))
    ).allowed
    assert [r.subject for r in person.requests] == [text]
    refused = await ApprovalPolicy("auto", layers, person=None).decide(command(text))
    assert not refused.allowed
    assert refused.reason.startswith("a deny rule might match what this command runs")
    assert "--yolo" not in refused.reason


async def test_a_command_not_known_statically_runs_where_no_rule_could_match() -> None:
    layers: dict[RuleLayer, list[Rule]] = {"user": [Rule("execute", "git push*", "deny")]}
    assert (await ApprovalPolicy("auto", layers).decide(command("echo $HOME"))).allowed
    assert (await ApprovalPolicy("auto", {}).decide(command("$X push"))).allowed


async def test_a_patch_is_still_judged_by_each_of_its_paths() -> None:
    rules: dict[RuleLayer, list[Rule]] = {"user": [Rule("apply_patch", "secrets/*", "deny")]}
    patch = ApprovalRequest(
        tool_name="apply_patch", kind="edit", summary="patch", workspace="/w", subjects=("a.py", "secrets/k")
    )
    decision = await ApprovalPolicy("auto", rules).decide(patch)
    assert not decision.allowed and "secrets/*" in decision.reason
    assert (await ApprovalPolicy("auto", rules).decide(replace(patch, subjects=("a.py",)))).allowed
