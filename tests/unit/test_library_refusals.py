"""What a library call that cannot run tells the model and the program: the library's own way to
allow it, an approver's failure as one line, and why a call asks."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import circle
from circle.testing import Call, ScriptedModel, answer


def _model(*calls: Call) -> ScriptedModel:
    return ScriptedModel([answer("", call) for call in calls] + [answer("ok")])


def _told(model: ScriptedModel) -> str:
    """What the model was told of its last call."""
    return model.requests[-1].messages[-1].model_dump_json()


async def test_a_call_nobody_can_approve_names_the_library_s_own_settings(tmp_path: Path) -> None:
    model = _model(Call("execute", {"command": "touch made"}))
    async with circle.Agent(tmp_path, model_client=model, trust=True) as agent:
        await agent.run("make it")
    told = _told(model)
    assert not (tmp_path / "made").exists()
    assert "approver=" in told and "approval_mode=" in told
    assert "--yolo" not in told and "--approval-mode" not in told


async def test_a_fetch_nobody_can_approve_names_the_library_s_own_settings(tmp_path: Path) -> None:
    model = _model(Call("webfetch", {"url": "https://1.1.1.1/page"}))
    async with circle.Agent(tmp_path, model_client=model, trust=True) as agent:
        await agent.run("fetch it")
    told = _told(model)
    assert "approval_mode='auto'" in told
    assert "--yolo" not in told and "--approval-mode" not in told


async def test_an_approver_that_raises_refuses_the_call_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        raise RuntimeError("approver bug")

    model = _model(Call("execute", {"command": "touch made"}))
    with caplog.at_level(logging.DEBUG, logger="circle"):
        async with circle.Agent(tmp_path, model_client=model, trust=True, approver=approve) as agent:
            await agent.run("make it")
    told = _told(model)
    assert not (tmp_path / "made").exists()
    assert "the approver failed: RuntimeError: approver bug; the call did not run" in told
    assert "execute failed" not in told
    assert "Traceback" not in capsys.readouterr().err
    assert any(r.exc_info and "approver bug" in str(r.exc_info[1]) for r in caplog.records)


async def test_an_ordinary_ask_says_why_it_asks(tmp_path: Path) -> None:
    asked: list[circle.ApprovalRequest] = []

    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        asked.append(request)
        return circle.ApprovalDecision(allowed=False, reason="no")

    model = _model(
        Call("execute", {"command": "touch made"}),
        Call("write_file", {"file_path": "a.txt", "content": "x"}),
    )
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=approve) as agent:
        await agent.run("make it")
    reasons = [request.ask_reason for request in asked]
    assert reasons[0] == "execute changes files: default mode asks before commands that are not read-only"
    assert reasons[1] == "write_file changes a file: default mode asks before every change"
