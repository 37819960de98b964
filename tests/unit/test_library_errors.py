"""The error tree as an embedder catches it: ``agent.run`` and ``agent.stream`` raise what failed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import circle
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer


def _agent(folder: Path, model: ScriptedModel, **options: object) -> circle.Agent:
    return circle.Agent(folder, model_client=model, store=InMemorySessionStore(), trust=True, **options)  # type: ignore[arg-type]


async def test_a_model_error_is_raised_by_run_and_the_history_kept(tmp_path: Path) -> None:
    model = ScriptedModel([circle.ModelHTTPError("bad gateway", status=502)])
    async with _agent(tmp_path, model) as agent:
        with pytest.raises(circle.ModelHTTPError, match="bad gateway") as caught:
            await agent.run("hi")
        assert caught.value.code == "model-http-error" and caught.value.status == 502
        assert [m.text for m in agent.messages] == ["hi"]


async def test_the_turn_limit_raises_a_usage_limit_error(tmp_path: Path) -> None:
    model = ScriptedModel([answer("", Call("ls", {})), answer("", Call("ls", {}))])
    async with _agent(tmp_path, model, max_turns=1) as agent:
        with pytest.raises(circle.TurnLimitError, match="stopped after 1 tool rounds") as caught:
            await agent.run("loop")
    assert isinstance(caught.value, circle.UsageLimitError) and caught.value.code == "turn-limit"


async def test_the_budget_raises_a_usage_limit_error(tmp_path: Path) -> None:
    model = ScriptedModel([answer("x", usage=circle.Usage(input=1_000_000, output=1_000_000))] * 2)
    async with circle.Agent(
        tmp_path,
        model="gpt-4o",
        model_client=model,
        store=InMemorySessionStore(),
        trust=True,
        max_budget_usd=0.01,
    ) as agent:
        await agent.run("first")
        with pytest.raises(circle.UsageLimitError, match="budget"):
            await agent.run("second")


async def test_a_cancelled_turn_raises_turn_cancelled(tmp_path: Path) -> None:
    model = ScriptedModel([answer("", Call("execute", {"command": "sleep 30"}))])
    async with _agent(tmp_path, model, approval_mode="auto") as agent:
        turn = asyncio.create_task(agent.run("wait"))
        while not any(m.tool_calls for m in agent.messages):
            await asyncio.sleep(0.02)
        assert agent.cancel()
        with pytest.raises(circle.TurnCancelledError) as caught:
            await turn
    assert caught.value.code == "cancelled"


async def test_stream_yields_every_event_then_raises(tmp_path: Path) -> None:
    model = ScriptedModel([circle.ModelConnectionError("refused", kind="connect")])
    seen: list[str] = []

    async def drain(agent: circle.Agent) -> None:
        async for event in agent.stream("hi"):
            seen.append(type(event).__name__)

    async with _agent(tmp_path, model) as agent:
        with pytest.raises(circle.ModelConnectionError):
            await drain(agent)
    assert seen[-3:] == ["ErrorReported", "TurnEnded", "AgentEnded"]


async def test_bad_configuration_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(circle.ConfigError, match="approval mode"):
        circle.Agent(tmp_path, approval_mode="sometimes")
    with pytest.raises(circle.AttachmentError):
        async with _agent(tmp_path, ScriptedModel()) as agent:
            await agent.run("read this", files=["missing.txt"])


def test_the_tree_is_exported_with_distinct_codes() -> None:
    errors = [getattr(circle, name) for name in circle.__all__ if name.endswith("Error")]
    assert all(issubclass(error, circle.CircleError) for error in errors)
    codes = [error.code for error in errors]
    assert len(codes) == len(set(codes))
    wanted = {"ConfigError", "ModelError", "UsageLimitError", "TurnCancelledError", "SessionNotFoundError"}
    assert wanted <= set(circle.__all__)
