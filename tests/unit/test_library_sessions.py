"""The library's sessions and history: ``agent.messages``, opening, continuing and forking sessions,
``circle.Agent.sessions()``, and ``Agent.override`` for tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import circle
from circle.testing import Call, InMemorySessionStore, ScriptedApprover, ScriptedModel, answer


async def _two_turns(folder: Path, store: InMemorySessionStore) -> str:
    model = ScriptedModel([answer("", Call("ls", {})), answer("Listed."), answer("Two.")])
    async with circle.Agent(folder, model_client=model, store=store, trust=True) as agent:
        await agent.run("look")
        await agent.run("again")
        assert agent.session_id is not None
        return agent.session_id


async def test_messages_are_the_typed_history_with_tool_results_as_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    model = ScriptedModel([answer("", Call("ls", {})), answer("Listed.")])
    async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore(), trust=True) as agent:
        assert agent.messages == []
        await agent.run("look")
        history = agent.messages
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    assert all(isinstance(m, circle.Message) for m in history)
    assert "a.txt" in history[2].text
    assert history[-1].text == "Listed."


async def test_an_opened_session_shows_its_history_before_any_turn(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    session_id = await _two_turns(tmp_path, store)
    async with circle.Agent(
        tmp_path, model_client=ScriptedModel(), store=store, session_id=session_id, trust=True
    ) as agent:
        assert agent.session_id == session_id
        assert [m.text for m in agent.messages if m.role == "user"] == ["look", "again"]


async def test_continue_session_opens_the_workspace_s_latest(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    await _two_turns(tmp_path, store)
    latest = await _two_turns(tmp_path, store)
    model = ScriptedModel([answer("Three.")])
    async with circle.Agent(
        tmp_path, model_client=model, store=store, continue_session=True, trust=True
    ) as agent:
        assert agent.session_id == latest
        await agent.run("more")
    assert [m.text for m in model.requests[0].messages if m.role == "user"] == ["look", "again", "more"]


async def test_a_fork_at_a_message_keeps_what_came_before_and_leaves_the_source(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    source = await _two_turns(tmp_path, store)
    model = ScriptedModel([answer("Forked.")])
    async with circle.Agent(
        tmp_path, model_client=model, store=store, fork_from=source, fork_at=4, trust=True
    ) as agent:
        assert agent.session_id != source
        assert [m.text for m in agent.messages][-1] == "Listed."
        assert len(agent.messages) == 4
        await agent.run("other way")
        forked = agent.session_id
    assert store.sessions[source].message_count == 6
    assert forked is not None and store.sessions[forked].message_count == 6


async def test_a_fork_past_the_end_is_a_config_error(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    source = await _two_turns(tmp_path, store)
    with pytest.raises(circle.ConfigError, match="fork_at=9: the session has 6 messages"):
        async with circle.Agent(
            tmp_path, model_client=ScriptedModel(), store=store, fork_from=source, fork_at=9, trust=True
        ):
            pass


async def test_an_unknown_session_raises_session_not_found_on_start(tmp_path: Path) -> None:
    agent = circle.Agent(
        tmp_path, model_client=ScriptedModel(), store=InMemorySessionStore(), session_id="nope", trust=True
    )
    with pytest.raises(circle.SessionNotFoundError, match="no session 'nope'"):
        await agent.start()
    await agent.aclose()
    assert issubclass(circle.SessionNotFoundError, circle.CircleError)


async def test_sessions_lists_the_workspace_s_stored_sessions(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    first = await _two_turns(tmp_path, store)
    second = await _two_turns(tmp_path, store)
    other = tmp_path / "other"
    other.mkdir()
    await _two_turns(other, store)
    found = await circle.Agent.sessions(tmp_path, store=store)
    assert {s.id for s in found} == {first, second}
    assert all(isinstance(s, circle.SessionInfo) for s in found)
    assert [(s.title, s.message_count) for s in found] == [("look", 6), ("look", 6)]
    assert found[0].updated_at >= found[1].updated_at and found[0].created_at > 0
    assert len(await circle.Agent.sessions(store=store, all_workspaces=True)) == 3


async def test_sessions_of_a_data_folder_with_no_store_yet_is_empty(tmp_path: Path) -> None:
    assert await circle.Agent.sessions(tmp_path) == []


async def test_sessions_reads_the_sqlite_store_of_the_data_folder(tmp_path: Path) -> None:
    async with circle.Agent(tmp_path, model_client=ScriptedModel([answer("Hi.")]), trust=True) as agent:
        await agent.run("hello there")
        session_id = agent.session_id
    found = await circle.Agent.sessions(tmp_path)
    assert [(s.id, s.title, s.message_count) for s in found] == [(session_id, "hello there", 2)]


async def _app_answer(folder: Path, question: str) -> str:
    """Stands for a program's own code, which makes its agent where a test cannot reach it."""
    async with circle.Agent(folder, trust=True, store=InMemorySessionStore()) as agent:
        return (await agent.run(question)).answer


async def test_override_swaps_the_model_of_agents_started_inside_and_restores_it(tmp_path: Path) -> None:
    model = ScriptedModel([answer("Scripted.")])
    with circle.Agent.override(model=model):
        assert await _app_answer(tmp_path, "hi") == "Scripted."
    assert [m.text for m in model.requests[0].messages] == ["hi"]
    with pytest.raises(circle.ConfigError, match="no model chosen"):
        await _app_answer(tmp_path, "hi")


async def test_override_on_one_agent_beats_its_own_arguments(tmp_path: Path) -> None:
    given = ScriptedModel([answer("Given.")])
    scripted = ScriptedModel([answer("Overridden.")])
    approver = ScriptedApprover(decisions=[circle.ApprovalDecision(allowed=False, reason="not now")])
    agent = circle.Agent(tmp_path, model_client=given, store=InMemorySessionStore(), trust=True)
    with agent.override(model=scripted, approver=approver):
        async with agent:
            assert (await agent.run("hi")).answer == "Overridden."
    assert given.requests == []
    async with agent:
        assert (await agent.run("hi")).answer == "Given."


async def test_override_refuses_an_agent_already_started(tmp_path: Path) -> None:
    async with circle.Agent(
        tmp_path, model_client=ScriptedModel(), store=InMemorySessionStore(), trust=True
    ) as agent:
        with pytest.raises(circle.ConfigError, match="before the agent starts"), agent.override():
            pass


async def test_scripted_approver_plays_its_decisions_in_order_and_records_requests(tmp_path: Path) -> None:
    approver = ScriptedApprover(
        decisions=[circle.ApprovalDecision(allowed=True), circle.ApprovalDecision(allowed=False, reason="no")]
    )
    model = ScriptedModel(
        [
            answer("", Call("execute", {"command": "touch one"})),
            answer("", Call("execute", {"command": "touch two"})),
            answer("Done."),
        ]
    )
    async with circle.Agent(
        tmp_path, model_client=model, store=InMemorySessionStore(), approver=approver, trust=True
    ) as agent:
        await agent.run("make them")
    assert (tmp_path / "one").exists() and not (tmp_path / "two").exists()
    assert [r.arguments["command"] for r in approver.requests] == ["touch one", "touch two"]
    assert "not approved: no" in model.requests[2].messages[-1].text


async def test_a_closed_agent_keeps_its_session_and_goes_on_with_it_when_reopened(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    model = ScriptedModel([answer("One."), answer("Two.")])
    agent = circle.Agent(tmp_path, model_client=model, store=store, trust=True)
    async with agent:
        await agent.run("first")
    session_id = agent.session_id
    assert session_id is not None
    assert [m.text for m in agent.messages] == ["first", "One."]
    async with agent:
        assert agent.session_id == session_id
        await agent.run("second")
    assert [m.text for m in model.requests[1].messages] == ["first", "One.", "second"]
    assert list(store.sessions) == [session_id]


async def test_a_fork_reopened_goes_on_with_the_fork_rather_than_forking_again(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    source = await _two_turns(tmp_path, store)
    agent = circle.Agent(
        tmp_path, model_client=ScriptedModel(), store=store, fork_from=source, fork_at=2, trust=True
    )
    async with agent:
        forked = agent.session_id
    async with agent:
        assert agent.session_id == forked
    assert len(store.sessions) == 2


async def test_a_session_left_empty_is_not_reopened(tmp_path: Path) -> None:
    agent = circle.Agent(
        tmp_path, model_client=ScriptedModel([answer("Hi.")]), store=InMemorySessionStore(), trust=True
    )
    async with agent:
        with pytest.raises(circle.AttachmentError):
            await agent.run("read", files=["missing.txt"])
    async with agent:
        assert (await agent.run("hi")).answer == "Hi."


async def test_circle_sessions_lists_what_agent_sessions_lists(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    model = ScriptedModel([answer("hi")])
    async with circle.Agent(tmp_path, model_client=model, store=store, trust=True) as agent:
        await agent.run("hello")
    listed = await circle.sessions(tmp_path, store=store)
    assert [s.id for s in listed] == [s.id for s in await circle.Agent.sessions(tmp_path, store=store)]
    assert [s.title for s in listed] == ["hello"]
