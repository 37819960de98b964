"""`circle.Agent` under the person's own safety settings: trust, approvals.json, hooks.json, the
approval mode, thinking, and what closing the agent stops."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import circle
from circle._testing.processes import line_written, process_alive, process_gone_async, wait_until_async
from circle.adapters.lsp.servers import find_program
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer


def _home() -> Path:
    return Path(os.environ["CIRCLE_HOME"])


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def _touch_model(name: str = "made") -> ScriptedModel:
    return ScriptedModel([answer("", Call("execute", {"command": f"touch {name}"})), answer("ok")])


def _last_tool_text(model: ScriptedModel) -> str:
    """What the model was told of its last call (the tool result, as JSON)."""
    return model.requests[-1].messages[-1].model_dump_json()


async def test_a_deny_rule_in_approvals_json_stops_a_library_call_even_in_auto_mode(
    tmp_path: Path,
) -> None:
    _write_json(_home() / "approvals.json", [{"tool": "execute", "pattern": "touch*", "effect": "deny"}])
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()
    assert "approvals.json (execute 'touch*')" in _last_tool_text(model)


async def test_a_pre_tool_use_hook_that_exits_2_blocks_a_library_call(tmp_path: Path) -> None:
    ran = tmp_path / "hook-ran"
    command = f"touch {ran}; echo 'not here' >&2; exit 2"
    hooks = {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}
    }
    _write_json(_home() / "hooks.json", hooks)
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert ran.exists(), "the person's hook ran"
    assert not (tmp_path / "made").exists()
    assert "not here" in _last_tool_text(model)


async def test_without_an_approver_a_call_that_asks_is_refused_as_in_print_mode(tmp_path: Path) -> None:
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True) as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()
    assert "nobody can answer" in _last_tool_text(model)


async def test_auto_mode_lets_the_call_run(tmp_path: Path) -> None:
    async with circle.Agent(tmp_path, model_client=_touch_model(), trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert (tmp_path / "made").exists()


async def test_the_approval_mode_in_settings_json_applies(tmp_path: Path) -> None:
    _write_json(_home() / "settings.json", {"approval_mode": "auto"})
    async with circle.Agent(tmp_path, model_client=_touch_model(), trust=True) as agent:
        await agent.run("make it")
    assert (tmp_path / "made").exists()


async def test_an_async_function_approver_sees_the_calls_arguments(tmp_path: Path) -> None:
    seen: list[circle.ApprovalRequest] = []

    async def approve(request: circle.ApprovalRequest) -> circle.ApprovalDecision:
        seen.append(request)
        return circle.ApprovalDecision(allowed=True)

    async with circle.Agent(tmp_path, model_client=_touch_model(), trust=True, approver=approve) as agent:
        await agent.run("make it")
    assert (tmp_path / "made").exists()
    assert [(r.summary, dict(r.arguments)) for r in seen] == [("touch made", {"command": "touch made"})]


def test_an_approver_that_cannot_decide_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="approver"):
        circle.Agent(tmp_path, model_client=ScriptedModel(), approver=lambda request: True)  # type: ignore[arg-type]


async def test_an_untrusted_folder_is_refused_until_trusted(tmp_path: Path) -> None:
    model = ScriptedModel([answer("hi")])
    with pytest.raises(circle.UntrustedFolderError, match="circle trust"):
        async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore()):
            pass
    assert model.requests == []


async def test_thinking_from_settings_json_is_sent(tmp_path: Path) -> None:
    _write_json(_home() / "settings.json", {"thinking": "high"})
    model = ScriptedModel([answer("hi")])
    async with circle.Agent(tmp_path, model_client=model, trust=True) as agent:
        await agent.run("hello")
    assert model.requests[0].thinking == "high"


async def test_a_trusted_projects_rules_apply(tmp_path: Path) -> None:
    _write_json(
        tmp_path / ".circle" / "approvals.json", [{"tool": "execute", "pattern": "touch*", "effect": "deny"}]
    )
    model = _touch_model()
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()


async def test_closing_the_agent_stops_its_background_jobs(tmp_path: Path) -> None:
    script = "echo $$ > job.pid; exec sleep 77"
    model = ScriptedModel(
        [answer("", Call("execute", {"command": script, "background": True})), answer("started")]
    )
    agent = circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto")
    await agent.run("start it")
    pid_file = tmp_path / "job.pid"
    assert await wait_until_async(lambda: line_written(pid_file)), "the job wrote its pid"
    pid = int(pid_file.read_text())
    assert process_alive(pid)
    await agent.aclose()
    assert await process_gone_async(pid), "the job's sleep was stopped"
    assert not model.closed, "a model client passed in stays its owner's"


def _children() -> set[int]:
    """The processes this test process started that still run."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found |= {int(pid) for pid in (task / "children").read_text().split()}
    return {pid for pid in found if process_alive(pid)}


@pytest.mark.skipif(find_program("pylsp") is None, reason="needs python-lsp-server")
async def test_closing_the_agent_stops_the_language_servers_it_started(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("def greet() -> str:\n    return 'hi'\n")
    model = ScriptedModel(
        [answer("", Call("lsp", {"operation": "symbols", "file_path": "util.py"})), answer("Listed.")]
    )
    before = _children()
    agent = circle.Agent(tmp_path, model_client=model, trust=True)
    await agent.run("symbols")
    assert "greet" in _last_tool_text(model), "the language server answered"
    started = _children() - before
    assert started, "a language server runs"
    await agent.aclose()
    assert [pid for pid in started if not await process_gone_async(pid, within=10)] == []
