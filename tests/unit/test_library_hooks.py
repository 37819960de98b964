"""Python hooks (`circle.Hooks`) beside hooks.json's, with the same semantics."""

from __future__ import annotations

import json
import os
from pathlib import Path

import circle
from circle.testing import Call, ScriptedModel, answer


def _touch_model(name: str = "made") -> ScriptedModel:
    return ScriptedModel([answer("", Call("execute", {"command": f"touch {name}"})), answer("ok")])


def _told(model: ScriptedModel) -> str:
    return model.requests[-1].messages[-1].text


async def test_a_python_pre_tool_use_hook_blocks_a_call_with_a_reason_the_model_reads(tmp_path: Path) -> None:
    seen: list[circle.HookInput] = []

    def guard(event: circle.HookInput) -> circle.HookResult:
        seen.append(event)
        return circle.HookResult("deny", "no touching today")

    model = _touch_model()
    hooks = circle.Hooks(pre_tool_use=guard)
    async with circle.Agent(
        tmp_path, model_client=model, trust=True, approval_mode="auto", hooks=hooks
    ) as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()
    assert "no touching today" in _told(model)
    assert seen[0]["tool_name"] == "execute"
    assert seen[0]["tool_input"] == {"command": "touch made"}
    assert seen[0]["hook_event_name"] == "PreToolUse"


async def test_hooks_json_hooks_still_run_beside_a_python_hook(tmp_path: Path) -> None:
    ran = tmp_path / "json-hook-ran"
    config = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"touch {ran}"}]}]
        }
    }
    home = Path(os.environ["CIRCLE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "hooks.json").write_text(json.dumps(config))
    calls: list[str] = []

    async def watch(event: circle.HookInput) -> None:
        calls.append(str(event["tool_name"]))

    hooks = circle.Hooks(pre_tool_use=watch)
    async with circle.Agent(
        tmp_path, model_client=_touch_model(), trust=True, approval_mode="auto", hooks=hooks
    ) as agent:
        await agent.run("make it")
    assert ran.exists()
    assert calls == ["execute"]
    assert (tmp_path / "made").exists()


async def test_a_claude_code_shaped_answer_and_a_raising_hook_deny(tmp_path: Path) -> None:
    def claude_shape(event: circle.HookInput) -> dict[str, object]:
        return {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "shaped"}}

    model = _touch_model()
    async with circle.Agent(
        tmp_path,
        model_client=model,
        trust=True,
        approval_mode="auto",
        hooks=circle.Hooks(pre_tool_use=claude_shape),
    ) as agent:
        await agent.run("make it")
    assert "shaped" in _told(model)

    def broken(event: circle.HookInput) -> None:
        raise RuntimeError("the hook broke")

    model = _touch_model()
    async with circle.Agent(
        tmp_path,
        model_client=model,
        trust=True,
        approval_mode="auto",
        hooks=circle.Hooks(pre_tool_use=broken),
    ) as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()
    assert "RuntimeError: the hook broke" in _told(model)


async def test_a_stop_hook_makes_the_turn_go_on_and_post_and_start_hooks_speak(tmp_path: Path) -> None:
    stops: list[bool] = []

    def stop(event: circle.HookInput) -> circle.HookResult | None:
        stops.append(bool(event["stop_hook_active"]))
        return None if stops[1:] else circle.HookResult("deny", "run the tests first")

    model = ScriptedModel([answer("", Call("ls", {})), answer("done"), answer("tested")])
    hooks = circle.Hooks(
        stop=stop,
        post_tool_use=lambda event: f"seen {event['tool_name']}",
        session_start=lambda event: "the project uses tabs",
    )
    async with circle.Agent(tmp_path, model_client=model, trust=True, hooks=hooks) as agent:
        result = await agent.run("go")
    assert result.answer == "tested"
    assert stops == [False, True]
    assert "[Stop hook] run the tests first" in model.requests[2].messages[-1].text
    assert "[PostToolUse hook] seen ls" in model.requests[1].messages[-1].text
    assert "the project uses tabs" in (model.requests[0].system or "")


async def test_a_hooks_json_updated_input_runs_the_changed_call_judged_again(tmp_path: Path) -> None:
    """Claude Code's updatedInput: the call runs as changed, and a deny rule still stops a change."""
    home = Path(os.environ["CIRCLE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    answer_json = json.dumps({"hookSpecificOutput": {"updatedInput": {"command": "touch changed"}}})
    hook = {"type": "command", "command": f"echo '{answer_json}'"}
    (home / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert (tmp_path / "changed").exists() and not (tmp_path / "made").exists()
    assert '(a PreToolUse hook changed the arguments: {"command": "touch changed"})' in _told(model)

    (home / "approvals.json").write_text(
        json.dumps([{"tool": "execute", "pattern": "touch ch*", "effect": "deny"}])
    )
    (tmp_path / "changed").unlink()
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert not (tmp_path / "changed").exists() and not (tmp_path / "made").exists()
    assert "approvals.json (execute 'touch ch*')" in _told(model)


async def test_a_python_hooks_changed_arguments_are_not_taken_as_approved(tmp_path: Path) -> None:
    def quieter(event: circle.HookInput) -> circle.HookResult:
        return circle.HookResult(arguments={"command": "touch quiet"})

    seen: list[object] = []

    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        seen.append(request.arguments["command"])
        return circle.ApprovalDecision(allowed=False, reason="not now")

    model = _touch_model()
    hooks = circle.Hooks(pre_tool_use=quieter)
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=approve, hooks=hooks) as agent:
        await agent.run("make it")
    assert seen == ["touch quiet"], "the approver is asked about the changed call"
    assert list(tmp_path.iterdir()) == []
    assert "not now" in _told(model)
