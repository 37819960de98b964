"""A call whose result a crash lost is recorded for what is known of it: never started, still
running when Circle stopped, or run to the end with only its result lost."""

from __future__ import annotations

import asyncio

from pydantic import JsonValue

from circle._testing.call_log import InMemoryCallLog
from circle.application.agent_loop import AgentLoop, Inbox, LoopSettings
from circle.application.approvals import ApprovalPolicy
from circle.application.conversation import Conversation
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.ports.process_runner import ProcessResult
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.call_marks import UNANSWERED_LOST, UNANSWERED_LOST_SHOWN, CallMark, lost_result, outcome_of
from circle.domain.messages import Message, ToolCallPart, was_interrupted
from circle.domain.model import ToolSpec
from circle.testing import Call, Hang, answer

from ._harness import WORKSPACE, Harness


def test_a_finished_calls_outcome_is_its_closing_status_line() -> None:
    assert outcome_of("hello\n[exit code 0]", is_error=False) == "exit code 0"
    assert outcome_of("[stopped after 5 s: timed out]\n", is_error=True) == "stopped after 5 s: timed out"
    assert outcome_of("read 3 lines", is_error=False) == "it succeeded"
    assert outcome_of("no such file", is_error=True) == "it reported an error"


async def test_a_call_whose_result_is_stored_at_once_needs_no_finished_mark() -> None:
    """Its stored result says it finished: a mark between the two would be a commit a round for a
    crash in the instant between them (which then reads as still running)."""
    h = Harness()
    calls = InMemoryCallLog()
    h.processes.script = {"make": ProcessResult(exit_code=0, output="built\n")}
    h.model.add(answer("", Call("execute", {"command": "make"}, id="c1")), answer("done"))
    runtime = h.runtime()
    runtime.ports.calls = calls
    session = await runtime.new_session()

    await session.prompt("build it")

    assert calls.marks_by_session[session.session_id] == {"c1": CallMark("c1", "started")}
    stored = [r.text for cp in await h.store.history(session.session_id) for r in cp.message.tool_results]
    assert stored == ["built\n[exit code 0]"]


async def test_a_call_done_while_the_calls_beside_it_run_is_marked_finished() -> None:
    """Adjacent task calls run together and their results are stored when all have ended: one that
    ended first is marked finished meanwhile, so a crash then says it ran to the end."""
    release = asyncio.Event()

    class Task:
        name = "task"

        def spec(self) -> ToolSpec:
            return ToolSpec(name="task", description="a subagent", parameters={"type": "object"})

        async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
            if arguments.get("wait"):
                await release.wait()
            return ToolOutput(f"task {arguments.get('n')} done")

    h = Harness()
    calls = InMemoryCallLog()
    h.model.add(
        answer("", Call("task", {"n": 1}, id="t1"), Call("task", {"n": 2, "wait": True}, id="t2")),
        answer("ok"),
    )
    session_id = (await h.store.create_session(workspace=WORKSPACE)).id
    conversation = Conversation(h.store, session_id, [])
    loop = AgentLoop(
        model=h.model,
        tools={"task": Task()},
        context=h.context(),
        events=h.sink,
        settings=LoopSettings(model="m", system="s"),
        calls=calls,
    )
    turn = asyncio.create_task(loop.run_turn(conversation, "go", Inbox()))
    async with asyncio.timeout(5):
        while "finished" not in [m.state for m in calls.marks_by_session.get(session_id, {}).values()]:
            await asyncio.sleep(0.001)

    assert calls.marks_by_session[session_id] == {
        "t1": CallMark("t1", "finished", "it succeeded"),
        "t2": CallMark("t2", "started"),
    }
    release.set()
    assert (await asyncio.wait_for(turn, 5)).answer == "ok"


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


class Waits:
    """The person at a card: each request waits until ``answer`` is set (None: never answered)."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []
        self.answer: asyncio.Future[ApprovalDecision] | None = None

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        self.answer = asyncio.get_running_loop().create_future()
        return await self.answer


async def test_a_call_whose_approval_waits_for_the_person_is_marked_asking_until_allowed() -> None:
    """Killed at the card (SIGKILL records nothing on the way out), the call read as 'Interrupted:
    still running'; it never ran. Once allowed, it runs: started again."""
    person = Waits()
    h = Harness(approver=ApprovalPolicy("default", {}, person=person))
    calls = InMemoryCallLog()
    h.processes.script = {"touch e1": ProcessResult(exit_code=0, output="")}
    h.model.add(answer("", Call("execute", {"command": "touch e1"}, id="c1")), answer("done"))
    runtime = h.runtime()
    runtime.ports.calls = calls
    session = await runtime.new_session()
    task = asyncio.create_task(session.prompt("make e1"))
    async with asyncio.timeout(5):
        while person.answer is None:
            await asyncio.sleep(0.001)

    assert calls.marks_by_session[session.session_id] == {"c1": CallMark("c1", "asking")}
    person.answer.set_result(ApprovalDecision(allowed=True))
    await asyncio.wait_for(task, 5)
    assert calls.marks_by_session[session.session_id] == {"c1": CallMark("c1", "started")}
    assert h.processes.calls


async def test_a_call_whose_approval_never_had_an_answer_is_reopened_as_not_run() -> None:
    h = Harness()
    calls = InMemoryCallLog()
    await h.store.create_session(workspace="/w", session_id="s1")
    await h.store.append("s1", Message.user("go"))
    asked = Message(role="assistant", parts=(ToolCallPart(id="a", name="execute", arguments="{}"),))
    await h.store.append("s1", asked)
    await calls.started("s1", "a")
    await calls.asking("s1", "a")  # then Circle was killed, the card up
    runtime = h.runtime()
    runtime.ports.calls = calls

    session = await runtime.open_session("s1")

    result = session.conversation.messages[-1].tool_results[0]
    assert result.text == UNANSWERED_LOST and result.shown == UNANSWERED_LOST_SHOWN
    assert result.is_error and not was_interrupted(result)
    assert result.text.startswith("Not run: Circle stopped while this call waited for the person's approval")
