"""Thinking cut by a stop is stored for the person to see, and never sent back to the model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from circle.adapters.models._anthropic_wire import RequestEncoder as AnthropicEncoder
from circle.adapters.models._anthropic_wire import message_blocks
from circle.adapters.models._openai_chat_wire import RequestEncoder as ChatEncoder
from circle.adapters.models._openai_chat_wire import message_to_wire
from circle.adapters.models._openai_responses_wire import message_to_items
from circle.application.events import MessageUpdated
from circle.application.guards import request_messages, says_something
from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart, ToolCallPart
from circle.domain.model import Finished, ModelEvent, ModelRequest, ThinkingDelta
from circle.testing import ScriptedModel, answer

from ._harness import Harness


class StallsAfter(ScriptedModel):
    """Plays its steps; a step without an end waits there until the stream is cancelled."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        finished = False
        async for event in super().stream(request):
            finished = isinstance(event, Finished)
            yield event
        if not finished:
            await asyncio.Event().wait()


CUT = Message(
    role="assistant",
    parts=(ThinkingPart(text="thinking step 0 about it.", provider_id="rs_1"),),
    stop_reason=StopReason.ABORTED,
    error="Request was aborted",
)


async def test_thinking_stopped_before_any_text_is_stored_and_left_out_of_the_next_request() -> None:
    h = Harness(model=StallsAfter([[ThinkingDelta(text="thinking step 0 "), ThinkingDelta(text="about")]]))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("think"))
    async with asyncio.timeout(5):
        while len(h.sink.of(MessageUpdated)) < 2:
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    assert session.cancel()
    assert (await asyncio.wait_for(task, 5)).aborted
    stored = [cp.message for cp in await h.store.history(session.session_id)]
    assert [(m.role, m.parts, m.stop_reason) for m in stored] == [
        ("user", (TextPart(text="think"),), None),
        ("assistant", (ThinkingPart(text="thinking step 0 about"),), StopReason.ABORTED),
    ]
    h.model.add(answer("fine"))
    await session.prompt("and now?")
    sent = h.model.requests[-1].messages
    assert [(m.role, m.text) for m in sent] == [("user", "think"), ("user", "and now?")]


def test_request_messages_leave_out_an_answer_with_thinking_alone() -> None:
    call = Message(role="assistant", parts=(ThinkingPart(text="x"), ToolCallPart(id="c", name="ls")))
    history = [Message.user("a"), CUT, Message.user("b"), call]
    assert request_messages(history) == (history[0], history[2], call)
    assert not says_something(CUT) and says_something(call)
    blank = Message(role="assistant", parts=(ThinkingPart(text="x"), TextPart(text="  ")))
    assert not says_something(blank)


def test_no_protocol_writes_an_assistant_message_for_thinking_alone() -> None:
    assert message_to_wire(CUT) == []
    assert message_to_items(CUT) == []
    assert message_blocks(CUT) == ("assistant", ())


def test_thinking_cut_after_the_text_is_not_sent_back_by_any_protocol() -> None:
    stopped = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="whole", signature="sig", provider_id="rs_1"),
            TextPart(text="First this."),
            ThinkingPart(text="and now I wonder wheth", provider_id="rs_2"),
        ),
        stop_reason=StopReason.ABORTED,
    )
    assert message_to_wire(stopped) == [{"role": "assistant", "content": "First this."}]
    assert [item["type"] for item in message_to_items(stopped)] == ["reasoning", "message"]
    _, blocks = message_blocks(stopped)
    assert [json.loads(block.json)["type"] for block in blocks] == ["thinking", "text"]


def test_the_chat_and_anthropic_bodies_stay_valid_with_a_cut_answer_between_two_messages() -> None:
    messages = (Message.user("think"), CUT, Message.user("and now?"))
    request = ModelRequest(model="m", system="s", messages=messages)
    chat = json.loads(ChatEncoder().encode(request, model="m"))
    assert [(m["role"], m["content"]) for m in chat["messages"]] == [
        ("system", "s"),
        ("user", "think"),
        ("user", "and now?"),
    ]
    body, _ = AnthropicEncoder().encode(request, model="m", scope="x")
    wire = json.loads(body)["messages"]
    assert [m["role"] for m in wire] == ["user"]  # the two person's messages, in one


def test_sendable_looks_again_only_at_the_messages_added_and_agrees_with_a_fresh_look() -> None:
    from circle.application.guards import Sendable

    history = [Message.user("a"), CUT, Message.user("b")]
    sendable = Sendable()
    assert sendable(history) == (history[0], history[2])
    answered = Message(role="assistant", parts=(TextPart(text="ok"),))
    history += [answered, CUT]
    assert sendable(history) == (history[0], history[2], answered)
    del history[-2:]  # /undo: the history is shorter
    assert sendable(history) == request_messages(history) == (history[0], history[2])
