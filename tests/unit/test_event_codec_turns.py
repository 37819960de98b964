"""``turn_end`` carries pi's ``message`` and ``toolResults`` beside Circle's ``answer`` and ``usage``."""

from __future__ import annotations

from circle.application.events import MessageEnded, TurnEnded, TurnStarted
from circle.domain.messages import Message, StopReason, TextPart, ToolCallPart, Usage
from circle.entrypoints.event_codec import EventEncoder


def test_turn_end_names_the_last_answer_and_the_tool_results_after_it() -> None:
    encoder = EventEncoder()
    encoder.lines(TurnStarted(session_id="s", message="go"))
    call = ToolCallPart(id="c1", name="ls", arguments="{}")
    asked = Message(role="assistant", parts=(call,), stop_reason=StopReason.TOOL_USE)
    encoder.lines(MessageEnded(message=asked, checkpoint_id=None))
    result = Message.tool_result(call_id="c1", name="ls", text="a.txt")
    encoder.lines(MessageEnded(message=result, checkpoint_id=None))

    [line] = encoder.lines(TurnEnded(session_id="s", answer="", usage=Usage(), aborted=True))

    assert line["message"]["content"] == [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}]
    assert [r["toolCallId"] for r in line["toolResults"]] == ["c1"]
    encoder.lines(TurnStarted(session_id="s", message="again"))
    done = Message(role="assistant", parts=(TextPart(text="ok"),), stop_reason=StopReason.END)
    encoder.lines(MessageEnded(message=done, checkpoint_id=None))
    [line] = encoder.lines(TurnEnded(session_id="s", answer="ok", usage=Usage()))
    assert line["message"]["content"] == [{"type": "text", "text": "ok"}] and line["toolResults"] == []


def test_agent_end_messages_keep_the_timestamps_their_events_had_and_an_answer_starts_with_its_model() -> (
    None
):
    from circle.application.events import AgentEnded, AgentStarted, MessageStarted
    from circle.entrypoints.event_codec import Origin

    ticks = iter([1.0, 2.0])
    encoder = EventEncoder(Origin(model=lambda: "m-1"), clock=lambda: next(ticks))
    encoder.lines(AgentStarted(session_id="s"))
    asked = Message.user("go")
    encoder.lines(MessageStarted(message=asked, role="user"))
    encoder.lines(MessageEnded(message=asked, checkpoint_id=None))
    assert encoder.lines(MessageStarted(message=None, role="assistant")) == []  # held until the next
    answer = Message(role="assistant", parts=(TextPart(text="ok"),), stop_reason=StopReason.END)
    start, *_ = encoder.lines(MessageEnded(message=answer, checkpoint_id=None))
    assert start["type"] == "message_start"
    assert start["message"]["model"] == "m-1"

    [end] = encoder.lines(AgentEnded(session_id="s", messages=(asked, answer)))

    assert [m["timestamp"] for m in end["messages"]] == [1000, 2000]
