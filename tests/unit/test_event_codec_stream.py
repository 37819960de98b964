"""A streamed answer's lines as pi writes them: the scratch fields of a tool call still streaming,
and a failed answer in ``message_start`` and ``agent_end`` as pi's agent loop sends it."""

from __future__ import annotations

from pydantic import JsonValue

from circle.application.events import AgentEnded, AgentEvent, MessageEnded, MessageStarted
from circle.application.guards import ask_model
from circle.domain.messages import Message, StopReason, TextPart
from circle.domain.model import (
    Finished,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
)
from circle.entrypoints.event_codec import EventEncoder, Origin
from circle.testing import RecordingSink, ScriptedModel

STREAMED: list[ModelEvent] = [
    TextDelta(text="Looking."),
    ToolCallStarted(index=0, id="c1", name="execute"),
    ToolCallDelta(index=0, arguments='{"command": "l'),
    ToolCallDelta(index=0, arguments='s -la"}'),
    ToolCallEnded(index=0),
    Finished(stop_reason=StopReason.TOOL_USE, model="m"),
]


async def _lines(events: list[ModelEvent], origin: Origin | None = None) -> list[dict[str, JsonValue]]:
    sink = RecordingSink()
    message = await ask_model(
        ScriptedModel([events]), ModelRequest(model="m", system="", messages=()), events=sink, model_name="m"
    )
    encoder = EventEncoder(origin, clock=lambda: 1.0)
    seen: list[AgentEvent] = [*sink.events, MessageEnded(message=message, checkpoint_id="cp")]
    return [line for event in seen for line in encoder.lines(event)]


def _updates(lines: list[dict[str, JsonValue]], kind: str) -> list[dict[str, JsonValue]]:
    return [
        line
        for line in lines
        if isinstance(update := line.get("assistantMessageEvent"), dict) and update["type"] == kind
    ]


def _calls(line: dict[str, JsonValue]) -> list[dict[str, JsonValue]]:
    update = line["assistantMessageEvent"]
    assert isinstance(update, dict) and isinstance(update["partial"], dict)
    content = update["partial"]["content"]
    assert isinstance(content, list)
    return [block for block in content if isinstance(block, dict) and block["type"] == "toolCall"]


async def test_a_tool_call_still_streaming_carries_pis_partial_args_and_stream_index() -> None:
    lines = await _lines(STREAMED)
    [started] = _calls(_updates(lines, "toolcall_start")[0])
    assert started["partialArgs"] == "" and started["streamIndex"] == 0 and started["arguments"] == {}
    [growing] = _calls(_updates(lines, "toolcall_delta")[-1])  # the last delta: the whole text
    assert growing["partialArgs"] == '{"command": "ls -la"}' and growing["streamIndex"] == 0
    assert growing["arguments"] == {"command": "ls -la"}
    [ended] = _calls(_updates(lines, "toolcall_end")[0])
    assert ended == {"type": "toolCall", "id": "c1", "name": "execute", "arguments": {"command": "ls -la"}}
    message_end = lines[-1]["message"]
    assert isinstance(message_end, dict) and "partialArgs" not in str(message_end)


async def test_a_half_written_call_reads_as_the_arguments_so_far() -> None:
    lines = await _lines(STREAMED)
    [first] = _calls(_updates(lines, "toolcall_delta")[0])
    assert first["partialArgs"] == '{"command": "l' and first["arguments"] == {"command": "l"}


async def test_an_anthropic_call_streams_pis_partial_json_and_index_names() -> None:
    lines = await _lines(STREAMED, Origin(api="anthropic-messages"))
    [started] = _calls(_updates(lines, "toolcall_start")[0])
    assert started["partialJson"] == "" and started["index"] == 0 and "partialArgs" not in started


def test_an_answer_that_fails_before_its_first_chunk_starts_as_the_failed_answer() -> None:
    encoder = EventEncoder(clock=lambda: 2.0)
    asked = Message.user("stall please")
    encoder.lines(MessageStarted(message=asked, role="user"))
    encoder.lines(MessageEnded(message=asked, checkpoint_id="cp-1"))
    assert encoder.lines(MessageStarted(message=None, role="assistant")) == []
    failed = Message(role="assistant", parts=(), stop_reason=StopReason.ABORTED, error="Request was aborted")

    lines = encoder.lines(MessageEnded(message=failed, checkpoint_id=None))

    assert [line["type"] for line in lines] == ["message_start", "message_update", "message_end"]
    start = lines[0]["message"]
    assert isinstance(start, dict)
    assert start["stopReason"] == "aborted" and start["errorMessage"] == "Request was aborted"


def test_agent_end_lists_a_failed_answer_where_it_came_though_it_is_not_stored() -> None:
    encoder = EventEncoder(clock=lambda: 2.0)
    asked = Message.user("stall please")
    encoder.lines(MessageEnded(message=asked, checkpoint_id="cp-1"))
    encoder.lines(MessageStarted(message=None, role="assistant"))
    partial = (TextPart(text="Partial ans"),)
    failed = Message(role="assistant", parts=partial, stop_reason=StopReason.ABORTED, error="aborted")
    encoder.lines(MessageEnded(message=failed, checkpoint_id=None))

    [end] = encoder.lines(AgentEnded(session_id="s", messages=(asked,)))

    listed = end["messages"]
    assert isinstance(listed, list) and len(listed) == 2
    assert listed[0]["role"] == "user"  # type: ignore[index]
    assert listed[1]["errorMessage"] == "aborted" and listed[1]["stopReason"] == "aborted"  # type: ignore[index]
    [again] = encoder.lines(AgentEnded(session_id="s", messages=()))
    assert again["messages"] == []  # a run lists only its own


async def test_an_answer_that_streamed_starts_before_its_first_update_as_before() -> None:
    lines = await _lines(STREAMED)
    assert [line["type"] for line in lines[:3]] == ["message_start", "message_update", "message_update"]
    start = lines[0]["message"]
    assert isinstance(start, dict) and "errorMessage" not in start
