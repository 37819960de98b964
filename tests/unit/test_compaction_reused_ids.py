"""A compaction of a conversation whose model numbers its calls anew in each answer (``call_0``
again and again, as some OpenAI-compatible servers do): each result goes with the call just before
it, so the messages kept are whole rounds, in order, each result after its own call."""

from __future__ import annotations

from collections.abc import Sequence

from circle.domain.budget import RequestBudget
from circle.domain.compaction import (
    pinned_rounds,
    plan_compaction,
    round_closure,
    summary_message,
    valid_cuts,
)
from circle.domain.messages import Message, StopReason, TextPart, ToolCallPart


def _answer(text: str, *calls: ToolCallPart) -> Message:
    parts = ((TextPart(text=text),) if text else ()) + calls
    return Message(
        role="assistant", parts=parts, stop_reason=StopReason.TOOL_USE if calls else StopReason.END
    )


def _round(name: str, size: int, *, call_id: str = "call_0") -> list[Message]:
    call = ToolCallPart(id=call_id, name=name, arguments='{"x": 1}')
    return [_answer("", call), Message.tool_result(call_id=call_id, name=name, text="r" * size)]


def _conversation() -> list[Message]:
    messages = [Message.user("start")]
    for turn in range(12):
        messages += [Message.user(f"turn {turn} " + "u" * 2_000), *_round("read_file", 3_000), _answer("ok")]
    messages += _round("write_todos", 100)  # the pinned round reuses the id of every other call
    messages += [Message.user("last"), *_round("ls", 100), _answer("done")]
    return messages


def assert_rounds_whole(messages: Sequence[Message]) -> None:
    """Each result answers a call of the message just before it (or of the results before it)."""
    pending: dict[str, str] = {}
    for message in messages:
        if message.role == "tool":
            for result in message.tool_results:
                assert pending.pop(result.tool_call_id, None) == result.tool_name, result
            continue
        assert not pending, f"calls {pending} not answered before a {message.role} message"
        pending = {call.id: call.name for call in message.tool_calls}
    assert not pending


def test_a_result_goes_with_the_latest_call_of_its_id() -> None:
    messages = _conversation()
    pinned = pinned_rounds(messages)
    assert round_closure(messages, pinned) == {pinned[0], pinned[0] + 1}
    for cut in valid_cuts(messages):
        assert_rounds_whole(messages[cut:])


def test_a_compaction_keeps_whole_rounds_when_ids_repeat() -> None:
    messages = _conversation()
    plan = plan_compaction(messages, RequestBudget(20_000), pinned_indices=pinned_rounds(messages))
    after = plan.apply(messages, summary_message("summary"))
    assert_rounds_whole(after[1:])
    todos = [m for m in after if any(c.name == "write_todos" for c in m.tool_calls)]
    assert len(todos) == 1
