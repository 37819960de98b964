"""What hooks are told as ``permission_mode``: the session's mode as it is at each event."""

from __future__ import annotations

from circle.application.approvals import AllowAll, ApprovalPolicy, PlanMode, hook_mode


def test_the_mode_is_read_at_each_event_in_claude_codes_names() -> None:
    policy = ApprovalPolicy("default", {})
    plan = PlanMode(policy=policy)
    mode = hook_mode(policy, plan)
    assert mode() == "default"
    for circle_mode, claude in (
        ("accept-edits", "acceptEdits"),
        ("auto", "bypassPermissions"),
        ("read-only", "readOnly"),
    ):
        policy.mode = circle_mode  # type: ignore[assignment]
        assert mode() == claude
    plan.enter()
    assert mode() == "plan"
    plan.leave("accept-edits")
    assert mode() == "acceptEdits"


def test_an_approver_that_allows_everything_is_bypass_permissions() -> None:
    assert hook_mode(AllowAll(), PlanMode())() == "bypassPermissions"
