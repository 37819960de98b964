"""The loop driven by ScriptedModel over fakes of every port."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import JsonValue

from circle.application.agent_loop import AgentLoop, Inbox, LoopSettings
from circle.application.conversation import Conversation
from circle.application.events import (
    AgentEnded,
    AgentStarted,
    ErrorReported,
    ToolExecutionEnded,
    ToolExecutionUpdated,
    TurnEnded,
    TurnStarted,
)
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ConfigError, ModelConnectionError
from circle.domain.messages import (
    INTERRUPTED_RESULT,
    NOT_RUN_RESULT,
    Message,
    StopReason,
    ToolCallPart,
    was_interrupted,
)
from circle.domain.model import ModelRequest, ToolSpec
from circle.testing import Call, FakeProcessRunner, Hang, ScriptedApprover, answer

from ._harness import WORKSPACE, Harness


async def test_a_text_answer_ends_the_turn() -> None:
    h = Harness()
    h.model.add(answer("Hello there."))
    session = await h.runtime().new_session()
    result = await session.prompt("hi")
    assert result.answer == "Hello there."
    assert result.usage.input == 10 and result.usage.output == 5
    kinds = [type(e) for e in h.sink.events]
    assert kinds[:2] == [AgentStarted, TurnStarted] and kinds[-2:] == [TurnEnded, AgentEnded]
    stored = [cp.message.role for cp in await h.store.history(session.session_id)]
    assert stored == ["user", "assistant"]
    ended = h.sink.events[-1]
    assert isinstance(ended, AgentEnded) and [m.role for m in ended.messages] == stored


async def test_tool_results_go_back_in_call_order() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/a.txt", "alpha\n")
    h.files.put(f"{WORKSPACE}/b.txt", "beta\n")
    h.model.add(
        answer("", Call("read_file", {"file_path": "b.txt"}), Call("read_file", {"file_path": "a.txt"})),
        answer("Both read."),
    )
    session = await h.runtime().new_session()
    result = await session.prompt("read both")
    assert result.answer == "Both read."
    second = h.model.requests[1].messages
    results = [m.tool_results[0] for m in second if m.role == "tool"]
    assert ["beta" in results[0].text, "alpha" in results[1].text] == [True, True]
    assert [r.tool_call_id for r in results] == [c.id for c in second[1].tool_calls]
    assert h.model.requests[0].tools and h.model.requests[0].system


async def test_a_crashing_tool_returns_an_error_and_the_turn_goes_on() -> None:
    class Boom:
        name = "boom"

        def spec(self) -> ToolSpec:
            return ToolSpec(name="boom", description="explodes", parameters={"type": "object"})

        async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
            raise RuntimeError("kaboom")

    h = Harness()
    h.model.add(answer("", Call("boom", {})), answer("recovered"))
    conversation = Conversation(h.store, (await h.store.create_session(workspace=WORKSPACE)).id, [])
    loop = AgentLoop(
        model=h.model,
        tools={"boom": Boom()},
        context=h.context(),
        events=h.sink,
        settings=LoopSettings(model="m", system="s"),
    )
    result = await loop.run_turn(conversation, "go", Inbox())
    assert result.answer == "recovered"
    ended = h.sink.of(ToolExecutionEnded)[0]
    assert isinstance(ended, ToolExecutionEnded)
    assert ended.is_error and not ended.aborted and "RuntimeError: kaboom" in ended.result


async def test_adjacent_task_calls_run_at_the_same_time_others_one_by_one() -> None:
    running: list[str] = []
    overlap: list[int] = []

    class Slow:
        def __init__(self, name: str) -> None:
            self.name = name

        def spec(self) -> ToolSpec:
            return ToolSpec(name=self.name, description="slow", parameters={"type": "object"})

        async def invoke(self, arguments: dict[str, JsonValue], ctx: ToolContext) -> ToolOutput:
            running.append(self.name)
            overlap.append(len(running))
            await asyncio.sleep(0.01)
            running.remove(self.name)
            return ToolOutput(f"{self.name} {arguments.get('n')}")

    h = Harness()
    h.model.add(
        answer(
            "", Call("task", {"n": 1}), Call("task", {"n": 2}), Call("slow", {"n": 3}), Call("slow", {"n": 4})
        ),
        answer("ok"),
    )
    conversation = Conversation(h.store, (await h.store.create_session(workspace=WORKSPACE)).id, [])
    loop = AgentLoop(
        model=h.model,
        tools={"task": Slow("task"), "slow": Slow("slow")},
        context=h.context(),
        events=h.sink,
        settings=LoopSettings(model="m", system="s"),
    )
    await loop.run_turn(conversation, "go", Inbox())
    assert overlap == [1, 2, 1, 1]
    texts = [m.tool_results[0].text for m in conversation.messages if m.role == "tool"]
    assert texts == ["task 1", "task 2", "slow 3", "slow 4"]


async def test_unknown_tools_and_bad_json_become_error_results() -> None:
    h = Harness()
    bad_json = [
        *answer("", Call("nope", {})),
    ]
    h.model.add(bad_json, answer("fine"))
    session = await h.runtime().new_session()
    await session.prompt("go")
    tool_text = h.model.requests[1].messages[-1].tool_results[0].text
    assert "unknown tool 'nope'" in tool_text and "read_file" in tool_text

    h2 = Harness()

    def malformed(request: ModelRequest) -> list:  # type: ignore[type-arg]
        from circle.domain.model import Finished, ToolCallDelta, ToolCallStarted

        return [ToolCallStarted(0, "c1", "ls"), ToolCallDelta(0, '{"path": '), Finished(StopReason.TOOL_USE)]

    h2.model.add(malformed, answer("ok"))
    session2 = await h2.runtime().new_session()
    await session2.prompt("go")
    result = h2.model.requests[1].messages[-1].tool_results[0]
    assert result.is_error and "not a JSON object" in result.text


async def test_an_incomplete_answer_ends_the_turn_without_running_its_calls() -> None:
    h = Harness()
    h.model.add(answer("cut", Call("execute", {"command": "rm -rf x"}), stop=StopReason.MAX_TOKENS))
    session = await h.runtime().new_session()
    result = await session.prompt("go")
    assert result.incomplete and result.answer == "cut"
    assert h.processes.calls == []
    last = (await h.store.history(session.session_id))[-1].message
    assert last.tool_results[0].text == NOT_RUN_RESULT


async def test_a_stopped_commands_result_keeps_its_output_so_far_for_the_model_and_its_row() -> None:
    h = Harness(data_dir="/data")  # commands run as jobs: their output streams as they run
    h.processes = FakeProcessRunner({"make": Hang("step 1\nstep 2\n")}, files=h.files)
    h.model.add(answer("", Call("execute", {"command": "make"})), answer("Stopped it."))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("build"))
    async with asyncio.timeout(5):
        while not h.sink.of(ToolExecutionUpdated):
            await asyncio.sleep(0.001)
    assert session.cancel()
    assert (await asyncio.wait_for(task, 5)).aborted
    result = (await h.store.history(session.session_id))[-1].message.tool_results[0]
    assert result.text.startswith(INTERRUPTED_RESULT) and was_interrupted(result)
    assert result.text.endswith("step 1\nstep 2") and result.shown == "step 1\nstep 2"
    await session.prompt("what did it print?")
    sent = h.model.requests[-1].messages
    assert any("step 2" in m.text for m in sent if m.role == "tool")


async def test_a_model_error_ends_the_turn_with_the_error_and_keeps_the_message() -> None:
    h = Harness()
    h.model.add(ModelConnectionError("cannot reach http://127.0.0.1:9"))
    session = await h.runtime().new_session()
    result = await session.prompt("hello")
    assert result.error is not None and result.error.code == "model-connection-error"
    assert any(isinstance(e, ErrorReported) for e in h.sink.events)
    assert [cp.message.text for cp in await h.store.history(session.session_id)] == ["hello"]


async def test_cancel_kills_the_running_command_and_records_the_interruption() -> None:
    h = Harness()
    h.processes.script = {"sleep 100": Hang()}
    h.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("wait"))
    async with asyncio.timeout(5):
        while not h.processes.calls:
            await asyncio.sleep(0.001)
    assert session.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.aborted
    assert h.processes.cancelled == ["sleep 100"]
    last = (await h.store.history(session.session_id))[-1].message
    assert last.tool_results[0].text == INTERRUPTED_RESULT
    ended = h.sink.of(ToolExecutionEnded)[0]
    assert isinstance(ended, ToolExecutionEnded) and ended.is_error and ended.aborted
    turn_end = h.sink.events[-2]
    assert isinstance(turn_end, TurnEnded) and turn_end.aborted
    assert isinstance(h.sink.events[-1], AgentEnded)


async def test_steering_is_read_before_the_next_request_and_follow_ups_start_new_turns() -> None:
    h = Harness()
    session = await h.runtime().new_session()

    def first(request: ModelRequest) -> list:  # type: ignore[type-arg]
        session.steer("also check b")
        session.follow_up("now summarize")
        return answer("", Call("ls", {}))

    h.model.add(first, answer("checked"), answer("summary"))
    result = await session.prompt("check a")
    assert result.answer == "summary"
    second = h.model.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "tool", "user"]
    assert second[-1].text == "also check b"
    assert h.model.requests[2].messages[-1].text == "now summarize"
    assert len(h.sink.of(TurnEnded)) == 2


async def test_max_rounds_stops_a_looping_model() -> None:
    h = Harness(max_rounds=2)
    h.model.add(*[answer("", Call("ls", {})) for _ in range(5)])
    session = await h.runtime().new_session()
    result = await session.prompt("loop")
    assert result.incomplete and result.error is not None and "2 tool rounds" in result.error.message
    assert len(h.model.requests) == 2


async def test_a_refused_change_is_not_made_and_the_model_hears_why() -> None:
    h = Harness(approver=ScriptedApprover(allow={"read_file"}))
    h.model.add(answer("", Call("write_file", {"file_path": "x.txt", "content": "x"})), answer("ok"))
    session = await h.runtime().new_session()
    await session.prompt("write")
    assert f"{WORKSPACE}/x.txt" not in h.files.files
    result = h.model.requests[1].messages[-1].tool_results[0]
    assert result.is_error and "write_file was not approved: scripted refusal" in result.text


async def test_opening_a_session_closes_calls_left_without_results() -> None:
    h = Harness()
    info = await h.store.create_session(workspace=WORKSPACE)
    await h.store.append(info.id, Message.user("go"))
    await h.store.append(
        info.id,
        Message(role="assistant", parts=(ToolCallPart(id="c1", name="ls"),), stop_reason=StopReason.TOOL_USE),
    )
    session = await h.runtime().open_session(info.id)
    messages = session.conversation.messages
    assert messages[-1].tool_results[0].tool_call_id == "c1"
    assert len(await h.store.history(info.id)) == 3


async def test_a_sink_that_throws_does_not_stop_the_agent() -> None:
    class Broken:
        def emit(self, event: object) -> None:
            raise ValueError("sink broke")

    h = Harness()
    runtime = h.runtime()
    runtime.events.subscribe(Broken())  # type: ignore[arg-type]
    h.model.add(answer("still here"))
    session = await runtime.new_session()
    assert (await session.prompt("hi")).answer == "still here"


async def test_prompting_while_a_turn_runs_is_refused() -> None:
    h = Harness()
    h.processes.script = {"sleep": Hang()}
    h.model.add(answer("", Call("execute", {"command": "sleep"})))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("one"))
    async with asyncio.timeout(5):
        while not h.processes.calls:
            await asyncio.sleep(0.001)
    with pytest.raises(ConfigError, match="already running") as refused:
        await session.prompt("two")
    assert refused.value.code == "config-error"
    session.cancel()
    await task
