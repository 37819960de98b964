"""A hook or an approver that changes a call's arguments into something not a dict: the call does
not run, the turn goes on, and the model is told why in a line (not a Python error)."""

from __future__ import annotations

from pathlib import Path

import pytest

import circle
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer

JUNK = ["touch junk", ["touch", "junk"], 5]


def _model() -> ScriptedModel:
    return ScriptedModel([answer("", Call("execute", {"command": "touch asked"})), answer("ok")])


def _told(model: ScriptedModel) -> str:
    return model.requests[-1].messages[-1].text


@pytest.mark.parametrize("junk", JUNK)
async def test_a_python_hook_whose_arguments_are_not_a_dict_blocks_the_call(
    tmp_path: Path, junk: object
) -> None:
    def change(event: circle.HookInput) -> circle.HookResult:
        return circle.HookResult(arguments=junk)  # type: ignore[arg-type]

    model = _model()
    hooks = circle.Hooks(pre_tool_use=change)
    async with circle.Agent(
        tmp_path,
        model_client=model,
        store=InMemorySessionStore(),
        trust=True,
        approval_mode="auto",
        hooks=hooks,
    ) as agent:
        result = await agent.run("make it")
    assert result.answer == "ok"
    assert f"gave arguments Circle cannot use: {junk!r}" in _told(model)
    assert not (tmp_path / "asked").exists()
    assert not (tmp_path / "junk").exists()


@pytest.mark.parametrize("junk", JUNK)
async def test_an_approver_whose_arguments_are_not_a_dict_is_refused(tmp_path: Path, junk: object) -> None:
    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        return circle.ApprovalDecision(allowed=True, arguments=junk)  # type: ignore[arg-type]

    model = _model()
    async with circle.Agent(
        tmp_path, model_client=model, store=InMemorySessionStore(), trust=True, approver=approve
    ) as agent:
        result = await agent.run("make it")
    assert result.answer == "ok"
    assert f"the approver answered with arguments Circle cannot use: {junk!r}" in _told(model)
    assert not (tmp_path / "asked").exists()
    assert not (tmp_path / "junk").exists()
