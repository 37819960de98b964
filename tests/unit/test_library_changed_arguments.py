"""An approver that allows a call with changed arguments: the changed call is checked against the
tool's schema and judged by the policy again before it runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import circle
from circle.testing import Call, ScriptedModel, answer


def _touch_model(name: str = "asked") -> ScriptedModel:
    return ScriptedModel([answer("", Call("execute", {"command": f"touch {name}"})), answer("ok")])


def _changing(command: object) -> circle.Approver:
    class Changes:
        def __init__(self) -> None:
            self.seen: list[circle.ApprovalRequest] = []

        async def decide(self, request: circle.ApprovalRequest) -> circle.ApprovalDecision:
            self.seen.append(request)
            if request.arguments.get("command") == command:
                return circle.ApprovalDecision(allowed=True)
            return circle.ApprovalDecision(allowed=True, arguments={"command": command})  # type: ignore[dict-item]

    return Changes()


def _told(model: ScriptedModel) -> str:
    return model.requests[-1].messages[-1].text


async def test_the_call_runs_with_the_changed_arguments(tmp_path: Path) -> None:
    model = _touch_model()
    approver = _changing("touch changed")
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=approver) as agent:
        await agent.run("make it")
    assert (tmp_path / "changed").exists()
    assert not (tmp_path / "asked").exists()
    assert 'the approver changed the arguments: {"command": "touch changed"}' in _told(model)


async def test_the_approver_is_not_asked_again_about_the_call_it_wrote(tmp_path: Path) -> None:
    approver = _changing("touch changed")
    async with circle.Agent(tmp_path, model_client=_touch_model(), trust=True, approver=approver) as agent:
        await agent.run("make it")
    assert [r.arguments["command"] for r in approver.seen] == ["touch asked"]  # type: ignore[attr-defined]


async def test_a_changed_call_that_asks_in_every_mode_is_asked_about_again(tmp_path: Path) -> None:
    (tmp_path / ".circle").mkdir()
    approver = _changing("touch .circle/changed")
    async with circle.Agent(tmp_path, model_client=_touch_model(), trust=True, approver=approver) as agent:
        await agent.run("make it")
    asked = [(r.arguments["command"], r.always_ask) for r in approver.seen]  # type: ignore[attr-defined]
    assert asked == [("touch asked", False), ("touch .circle/changed", True)]
    assert (tmp_path / ".circle" / "changed").exists()


async def test_a_change_that_does_not_fit_the_schema_is_refused_with_a_message(tmp_path: Path) -> None:
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=_changing(5)) as agent:
        result = await agent.run("make it")
    assert result.answer == "ok"
    told = _told(model)
    assert "the approver changed the arguments of execute, but they do not fit its schema" in told
    assert "command: 5 is not of type 'string'" in told
    assert not (tmp_path / "asked").exists()


async def test_a_change_cannot_get_around_a_deny_rule(tmp_path: Path) -> None:
    home = Path(os.environ["CIRCLE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    rules = [{"tool": "execute", "pattern": "touch secret*", "effect": "deny"}]
    (home / "approvals.json").write_text(json.dumps(rules))
    model = _touch_model()
    async with circle.Agent(
        tmp_path, model_client=model, trust=True, approver=_changing("touch secret-file")
    ) as agent:
        await agent.run("make it")
    assert not (tmp_path / "secret-file").exists()
    assert not (tmp_path / "asked").exists()
    assert "approvals.json (execute 'touch secret*')" in _told(model)


async def test_a_change_cannot_get_around_an_always_refused_command(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    model = _touch_model()
    async with circle.Agent(
        tmp_path, model_client=model, trust=True, approver=_changing(f"rm -rf {victim} ~")
    ) as agent:
        await agent.run("make it")
    assert (victim / "keep").exists()
    assert "always refused" in _told(model)


async def test_an_approver_that_keeps_changing_the_call_is_refused_in_the_end(tmp_path: Path) -> None:
    class Grows:
        async def decide(self, request: circle.ApprovalRequest) -> circle.ApprovalDecision:
            return circle.ApprovalDecision(
                allowed=True, arguments={"command": f"{request.arguments['command']}x"}
            )

    (tmp_path / ".circle").mkdir()
    model = ScriptedModel([answer("", Call("execute", {"command": "touch .circle/a"})), answer("ok")])
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=Grows()) as agent:
        await agent.run("make it")
    assert list((tmp_path / ".circle").iterdir()) == []
    assert "the approver changed its arguments more than 3 times" in _told(model)


async def test_allow_for_the_session_with_changed_arguments_does_not_allow_the_call_as_asked(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        seen.append(str(request.arguments["command"]))
        if request.arguments["command"] == "touch asked":
            return circle.ApprovalDecision(
                allowed=True, remember=True, arguments={"command": "touch changed"}
            )
        return circle.ApprovalDecision(allowed=False, reason="no")

    model = ScriptedModel(
        [
            answer("", Call("execute", {"command": "touch asked"})),
            answer("", Call("execute", {"command": "touch asked"})),
            answer("ok"),
        ]
    )
    async with circle.Agent(tmp_path, model_client=model, trust=True, approver=approve) as agent:
        await agent.run("make it twice")
    assert seen == ["touch asked", "touch asked"], "the second call was asked about again"
    assert not (tmp_path / "asked").exists()
