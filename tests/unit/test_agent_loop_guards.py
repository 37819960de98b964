"""The loop's guards, driven by ScriptedModel: repetition, loop reminders and tool-call repair."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from circle.application.agent_loop import AgentLoop, Inbox, LoopSettings
from circle.application.conversation import Conversation
from circle.application.events import MessageStarted, ToolExecutionEnded, TurnEnded
from circle.application.guards import (
    REPEATED_TEXT_NOTE,
    REPEATED_THINKING_NOTE,
    THINKING_REMINDER,
)
from circle.application.tools import builtin_tools
from circle.domain.messages import NOT_RUN_RESULT, Message, StopReason, ThinkingPart, Usage
from circle.domain.model import (
    Finished,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
    UsageReported,
)
from circle.testing import Call, answer

from ._harness import WORKSPACE, Harness

PARAGRAPH = (
    "The user wants the failing test fixed. The tokenizer returns an empty list when the input has "
    "trailing whitespace, so I should look at how strip() is applied before the split. Let me read "
    "src/parser/tokenizer.py and then run the test again to see what changes.\n\n"
)


def chunks(text: str, size: int = 9) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class Stream(list[ModelEvent]):
    """A long streamed answer that records how far it was read."""

    read = 0

    def __iter__(self) -> Iterator[ModelEvent]:
        for event in super().__iter__():
            self.read += 1
            yield event

    @property
    def stopped_early(self) -> bool:
        return 0 < self.read < len(self)


def thinking_loop() -> Stream:
    thinking = [ThinkingDelta(text=c) for c in chunks("Let me think.\n\n" + PARAGRAPH * 12)]
    tail: list[ModelEvent] = [TextDelta(text="never reached"), Finished(StopReason.END)]
    return Stream([UsageReported(Usage(input=7)), *thinking, *tail])  # input usage comes first


def user_texts(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [m.text for m in messages if m.role == "user"]


async def stored(h: Harness, session_id: str) -> list[Message]:
    return [cp.message for cp in await h.store.history(session_id)]


async def test_thinking_that_repeats_is_cut_and_asked_again_with_a_reminder() -> None:
    h = Harness()
    looping = thinking_loop()
    h.model.add(looping, answer("Fixed it.", thinking="Strip before splitting."))
    session = await h.runtime().new_session()
    result = await session.prompt("fix the test")
    assert result.answer == "Fixed it." and not result.incomplete
    assert looping.stopped_early
    first, second = h.model.requests
    assert user_texts(first.messages) == ["fix the test"]
    assert second.messages[-1].role == "user" and second.messages[-1].text == THINKING_REMINDER
    history = await stored(h, session.session_id)
    assert [m.role for m in history] == ["user", "assistant"]
    assert history[1].text == "Fixed it." and THINKING_REMINDER not in user_texts(history)
    assert len(h.sink.of(MessageStarted)) == 3  # the person's message, the dropped answer, the answer


async def test_thinking_that_keeps_repeating_is_kept_cut_short_as_an_incomplete_answer() -> None:
    h = Harness()
    loops = [thinking_loop() for _ in range(3)]
    h.model.add(*loops, answer("unused"))
    session = await h.runtime().new_session()
    result = await session.prompt("fix the test")
    assert result.incomplete and result.error is None
    assert len(h.model.requests) == 3 and all(loop.stopped_early for loop in loops)
    for request in h.model.requests[1:]:
        assert user_texts(request.messages) == ["fix the test", THINKING_REMINDER]
    last = (await stored(h, session.session_id))[-1]
    assert last.stop_reason is StopReason.INCOMPLETE and last.error == REPEATED_THINKING_NOTE
    thinking = [p for p in last.parts if isinstance(p, ThinkingPart)]
    assert len(thinking) == 1 and thinking[0].text.count("Let me read src/parser/tokenizer.py") == 1
    assert last.usage is not None and last.usage.input == 21  # the dropped answers count too
    ended = h.sink.of(TurnEnded)[-1]
    assert isinstance(ended, TurnEnded) and ended.incomplete


async def test_an_answer_that_repeats_is_stopped_kept_up_to_the_loop_and_its_calls_are_not_run() -> None:
    h = Harness()
    text = "Let me look first. " + "I need to check the file. " * 200
    events: list[ModelEvent] = [
        ToolCallStarted(0, "c1", "execute"),
        ToolCallDelta(0, '{"command": "make deploy"}'),
        ToolCallEnded(0),
        *[TextDelta(text=c) for c in chunks(text, 5)],
        Finished(StopReason.TOOL_USE),
    ]
    looping = Stream(events)
    h.model.add(looping, answer("unused"))
    session = await h.runtime().new_session()
    result = await session.prompt("deploy")
    assert result.incomplete and looping.stopped_early
    assert result.answer == "Let me look first. I need to check the file. "
    assert h.processes.calls == [] and len(h.model.requests) == 1
    history = await stored(h, session.session_id)
    answer_message, not_run = history[-2], history[-1]
    assert answer_message.stop_reason is StopReason.INCOMPLETE and answer_message.error == REPEATED_TEXT_NOTE
    assert answer_message.tool_calls[0].name == "execute"
    assert not_run.tool_results[0].text == NOT_RUN_RESULT


async def test_the_same_call_three_times_earns_a_reminder_in_the_next_request_only() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/a.txt", "alpha\n")
    read = Call("read_file", {"file_path": "a.txt"})
    h.model.add(answer("", read), answer("", read), answer("", read), answer("It says alpha."))
    session = await h.runtime().new_session()
    result = await session.prompt("what is in a.txt?")
    assert result.answer == "It says alpha."
    requests = h.model.requests
    assert [m.role for m in requests[2].messages][-1] == "tool"
    reminder = requests[3].messages[-1]
    assert reminder.role == "user"
    assert "called read_file with the same arguments 3 times" in reminder.text
    assert len(requests[3].messages) == len(requests[2].messages) + 3
    history = await stored(h, session.session_id)
    assert user_texts(history) == ["what is in a.txt?"]


async def test_searches_that_keep_finding_nothing_earn_a_reminder() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/src/app.py", "print('hi')\n")
    h.model.add(
        answer("", Call("grep", {"pattern": "parse_config"})),
        answer("", Call("glob", {"pattern": "**/config*.py"})),
        answer("", Call("read_file", {"file_path": "src/config.py"})),
        answer("", Call("grep", {"pattern": "load_settings"})),
        answer("There is no config loader."),
    )
    session = await h.runtime().new_session()
    await session.prompt("where is the config parsed?")
    requests = h.model.requests
    assert all(m.role != "user" for m in requests[3].messages[1:])
    last = requests[4].messages[-1]
    assert last.role == "user" and "last 4 searches and reads found nothing" in last.text
    assert user_texts(await stored(h, session.session_id)) == ["where is the config parsed?"]


async def test_a_call_with_a_mistaken_name_and_argument_runs_repaired_and_is_stored_as_written() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/a.txt", "alpha\n")
    h.model.add(answer("", Call("Read_File", {"filePath": "a.txt"})), answer("done"))
    session = await h.runtime().new_session()
    await session.prompt("read it")
    result = h.model.requests[1].messages[-1].tool_results[0]
    assert not result.is_error and "alpha" in result.text
    assert result.text.startswith(
        "(call repaired: tool name Read_File → read_file; argument filePath → file_path)\n"
    )
    call = (await stored(h, session.session_id))[1].tool_calls[0]
    assert call.name == "Read_File" and call.arguments == '{"filePath": "a.txt"}'


async def test_arguments_with_junk_after_the_json_are_repaired() -> None:
    h = Harness()

    def junk(request: ModelRequest) -> list[ModelEvent]:
        return [
            ToolCallStarted(0, "c1", "execute"),
            ToolCallDelta(0, '{"command": "echo hi"}\n</tool_call>'),
            Finished(StopReason.TOOL_USE),
        ]

    h.model.add(junk, answer("ok"))
    session = await h.runtime().new_session()
    await session.prompt("say hi")
    assert [c.command for c in h.processes.calls] == ["echo hi"]


async def test_a_call_that_does_not_fit_the_schema_is_not_run_and_the_model_hears_why() -> None:
    h = Harness()
    h.model.add(answer("", Call("execute", {"run": "rm -rf build", "timeout": "soon"})), answer("ok"))
    session = await h.runtime().new_session()
    await session.prompt("clean")
    assert h.processes.calls == []
    ended = h.sink.of(ToolExecutionEnded)[0]
    assert isinstance(ended, ToolExecutionEnded) and ended.is_error
    assert ended.result.startswith("invalid arguments for execute: 'command' is a required property")
    assert "timeout: 'soon' is not of type 'integer'" in ended.result


async def test_a_repeating_stream_is_closed_before_the_request_is_sent_again() -> None:
    class Endless:
        """Thinks the same paragraph forever on the first request, answers on the next."""

        def __init__(self) -> None:
            self.open = 0
            self.open_when_asked: list[int] = []

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            self.open_when_asked.append(self.open)
            self.open += 1
            try:
                if len(self.open_when_asked) == 1:
                    while True:
                        yield ThinkingDelta(text=PARAGRAPH)
                for event in answer("done"):
                    yield event
            finally:
                self.open -= 1

        async def aclose(self) -> None:
            pass

    h = Harness()
    model = Endless()
    conversation = Conversation(h.store, (await h.store.create_session(workspace=WORKSPACE)).id, [])
    loop = AgentLoop(
        model=model,
        tools=builtin_tools(),
        context=h.context(),
        events=h.sink,
        settings=LoopSettings(model="m", system="s"),
    )
    result = await loop.run_turn(conversation, "go", Inbox())
    assert result.answer == "done"
    assert model.open_when_asked == [0, 0] and model.open == 0
