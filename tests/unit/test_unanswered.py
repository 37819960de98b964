"""A call stopped while its approval waited never ran: it is recorded, shown and told as not run."""

from __future__ import annotations

import asyncio

from circle.application.events import ToolExecutionEnded
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.unanswered import WatchedApprover
from circle.domain.messages import (
    INTERRUPTED_RESULT,
    STOPPED_RESULT,
    UNANSWERED_RESULT,
    UNANSWERED_SHOWN,
    Message,
    ToolCallPart,
    close_unanswered,
    was_interrupted,
)
from circle.testing import Call, Hang, ScriptedApprover, answer

from ._harness import Harness


class NeverAnswers:
    """An approver whose person never answers: each request waits until the turn is stopped."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        await asyncio.Event().wait()
        raise AssertionError("never answered")


async def test_a_call_stopped_while_its_approval_waits_is_stored_and_told_as_not_run() -> None:
    approver = NeverAnswers()
    h = Harness(approver=approver)
    h.model.add(answer("", Call("execute", {"command": "touch e1"})), answer("Understood."))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("make e1"))
    async with asyncio.timeout(5):
        while not approver.requests:
            await asyncio.sleep(0.001)
    assert session.cancel()
    assert (await asyncio.wait_for(task, 5)).aborted
    assert h.processes.calls == []
    result = (await h.store.history(session.session_id))[-1].message.tool_results[0]
    assert result.text == UNANSWERED_RESULT and result.shown == UNANSWERED_SHOWN
    assert result.is_error and not was_interrupted(result)
    ended = h.sink.of(ToolExecutionEnded)
    assert len(ended) == 1 and not ended[0].aborted
    assert ended[0].result == UNANSWERED_RESULT and ended[0].shown == UNANSWERED_SHOWN
    await session.prompt("what happened?")
    told = [m.text for m in h.model.requests[-1].messages if m.role == "tool"]
    assert told == [UNANSWERED_RESULT]


async def test_a_call_stopped_while_it_runs_after_its_approval_stays_interrupted() -> None:
    h = Harness(approver=ScriptedApprover(allow=["execute"]))
    h.processes.script = {"sleep 100": Hang()}
    h.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("wait"))
    async with asyncio.timeout(5):
        while not h.processes.calls:
            await asyncio.sleep(0.001)
    assert session.cancel()
    assert (await asyncio.wait_for(task, 5)).aborted
    result = (await h.store.history(session.session_id))[-1].message.tool_results[0]
    assert result.text == INTERRUPTED_RESULT and was_interrupted(result)
    assert [e.aborted for e in h.sink.of(ToolExecutionEnded)] == [True]


async def test_a_task_whose_subagent_waits_for_an_approval_was_running_and_stays_interrupted() -> None:
    approver = NeverAnswers()
    h = Harness(approver=approver)
    prompt = {"description": "make e1", "prompt": "make e1", "subagent_type": "general-purpose"}
    h.model.add(
        answer("", Call("task", prompt, id="same")),
        answer("", Call("execute", {"command": "touch e1"}, id="same")),  # its ids may be the parent's
    )
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("go"))
    async with asyncio.timeout(5):
        while not approver.requests:
            await asyncio.sleep(0.001)
    assert session.cancel()
    assert (await asyncio.wait_for(task, 5)).aborted
    result = (await h.store.history(session.session_id))[-1].message.tool_results[0]
    assert result.tool_name == "task" and result.text == INTERRUPTED_RESULT


async def test_the_watch_notes_the_asking_call_only_when_it_is_stopped() -> None:
    stopped: set[str] = set()
    request = ApprovalRequest(tool_name="execute", kind="execute", summary="touch x", workspace="/w")
    answered = WatchedApprover(ScriptedApprover(allow=["execute"]), stopped, lambda: "c1")
    assert (await answered.decide(request)).allowed and stopped == set()
    waiting = WatchedApprover(NeverAnswers(), stopped, lambda: "c2")  # a subagent's call asks as itself
    asking = asyncio.create_task(waiting.decide(request))
    await asyncio.sleep(0)
    asking.cancel()
    await asyncio.gather(asking, return_exceptions=True)
    assert stopped == {"c2"}
    inner: set[str] = set()
    nested = WatchedApprover.around(waiting, inner, lambda: "c3")  # a subagent's, from its parent's
    assert nested.inner is waiting.inner


def test_close_unanswered_says_a_waiting_call_was_not_run_and_the_others_interrupted() -> None:
    calls = (
        ToolCallPart(id="a", name="execute", arguments="{}"),
        ToolCallPart(id="b", name="execute", arguments="{}"),
    )
    messages = [Message.user("go"), Message(role="assistant", parts=calls)]
    closed = close_unanswered(messages, waiting={"b"})
    assert [m.tool_results[0].text for m in closed] == [INTERRUPTED_RESULT, UNANSWERED_RESULT]
    assert closed[1].tool_results[0].shown == UNANSWERED_SHOWN


def test_close_unanswered_says_the_calls_a_stop_came_before_were_not_run() -> None:
    calls = tuple(ToolCallPart(id=i, name="execute", arguments="{}") for i in "abc")
    messages = [Message.user("go"), Message(role="assistant", parts=calls)]
    closed = close_unanswered(messages, waiting={"a"}, unbegun={"b", "c"})
    assert [m.tool_results[0].text for m in closed] == [UNANSWERED_RESULT, STOPPED_RESULT, STOPPED_RESULT]
    assert all(m.tool_results[0].is_error and not was_interrupted(m.tool_results[0]) for m in closed)
