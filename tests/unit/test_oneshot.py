"""circle.run_sync and circle.query, and FunctionModel's kinds of reply."""

from __future__ import annotations

from pathlib import Path

import pytest

import circle
from circle.domain.model import ModelRequest
from circle.testing import Call, FunctionModel, InMemorySessionStore, answer


def test_run_sync_runs_one_turn_from_plain_code(tmp_path: Path) -> None:
    model = FunctionModel(lambda request: f"you said {request.messages[-1].text}")
    result = circle.run_sync(
        "hi", workspace=tmp_path, model_client=model, store=InMemorySessionStore(), trust=True
    )
    assert result.answer == "you said hi"


async def test_run_sync_inside_an_event_loop_says_what_to_use(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"use `await agent\.run"):
        circle.run_sync("hi", workspace=tmp_path)


async def test_query_streams_one_turn_and_closes_the_agent(tmp_path: Path) -> None:
    async def reply(request: ModelRequest) -> list[str | Call]:
        if request.messages[-1].role == "tool":
            return ["listed"]
        return ["looking", Call("ls", {})]

    model = FunctionModel(reply)
    events = [
        e
        async for e in circle.query(
            "look", workspace=tmp_path, model_client=model, store=InMemorySessionStore(), trust=True
        )
    ]
    assert [e.answer for e in events if isinstance(e, circle.TurnEnded)] == ["listed"]
    assert [e.tool_name for e in events if isinstance(e, circle.ToolExecutionStarted)] == ["ls"]
    assert [m.role for m in model.requests[1].messages] == ["user", "assistant", "tool"]


async def test_function_model_plays_answer_events_and_refuses_other_values(tmp_path: Path) -> None:
    replies: list[object] = [answer("thought it through", thinking="hmm"), 42]
    model = FunctionModel(lambda request: replies.pop(0))  # type: ignore[arg-type, return-value]
    async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore(), trust=True) as agent:
        assert (await agent.run("one")).answer == "thought it through"
        with pytest.raises(TypeError, match=r"returned 42: return text, Call\(\.\.\.\) or answer"):
            await agent.run("two")
