from circle.domain.messages import StopReason, TextPart, ThinkingPart, ToolCallPart, Usage
from circle.domain.model import (
    AnswerAssembler,
    Finished,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStarted,
    UsageReported,
)


def test_deltas_fold_into_parts_in_order() -> None:
    asm = AnswerAssembler()
    for event in [
        ThinkingDelta(text="let me "),
        ThinkingDelta(text="see", signature="sig"),
        TextDelta(text="Hel"),
        TextDelta(text="lo"),
        ToolCallStarted(index=0, id="c0", name="ls"),
        ToolCallStarted(index=1, id="c1", name="read_file"),
        ToolCallDelta(index=1, arguments='{"file_path":'),
        ToolCallDelta(index=0, arguments="{}"),
        ToolCallDelta(index=1, arguments='"a"}'),
        UsageReported(usage=Usage(input=3, output=4)),
        Finished(stop_reason=StopReason.TOOL_USE, model="m1"),
    ]:
        asm.add(event)
    message = asm.message()
    assert message.parts == (
        ThinkingPart(text="let me see", signature="sig"),
        TextPart(text="Hello"),
        ToolCallPart(id="c0", name="ls", arguments="{}"),
        ToolCallPart(id="c1", name="read_file", arguments='{"file_path":"a"}'),
    )
    assert message.stop_reason is StopReason.TOOL_USE
    assert message.usage == Usage(input=3, output=4)
    assert message.model == "m1"


def test_a_stream_without_finish_is_incomplete() -> None:
    asm = AnswerAssembler()
    asm.add(TextDelta(text="partial"))
    assert not asm.finished
    assert asm.message().stop_reason is StopReason.INCOMPLETE


def test_an_empty_finished_answer_is_empty() -> None:
    asm = AnswerAssembler()
    asm.add(Finished(stop_reason=StopReason.END))
    assert asm.message().stop_reason is StopReason.EMPTY


def test_tool_calls_with_an_end_finish_count_as_tool_use() -> None:
    asm = AnswerAssembler()
    asm.add(ToolCallStarted(index=0, id="c", name="ls"))
    asm.add(Finished(stop_reason=StopReason.END))
    assert asm.message().stop_reason is StopReason.TOOL_USE


def test_redacted_thinking_stays_its_own_part() -> None:
    asm = AnswerAssembler()
    asm.add(ThinkingDelta(text="a"))
    asm.add(ThinkingDelta(redacted="opaque"))
    asm.add(Finished(stop_reason=StopReason.END))
    assert asm.message().parts == (ThinkingPart(text="a"), ThinkingPart(redacted="opaque"))


def test_a_signed_thinking_block_is_closed_and_the_next_starts_a_new_part() -> None:
    asm = AnswerAssembler()
    for event in [
        ThinkingDelta(text="one"),
        ThinkingDelta(signature="s1"),
        ThinkingDelta(text="two"),
        ThinkingDelta(signature="s2"),
        Finished(stop_reason=StopReason.END),
    ]:
        asm.add(event)
    assert asm.message().parts == (
        ThinkingPart(text="one", signature="s1"),
        ThinkingPart(text="two", signature="s2"),
    )
