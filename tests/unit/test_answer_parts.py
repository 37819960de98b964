"""Where streamed events land in the answer (pi's contentIndex), and the lines pi's clients read."""

from __future__ import annotations

import asyncio

import pytest

from circle.application.events import MessageEnded, MessageStarted, MessageUpdated
from circle.application.guards import ask_model
from circle.domain.answer_parts import PartChange, PartTracker
from circle.domain.errors import ModelConnectionError
from circle.domain.messages import StopReason
from circle.domain.model import ModelRequest, TextDelta
from circle.entrypoints.event_codec import EventEncoder
from circle.testing import Call, RecordingSink, ScriptedModel, answer


def test_text_then_a_tool_call_are_parts_0_and_1() -> None:
    tracker = PartTracker()
    changes = [c for e in answer("Looking.", Call("ls", {}, id="c1")) for c in tracker.add(e)]
    changes += tracker.finish()
    assert [(c.phase, c.kind, c.index) for c in changes] == [
        ("start", "text", 0),
        ("delta", "text", 0),
        ("delta", "text", 0),
        ("end", "text", 0),
        ("start", "toolcall", 1),
        ("delta", "toolcall", 1),
        ("end", "toolcall", 1),
    ]


def test_thinking_text_and_an_empty_delta_keep_their_positions() -> None:
    tracker = PartTracker()
    changes = [c for e in answer("Hi", thinking="hmm") for c in tracker.add(e)]
    changes += [*tracker.add(TextDelta(text="")), *tracker.finish()]
    assert PartChange("delta", "thinking", 0, "hmm") in changes
    assert {c.index for c in changes if c.kind == "text"} == {1}
    assert tracker.assembler.message().parts[1].type == "text"


async def _failed_events(model: ScriptedModel) -> list[object]:
    sink = RecordingSink()
    request = ModelRequest(model="m", system="", messages=())
    with pytest.raises(ModelConnectionError):
        await ask_model(model, request, events=sink, model_name="m")
    return list(sink.events)


async def test_a_failed_stream_ends_its_message_stopped_error() -> None:
    def half(_request: ModelRequest) -> list[TextDelta]:
        raise ModelConnectionError("connection dropped")

    events = await _failed_events(ScriptedModel([half]))
    assert isinstance(events[0], MessageStarted)
    assert isinstance(events[-1], MessageEnded) and events[-1].checkpoint_id is None
    assert events[-1].message.stop_reason is StopReason.ERROR
    assert events[-1].message.error == "connection dropped"


async def test_a_cancelled_stream_ends_its_message_stopped_aborted() -> None:
    sink = RecordingSink()

    async def slow(_request: ModelRequest):  # type: ignore[no-untyped-def]
        yield TextDelta(text="so far")
        await asyncio.sleep(30)

    class Slow(ScriptedModel):
        def stream(self, request: ModelRequest):  # type: ignore[no-untyped-def, override]
            return slow(request)

    task = asyncio.create_task(
        ask_model(Slow(), ModelRequest(model="m", system="", messages=()), events=sink, model_name="m")
    )
    while not any(isinstance(e, MessageUpdated) and e.phase == "delta" for e in sink.events):
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    ended = sink.events[-1]
    assert isinstance(ended, MessageEnded) and ended.message.stop_reason is StopReason.ABORTED
    assert ended.message.text == "so far"


async def test_the_encoder_writes_pis_sequence_for_a_streamed_answer() -> None:
    sink = RecordingSink()
    model = ScriptedModel([answer("Looking.", Call("ls", {}, id="c1"))])
    request = ModelRequest(model="m", system="", messages=())
    message = await ask_model(model, request, events=sink, model_name="m")
    encoder = EventEncoder(clock=lambda: 1.5)
    events = [*sink.events, MessageEnded(message=message, checkpoint_id="cp")]
    lines = [line for e in events for line in encoder.lines(e)]
    updates = [line["assistantMessageEvent"] for line in lines if line["type"] == "message_update"]
    assert [u["type"] for u in updates] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert updates[4]["content"] == "Looking."
    assert updates[7]["toolCall"] == {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}
    assert updates[-1]["reason"] == "toolUse"
    end = lines[-1]["message"]
    assert end["timestamp"] == 1500 and end["usage"]["totalTokens"] == 15
    assert end["usage"]["cache_read"] == end["usage"]["cacheRead"] == 0
