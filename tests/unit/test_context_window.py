"""When the loop compacts: what the endpoint counted for the last answer, not only characters / 4."""

from __future__ import annotations

import json

from circle.application.events import CompactionEnded
from circle.domain.budget import reported_tokens
from circle.domain.errors import ContextOverflowError
from circle.domain.messages import Message, StopReason, TextPart, ToolCallPart, Usage
from circle.domain.model import ModelEvent, ModelRequest
from circle.testing import Call, answer

from .test_compaction import SUMMARY, WORKSPACE, Setup, seeded

CHINESE = "".join(f"{i}. 上下文窗口会在长对话中被填满，所以需要压缩。\n" for i in range(300))
"""300 numbered lines of Chinese prose: about 5,000 tokens for a tokenizer, 2,000 by characters / 4."""


def endpoint_tokens(request: ModelRequest) -> int:
    """What a tokenizer counts: 1.5 characters a token for Chinese, 4 for the rest."""
    texts = [request.system, *(json.dumps(t.parameters) + t.description for t in request.tools)]
    for message in request.messages:
        for part in message.parts:
            texts.append(part.model_dump_json())
    text = "".join(texts)
    wide = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\uff00")
    return round(wide / 1.5 + (len(text) - wide) / 4)


def test_the_count_is_the_last_answer_as_reported_plus_what_came_after() -> None:
    call = ToolCallPart(id="c1", name="read_file", arguments="{}")
    usage = Usage(input=100_000, output=50, cache_read=20_000)
    reported = Message(role="assistant", parts=(call,), usage=usage)
    after = Message.tool_result(call_id="c1", name="read_file", text="x" * 4_000)
    messages = [Message.user("hi"), reported, after]
    assert reported_tokens(messages) == 120_050 + 1_000 + 4 + 4  # the result: its text, part and message
    assert reported_tokens(messages, since=2) is None
    assert reported_tokens([Message.user("hi"), Message(role="assistant", parts=(), usage=Usage())]) is None


async def test_an_answer_reporting_most_of_the_window_compacts_before_the_next_request() -> None:
    setup = Setup(window=128_000)
    session_id = await seeded(setup, rounds=6, size=2_000)
    big = Usage(input=120_000, output=200)
    setup.model.add(
        answer("", Call("read_file", {"file_path": "f.txt"}), usage=big),
        answer("second done"),
    )
    await setup.files.write_bytes(f"{WORKSPACE}/f.txt", b"short file\n")
    session = await setup.runtime().open_session(session_id)
    result = await session.prompt("second task")

    assert result.answer == "second done", result.error
    (end,) = setup.sink.of(CompactionEnded)
    assert isinstance(end, CompactionEnded) and end.reason == "threshold" and end.error is None
    assert end.tokens_before >= 120_200
    last = setup.model.requests[-1]
    assert SUMMARY in last.messages[0].text


async def test_a_chinese_conversation_compacts_before_it_overflows() -> None:
    setup = Setup(window=40_000)
    await setup.files.write_bytes(f"{WORKSPACE}/zh.txt", CHINESE.encode())
    rounds = 0

    def endpoint(request: ModelRequest) -> list[ModelEvent]:
        nonlocal rounds
        counted = endpoint_tokens(request)
        if counted > setup.window:
            raise ContextOverflowError(f"prompt is too long: {counted} tokens > {setup.window}")
        if not request.tools:
            return answer(SUMMARY, usage=Usage(input=counted, output=100))
        rounds += 1
        if rounds > 14:
            return answer("read them all", usage=Usage(input=counted, output=10))
        read = Call("read_file", {"file_path": "zh.txt"}, id=f"c{rounds}")
        return answer("", read, usage=Usage(input=counted, output=30))

    setup.model.add(*[endpoint] * 40)
    session = await setup.runtime().new_session()
    result = await session.prompt("读这个文件十四次")

    assert result.answer == "read them all", result.error
    ends = [e for e in setup.sink.of(CompactionEnded) if isinstance(e, CompactionEnded)]
    assert [e.reason for e in ends][:1] == ["threshold"] and "overflow" not in [e.reason for e in ends]
    assert all(e.error is None for e in ends)
    assert ends[0].tokens_before > 0.85 * setup.window * 0.9


async def test_after_a_compaction_the_counts_of_the_answers_it_kept_are_not_trusted() -> None:
    setup = Setup(window=128_000)
    session_id = await seeded(setup, rounds=6, size=2_000)
    big = Usage(input=110_000, output=200)
    setup.model.add(answer("", Call("compact_conversation", {}, id="k1"), usage=big), answer("done"))
    session = await setup.runtime().open_session(session_id)
    result = await session.prompt("second task")

    assert result.answer == "done", result.error
    ends = [e for e in setup.sink.of(CompactionEnded) if isinstance(e, CompactionEnded)]
    assert [e.reason for e in ends] == ["manual"]
    assert ends[0].tokens_before >= 110_200


def test_a_message_without_usage_is_estimated() -> None:
    stop = Message(role="assistant", parts=(TextPart(text="ok"),), stop_reason=StopReason.END)
    assert reported_tokens([Message.user("a"), stop]) is None
