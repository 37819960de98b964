"""AgentSession as RPC and line mode drive it: steering, abort, settled, job turns, model switches."""

from __future__ import annotations

import asyncio

import pytest

from circle.application.events import Steered, ToolExecutionStarted, TurnStarted
from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.session import AgentSession
from circle.domain.catalog import ModelInfo
from circle.domain.errors import ConfigError
from circle.domain.messages import STOPPED_RESULT, Message
from circle.testing import Call, Hang, InMemoryCatalog, answer

from .test_jobs import Harness, harness, last_user_text, runtime, settle


async def _until_running(h: Harness, call_id: str) -> None:
    for _ in range(500):
        if any(isinstance(e, ToolExecutionStarted) and e.tool_call_id == call_id for e in h.sink.events):
            await settle()
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the call {call_id} never started")


async def test_steering_sent_while_the_model_answers_is_read_before_the_turn_ends() -> None:
    h = harness()
    session = await runtime(h).new_session()

    def answer_and_steer(request: object) -> list[object]:
        session.steer("also mention tabs")
        return answer("Spaces.")  # type: ignore[return-value]

    h.model.add(answer_and_steer, answer("Spaces, and tabs."))  # type: ignore[arg-type]
    result = await session.prompt("indentation?")
    assert result.answer == "Spaces, and tabs."
    assert h.model.requests[-1].messages[-1] == Message.user("also mention tabs")
    steered = [e for e in h.sink.events if isinstance(e, Steered)]
    assert [(e.message, e.session_id) for e in steered] == [("also mention tabs", session.session_id)]


async def test_steering_sent_as_the_last_answer_came_gets_a_turn_of_its_own() -> None:
    """Sent after the loop saw the answer had no calls and before the session saw the turn end
    (the interface steers while a turn's task is still set), a steering message was left unread
    until the person's next message."""
    from circle.application.events import TurnEnded
    from circle.testing import RecordingSink

    class SteerAfterAnswer(RecordingSink):
        session: AgentSession | None = None

        def emit(self, event: object) -> None:
            super().emit(event)  # type: ignore[arg-type]
            if isinstance(event, TurnEnded) and self.session and len(self.of(TurnEnded)) == 1:
                self.session.steer("also mention tabs")

    sink = SteerAfterAnswer()
    h = harness(sink=sink)
    session = sink.session = await runtime(h).new_session()
    h.model.add(answer("Spaces."), answer("Spaces, and tabs."))
    result = await session.prompt("indentation?")
    assert result.answer == "Spaces, and tabs."
    assert h.model.requests[-1].messages[-1] == Message.user("also mention tabs")
    assert [e.message for e in h.sink.events if isinstance(e, TurnStarted)] == ["indentation?", None]
    assert not session.inbox.steering


async def test_a_job_notice_turn_starts_without_a_message_and_emits_no_steer() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        answer("Started."),
        answer("It stopped."),
    )
    session = await runtime(h).new_session()
    await session.prompt("serve it")
    h.processes.started[0].finish(0, "bye\n")
    await settle()
    assert session.idle_turn is not None
    await session.idle_turn
    starts = [e for e in h.sink.events if isinstance(e, TurnStarted)]
    assert [e.message for e in starts] == ["serve it", None]
    assert last_user_text(h.model.requests[-1]).startswith("[job-1 (serve) exited with code 0")
    assert not [e for e in h.sink.events if isinstance(e, Steered)]


async def test_settled_is_told_once_per_prompt_and_once_per_job_turn() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        answer("Started."),
        answer("It stopped."),
    )
    session = await runtime(h).new_session()
    settled: list[bool] = []
    session.on_settled(lambda: settled.append(session.is_busy))
    await session.prompt("serve it")
    assert settled == [False]
    h.processes.started[0].finish(0)
    await settle()
    assert session.idle_turn is not None
    await session.idle_turn
    assert settled == [False, False]


async def test_a_prompt_after_until_settled_waits_for_a_job_notices_work_instead_of_failing() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        answer("Started."),
        answer("It stopped."),
        answer("Hello."),
    )
    session = await runtime(h).new_session()
    await session.prompt("serve it")
    assert not session.working_on_notices
    await session.until_settled()  # nothing under way: at once
    h.processes.started[0].finish(0, "bye\n")
    while session.idle_turn is None:
        await asyncio.sleep(0)
    assert session.is_busy and session.working_on_notices
    with pytest.raises(ConfigError, match="already running"):
        await session.prompt("hello")
    await session.until_settled()
    assert not session.is_busy and not session.working_on_notices
    result = await session.prompt("hello")
    assert result.answer == "Hello."
    assert last_user_text(h.model.requests[-2]).startswith("[job-1 (serve) exited with code 0")


async def test_abort_stops_the_turn_drops_waiting_messages_and_holds_job_turns() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True}, id="c1")),
        answer("", Call("execute", {"command": "sleep forever"}, id="c2")),
    )
    h.processes.script = {**h.processes.script, "sleep forever": Hang()}
    session = await runtime(h).new_session()
    work = asyncio.create_task(session.prompt("go"))
    await _until_running(h, "c2")
    session.steer("never read")
    session.follow_up("never sent")
    assert await session.abort() is True
    result = await work
    assert result.aborted
    assert not session.inbox.steering and not session.inbox.follow_ups
    requests = len(h.model.requests)
    h.processes.started[0].finish(0)
    await settle()
    assert session.idle_turn is None and len(h.model.requests) == requests
    assert session.waiting_notices == 1
    h.model.add(answer("Back."))
    assert (await session.prompt("hello again")).answer == "Back."
    sent = h.model.requests[-1].messages
    assert sent[-2] == Message.user("hello again")
    assert sent[-1].text.startswith("[job-1 (serve) exited")


async def test_steering_a_cancelled_turn_never_read_goes_before_the_next_prompt() -> None:
    """Steered into a turn cancelled before its next request, the words went after the person's
    next message, as if typed after it."""
    h = harness()
    h.model.add(answer("", Call("execute", {"command": "sleep forever"}, id="c1")))
    h.processes.script = {**h.processes.script, "sleep forever": Hang()}
    session = await runtime(h).new_session()
    work = asyncio.create_task(session.prompt("go"))
    await _until_running(h, "c1")
    session.steer("use the staging server")
    assert session.cancel() is True
    assert (await work).aborted
    assert list(session.inbox.steering) == ["use the staging server"]
    h.model.add(answer("Done."))
    await session.prompt("now deploy")
    sent = [m.text for m in h.model.requests[-1].messages if m.role == "user"]
    assert sent[-2:] == ["use the staging server", "now deploy"]
    assert [e.message for e in h.sink.events if isinstance(e, Steered)] == ["use the staging server"]


async def test_steering_taken_back_is_never_sent() -> None:
    h = harness()
    h.model.add(answer("", Call("execute", {"command": "sleep forever"}, id="c1")))
    h.processes.script = {**h.processes.script, "sleep forever": Hang()}
    session = await runtime(h).new_session()
    work = asyncio.create_task(session.prompt("go"))
    await _until_running(h, "c1")
    session.steer("first")
    session.steer("second")
    session.cancel()
    await work
    assert session.take_steering() == ["first", "second"]
    assert session.take_steering() == []
    h.model.add(answer("Done."))
    await session.prompt("something else")
    sent = [m.text for m in h.model.requests[-1].messages if m.role == "user"]
    assert sent[-1] == "something else" and "first" not in sent and "second" not in sent


async def test_abort_when_nothing_runs_says_so() -> None:
    session = await runtime(harness()).new_session()
    assert await session.abort() is False
    assert session.hold_job_turns


async def test_waiting_for_jobs_gives_each_notice_a_turn_then_returns() -> None:
    h = harness()
    h.model.add(
        answer("", Call("execute", {"command": "serve", "background": True})),
        answer("Started."),
        answer("Done now."),
    )
    session = await runtime(h).new_session()
    await session.prompt("serve it")

    async def finish_later() -> None:
        await asyncio.sleep(0.05)
        h.processes.started[0].finish(0)

    asyncio.get_running_loop().create_task(finish_later())
    await asyncio.wait_for(session.wait_for_jobs(10, poll_s=0.01), 5)
    assert not session.is_busy
    assert h.model.requests[-1].messages[-1].text.startswith("[job-1 (serve) exited")


async def test_waiting_for_jobs_ends_at_the_deadline() -> None:
    h = harness()
    h.model.add(answer("", Call("execute", {"command": "serve", "background": True})), answer("Started."))
    session = await runtime(h).new_session()
    await session.prompt("serve it")
    await asyncio.wait_for(session.wait_for_jobs(0.1, poll_s=0.01), 5)
    assert session.jobs is not None and len(session.jobs.running) == 1


async def test_switching_the_model_keeps_the_conversation_and_asks_the_new_one() -> None:
    h = harness()
    h.catalog = InMemoryCatalog([ModelInfo(id="thinker", reasoning=True)])
    rt = runtime(h)
    rt.options.thinking = "high"
    session = await rt.new_session()
    h.model.add(answer("One."), answer("Two."))
    await session.prompt("first")
    await rt.switch_model(session, "thinker")
    await session.prompt("second")
    request = h.model.requests[-1]
    assert request.model == "thinker" and request.thinking == "high"
    assert [m.text for m in request.messages if m.role == "user"] == ["first", "second"]
    assert "thinker" in request.system
    assert await rt.switch_thinking(session, "low") == "low"
    assert rt.options.thinking == "low"


async def test_thinking_is_not_sent_to_a_model_the_catalog_says_does_not_reason() -> None:
    h = harness()
    h.catalog = InMemoryCatalog([ModelInfo(id="plain", reasoning=False)])
    rt = runtime(h)
    session = await rt.new_session()
    await rt.switch_model(session, "plain")
    assert await rt.switch_thinking(session, "high") is None
    h.model.add(answer("ok"))
    await session.prompt("hi")
    assert h.model.requests[-1].thinking is None


async def test_the_model_and_thinking_cannot_change_while_a_turn_runs() -> None:
    h = harness()
    h.model.add(answer("", Call("execute", {"command": "sleep forever"}, id="c1")))
    h.processes.script = {**h.processes.script, "sleep forever": Hang()}
    rt = runtime(h)
    session = await rt.new_session()
    work = asyncio.create_task(session.prompt("go"))
    await _until_running(h, "c1")
    with pytest.raises(ConfigError, match="turn is running"):
        await rt.switch_model(session, "other")
    with pytest.raises(ConfigError, match="turn is running"):
        await rt.switch_thinking(session, "low")
    with pytest.raises(ConfigError, match="no model named"):
        await rt.switch_model(session, "  ")
    await session.abort()
    await work
    assert rt.options.model == "scripted"


class _DenyAndStop:
    """A person who denies the first call asked about and stops the turn (esc on the card)."""

    def __init__(self) -> None:
        self.session: AgentSession | None = None
        self.asked = 0

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked += 1
        assert self.session is not None
        self.session.stop_after_calls()
        return ApprovalDecision(allowed=False, reason="the person stopped the turn")


async def test_a_turn_stopped_at_an_approval_records_the_denial_and_sends_no_more_requests() -> None:
    person = _DenyAndStop()
    h = harness(approver=person)
    first = Call("execute", {"command": "make build"}, id="c1")
    second = Call("execute", {"command": "make test"}, id="c2")
    h.model.add(answer("", first, second))
    session = await runtime(h).new_session()
    person.session = session
    result = await session.prompt("build it")
    assert result.aborted
    assert len(h.model.requests) == 1 and person.asked == 1
    assert h.processes.calls == []
    results = [r for m in session.conversation.messages for r in m.tool_results]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("c1", True), ("c2", True)]
    assert "the person stopped the turn" in results[0].text
    assert results[1].text == STOPPED_RESULT
    h.model.add(answer("Fine."))
    assert (await session.prompt("then just say fine")).answer == "Fine."
