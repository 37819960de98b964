"""`import circle` as another program uses it: the Agent over a real folder, with a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest

import circle
from circle.testing import Call, InMemorySessionStore, ScriptedApprover, ScriptedModel, answer


async def test_agent_runs_a_turn_with_real_files(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello world\n")
    model = ScriptedModel(
        [
            answer(
                "",
                Call("edit_file", {"file_path": "hello.txt", "old_string": "world", "new_string": "circle"}),
            ),
            answer("Renamed the world."),
        ]
    )
    store = InMemorySessionStore()
    async with circle.Agent(
        tmp_path, model_client=model, store=store, trust=True, approval_mode="auto"
    ) as agent:
        result = await agent.run("rename")
        assert isinstance(result, circle.TurnResult)
        assert result.answer == "Renamed the world."
        assert agent.session_id in store.sessions
    assert (tmp_path / "hello.txt").read_text() == "hello circle\n"
    assert not model.closed, "a model client passed in stays open for its owner"


async def test_agent_streams_the_same_events(tmp_path: Path) -> None:
    model = ScriptedModel([answer("", Call("ls", {})), answer("Listed.")])
    async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore(), trust=True) as agent:
        events = [event async for event in agent.stream("look")]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TurnStarted") < kinds.index("ToolExecutionStarted") < kinds.index("TurnEnded")
    assert "MessageUpdated" in kinds
    ended = [e for e in events if isinstance(e, circle.TurnEnded)]
    assert [e.answer for e in ended] == ["Listed."]


async def test_agent_continues_a_stored_session(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    first = ScriptedModel([answer("One.")])
    async with circle.Agent(tmp_path, model_client=first, store=store, trust=True) as agent:
        await agent.run("first")
        session_id = agent.session_id
    second = ScriptedModel([answer("Two.")])
    async with circle.Agent(
        tmp_path, model_client=second, store=store, session_id=session_id, trust=True
    ) as agent:
        await agent.run("second")
    assert [m.text for m in second.requests[0].messages] == ["first", "One.", "second"]


async def test_agent_asks_its_approver(tmp_path: Path) -> None:
    approver = ScriptedApprover(allow=())
    model = ScriptedModel([answer("", Call("execute", {"command": "touch made"})), answer("ok")])
    async with circle.Agent(
        tmp_path, model_client=model, store=InMemorySessionStore(), approver=approver, trust=True
    ) as agent:
        await agent.run("make it")
    assert not (tmp_path / "made").exists()
    assert [r.summary for r in approver.requests] == ["touch made"]


def test_agent_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(circle.ConfigError, match="not a folder"):
        circle.Agent(tmp_path / "nope", model_client=ScriptedModel())


async def test_agent_needs_a_model_or_a_client(tmp_path: Path) -> None:
    with pytest.raises(circle.ConfigError, match="no model chosen"):
        async with circle.Agent(tmp_path, trust=True):
            pass
