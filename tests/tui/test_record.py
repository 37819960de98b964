"""The record a subagent's strip item opens: each tool result shown once."""

from circle.domain.messages import Message, TextPart, ToolCallPart
from circle.entrypoints.tui.screens.record import record_text


def test_a_tool_result_is_shown_once() -> None:
    messages = [
        Message.user("look"),
        Message(role="assistant", parts=(ToolCallPart(id="a", name="ls", arguments="{}"),)),
        Message.tool_result(call_id="a", name="ls", text="notes.txt"),
        Message(role="assistant", parts=(TextPart(text="One file."),)),
    ]
    assert record_text(messages).count("notes.txt") == 1
    assert "One file." in record_text(messages)
