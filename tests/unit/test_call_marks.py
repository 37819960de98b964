"""A call whose result a crash lost is recorded for what is known of it: never started, still
running when Circle stopped, or run to the end with only its result lost."""

from __future__ import annotations

import asyncio

from circle._testing.call_log import InMemoryCallLog
from circle.application.ports.process_runner import ProcessResult
from circle.domain.call_marks import CallMark, lost_result, outcome_of
from circle.domain.messages import Message, ToolCallPart
from circle.testing import Call, Hang, answer

from ._harness import Harness


def test_a_finished_calls_outcome_is_its_closing_status_line() -> None:
    assert outcome_of("hello\n[exit code 0]", is_error=False) == "exit code 0"
    assert outcome_of("[stopped after 5 s: timed out]\n", is_error=True) == "stopped after 5 s: timed out"
    assert outcome_of("read 3 lines", is_error=False) == "it succeeded"
    assert outcome_of("no such file", is_error=True) == "it reported an error"


async def test_the_loop_marks_a_call_started_then_finished_with_its_exit_code() -> None:
    h = Harness()
    calls = InMemoryCallLog()
    h.processes.script = {"make": ProcessResult(exit_code=0, output="built\n")}
    h.model.add(answer("", Call("execute", {"command": "make"}, id="c1")), answer("done"))
    runtime = h.runtime()
    runtime.ports.calls = calls
    session = await runtime.new_session()

    await session.prompt("build it")

    assert calls.marks_by_session[session.session_id] == {"c1": CallMark("c1", "finished", "exit code 0")}


async def test_a_running_call_stays_marked_started() -> None:
    h = Harness()
    calls = InMemoryCallLog()
    h.processes.script = {"sleep 100": Hang()}
    h.model.add(answer("", Call("execute", {"command": "sleep 100"}, id="c1")))
    runtime = h.runtime()
    runtime.ports.calls = calls
    session = await runtime.new_session()
    task = asyncio.create_task(session.prompt("wait"))
    async with asyncio.timeout(5):
        while not h.processes.calls:
            await asyncio.sleep(0.001)

    assert calls.marks_by_session[session.session_id] == {"c1": CallMark("c1", "started")}
    session.cancel()
    await asyncio.wait_for(task, 5)


async def test_reopening_after_a_crash_says_what_became_of_each_call() -> None:
    h = Harness()
    calls = InMemoryCallLog()
    await h.store.create_session(workspace="/w", session_id="s1")
    await h.store.append("s1", Message.user("go"))
    asked = Message(
        role="assistant",
        parts=tuple(ToolCallPart(id=i, name="execute", arguments='{"command": "true"}') for i in "abc"),
    )
    await h.store.append("s1", asked)  # then Circle was killed
    await calls.finished("s1", "a", outcome="exit code 0")
    await calls.started("s1", "b")
    runtime = h.runtime()
    runtime.ports.calls = calls

    session = await runtime.open_session("s1")

    results = {r.tool_call_id: r.text for m in session.conversation.messages for r in m.tool_results}
    assert results == {
        "a": lost_result(CallMark("a", "finished", "exit code 0")),
        "b": lost_result(CallMark("b", "started")),
        "c": lost_result(None),
    }
    assert results["a"].startswith("Result lost: the call ran to the end (exit code 0)")
    assert "It was not run again" in results["a"]
    assert results["b"].startswith("Interrupted: Circle stopped while this call was still running")
    assert results["c"].startswith("Not run: Circle stopped before this call started")
