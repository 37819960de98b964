"""A deny rule holds for every spelling of the command it names: the end of options, other
spellings of the same path, quoting, option order and abbreviation. Allow rules match no more
than they did, and a form that cannot be read before it runs asks."""

from __future__ import annotations

import asyncio

import pytest

from circle.application.approvals import ApprovalMode, ApprovalPolicy
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.domain.approval_rules import Effect, Rule, command_subjects
from circle.domain.approvals import classify_command

WORKSPACE = "/home/victim/project"
HOME = "/home/victim"


def decide(command: str, rules: list[Rule], *, mode: ApprovalMode = "auto") -> ApprovalDecision:
    """What the policy says of ``command`` as the execute tool asks it, nobody there to answer."""
    verdict = classify_command(command, workspace=WORKSPACE, home=HOME)
    request = ApprovalRequest(
        tool_name="execute",
        kind="execute",
        summary=command,
        workspace=WORKSPACE,
        subject=command,
        subjects=command_subjects(verdict.words) or (command,),
        resolved=command_subjects(verdict.resolved),
        safe=verdict.kind == "safe",
    )
    return asyncio.run(ApprovalPolicy(mode, {"user": rules}).decide(request))


def rule(pattern: str, effect: Effect = "deny") -> Rule:
    return Rule(tool="execute", pattern=pattern, effect=effect)


TOUCH_SECRET = [
    "touch secretA",
    "touch -- secretG",
    "touch ./secretC",
    "touch .//secretC",
    "touch ././secretC",
    "touch sub/../secretH",
    "touch sub/./../secretH",
    f"touch {WORKSPACE}/secretI",
    f"touch {WORKSPACE}//./secretI",
    "touch /home/victim/../victim/project/secretI",
    "touch ../project/secretJ",
    "touch -- ./secretK",
    "touch './secretL'",
    'touch "./"secretL',
    r"touch \./secretL",
    "command touch -- ./secretM",
    "env X=1 touch ./secretN",
    "/usr/bin/touch ./secretO",
    "bash -c 'touch -- ./secretP'",
    "true && touch ./secretQ",
    "touch ok; touch ./secretR",
    "cd sub && touch ../secretS",
    "cd .. && touch project/secretS",
    "cd /tmp && touch /home/victim/project/secretS",
    "(cd sub/deeper && touch ../../secretS)",
    "touch ~/project/secretT",
    "touch $HOME/project/secretT",
    'touch "$PWD/secretT"',
    "touch ~victim/project/secretT",
]


@pytest.mark.parametrize("command", TOUCH_SECRET)
def test_a_deny_rule_holds_for_every_spelling_of_the_path(command: str) -> None:
    decision = decide(command, [rule("touch secret*")])
    assert not decision.allowed
    assert "denied by your approvals.json" in decision.reason


@pytest.mark.parametrize(
    "command", ["T=touch; $T ./secret8", "xargs touch <<< secretD", 'cd "$D" && touch ../secretU']
)
def test_a_form_not_known_before_it_runs_still_does_not_run(command: str) -> None:
    assert not decide(command, [rule("touch secret*")]).allowed


RM_BUILD = [
    "rm -rf build",
    "rm -fr build",
    "rm -r -f build",
    "rm -f -r build",
    "rm --recursive --force build",
    "rm --force --recursive ./build",
    "rm --recu --forc build",
    "rm -r build -f",
    "rm -R -f build/",
    "rm -rf -- ./build",
]


@pytest.mark.parametrize("command", RM_BUILD)
def test_a_deny_rule_holds_for_option_order_and_abbreviation(command: str) -> None:
    decision = decide(command, [rule("rm -rf build*")])
    assert not decision.allowed
    assert "denied by your approvals.json" in decision.reason


@pytest.mark.parametrize("pattern", ["touch ./secret*", f"touch {WORKSPACE}/secret*", "touch -- secret*"])
def test_a_deny_rule_written_with_another_spelling_holds_for_the_plain_one(pattern: str) -> None:
    assert not decide("touch secretZ", [rule(pattern)]).allowed


@pytest.mark.parametrize("command", ["touch -- ./secretA", "rm -fr ./build"])
def test_an_ask_rule_holds_for_every_spelling_too(command: str) -> None:
    decision = decide(command, [rule("touch secret*", "ask"), rule("rm -rf build*", "ask")])
    assert not decision.allowed
    assert "needs approval by your approvals.json" in decision.reason


@pytest.mark.parametrize("command", ["touch secretless-name-elsewhere", "touch -c secretA", "touch other"])
def test_a_deny_rule_does_not_reach_other_commands(command: str) -> None:
    expected = not command.startswith("touch secret")
    assert decide(command, [rule("touch secret*")]).allowed is expected


@pytest.mark.parametrize(
    ("pattern", "command", "allowed"),
    [
        ("touch ./build*", "touch ./build/x", True),
        ("touch build*", "touch build/x", True),
        ("touch build*", "touch ./build/x", False),
        ("touch build*", "touch -- build/x", False),
        ("rm -rf build*", "rm -fr build", False),
        ("rm -rf build*", "rm -rf build", True),
    ],
)
def test_an_allow_rule_matches_only_what_it_matched(pattern: str, command: str, allowed: bool) -> None:
    assert decide(command, [rule(pattern, "allow")], mode="default").allowed is allowed
