"""A subagent's events reach the session's sink, tagged with its run, without its text deltas."""

from __future__ import annotations

from circle.application.events import (
    MessageUpdated,
    SubagentEvent,
    ToolExecutionEnded,
    ToolExecutionStarted,
    TurnEnded,
    TurnStarted,
)
from circle.entrypoints.event_codec import event_json
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness
from .test_subagents import task


async def test_a_subagents_tool_calls_and_answer_come_tagged_with_its_run() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/notes.txt", "alpha\n")
    h.model.add(
        answer("", task("Read notes.txt.", subagent_type="explore", call_id="t1")),
        answer("", Call("read_file", {"file_path": "notes.txt"})),
        answer("It says alpha."),
        answer("The notes say alpha."),
    )
    session = await h.runtime().new_session()
    await session.prompt("what do the notes say?")
    tagged = [e for e in h.sink.events if isinstance(e, SubagentEvent)]
    inner = [type(e.event) for e in tagged]
    assert ToolExecutionStarted in inner and ToolExecutionEnded in inner and TurnEnded in inner
    assert MessageUpdated not in inner
    assert {(e.subagent_type, e.description, e.parent_call_id) for e in tagged} == {
        ("explore", "look around", "t1")
    }
    started = next(e.event for e in tagged if isinstance(e.event, ToolExecutionStarted))
    assert started.tool_name == "read_file"
    ended = next(e.event for e in tagged if isinstance(e.event, TurnEnded))
    assert ended.answer == "It says alpha."
    data = event_json(tagged[0])
    assert data["type"] == "subagent"
    assert data["subagent"] == {
        "id": tagged[0].run_id,
        "type": "explore",
        "description": "look around",
        "parentToolCallId": "t1",
    }
    assert isinstance(data["event"], dict) and data["event"]["type"] == "turn_start"
    top_level = [e for e in h.sink.events if isinstance(e, TurnEnded)]
    assert [e.answer for e in top_level] == ["The notes say alpha."]


async def test_adjacent_subagents_are_each_tagged_with_their_own_call() -> None:
    h = Harness()
    h.model.add(
        answer("", task("first", call_id="a"), task("second", call_id="b")),
        answer("one"),
        answer("two"),
        answer("both done"),
    )
    session = await h.runtime().new_session()
    await session.prompt("do two things")
    starts = [e for e in h.sink.events if isinstance(e, SubagentEvent) and isinstance(e.event, TurnStarted)]
    assert sorted((e.parent_call_id, e.event.message) for e in starts) == [("a", "first"), ("b", "second")]
    assert all(not isinstance(e, SubagentEvent) or e.parent_call_id in ("a", "b") for e in h.sink.events)
