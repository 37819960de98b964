from circle.domain.messages import (
    INTERRUPTED_RESULT,
    Message,
    StopReason,
    TextPart,
    ToolCallPart,
    Usage,
    close_unanswered,
    unanswered_tool_calls,
)


def _assistant_calling(*ids: str) -> Message:
    return Message(
        role="assistant",
        parts=tuple(ToolCallPart(id=i, name="ls", arguments="{}") for i in ids),
        stop_reason=StopReason.TOOL_USE,
    )


def test_usage_adds_field_by_field() -> None:
    total = Usage(input=1, output=2, cache_read=3, cache_write=4) + Usage(input=10, output=20)
    assert total == Usage(input=11, output=22, cache_read=3, cache_write=4)
    assert total.total == 40


def test_message_round_trips_through_json() -> None:
    message = Message(
        role="assistant",
        parts=(TextPart(text="hi"), ToolCallPart(id="c1", name="ls", arguments='{"path": "."}')),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(input=5),
    )
    assert Message.model_validate_json(message.model_dump_json()) == message


def test_parsed_arguments_refuses_non_objects() -> None:
    assert ToolCallPart(id="1", name="x", arguments='{"a": 1}').parsed_arguments() == {"a": 1}
    assert ToolCallPart(id="1", name="x", arguments="[1]").parsed_arguments() is None
    assert ToolCallPart(id="1", name="x", arguments='{"a": ').parsed_arguments() is None
    assert ToolCallPart(id="1", name="x", arguments="").parsed_arguments() == {}


def test_unanswered_calls_are_those_of_the_last_answer_without_results() -> None:
    history = [
        Message.user("go"),
        _assistant_calling("a", "b"),
        Message.tool_result(call_id="a", name="ls", text="ok"),
    ]
    assert [c.id for c in unanswered_tool_calls(history)] == ["b"]
    closing = close_unanswered(history)
    assert len(closing) == 1
    result = closing[0].tool_results[0]
    assert (result.tool_call_id, result.is_error, result.text) == ("b", True, INTERRUPTED_RESULT)


def test_a_new_user_message_ends_the_search_for_unanswered_calls() -> None:
    assert unanswered_tool_calls([_assistant_calling("a"), Message.user("next")]) == []
    assert unanswered_tool_calls([]) == []


def test_complete_stop_reasons() -> None:
    assert StopReason.END.is_complete and StopReason.TOOL_USE.is_complete
    assert not any(r.is_complete for r in (StopReason.MAX_TOKENS, StopReason.FILTERED, StopReason.INCOMPLETE))


def test_a_tool_message_s_text_is_what_its_tools_returned() -> None:
    message = Message(
        role="tool",
        parts=(
            *Message.tool_result(call_id="a", name="ls", text="one.txt").parts,
            *Message.tool_result(call_id="b", name="ls", text="two.txt").parts,
        ),
    )
    assert message.text == "one.txt\ntwo.txt"
    assert Message.user("hi").text == "hi"


def test_a_stopped_calls_result_keeps_the_end_of_its_output_so_far() -> None:
    from circle.domain.messages import output_so_far, was_interrupted

    history = [Message.user("go"), _assistant_calling("a", "b")]
    closing = close_unanswered(history, outputs={"a": "one\ntwo\n"})
    kept, bare = (m.tool_results[0] for m in closing)
    assert kept.text == f"{INTERRUPTED_RESULT}\nIts output before it was stopped:\none\ntwo"
    assert kept.shown == "one\ntwo" and was_interrupted(kept)
    assert (bare.text, bare.shown) == (INTERRUPTED_RESULT, None)
    long = "".join(f"line {i}\n" for i in range(3000))
    end = output_so_far(long, limit=100)
    assert len(end) <= 100 and end.startswith("line ") and end.endswith("line 2999")
