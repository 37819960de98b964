"""The compaction plan, on random conversations with tool rounds (hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from circle.domain.budget import MESSAGE_OVERHEAD, RequestBudget, message_tokens, messages_tokens
from circle.domain.compaction import (
    SUMMARY_MARKER,
    is_summary,
    newest_request,
    pinned_rounds,
    plan_compaction,
    summary_message,
    valid_cuts,
)
from circle.domain.messages import Message, StopReason, TextPart, ToolCallPart

TOOL_NAMES = ("ls", "read_file", "execute", "write_todos")


def assistant(text: str, *calls: ToolCallPart) -> Message:
    parts = ((TextPart(text=text),) if text else ()) + calls
    return Message(
        role="assistant", parts=parts, stop_reason=StopReason.TOOL_USE if calls else StopReason.END
    )


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    counter = 0
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()) or not messages:
            messages.append(Message.user("u" * draw(st.integers(1, 3_000))))
        for _ in range(draw(st.integers(0, 4))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                counter += 1
                name = draw(st.sampled_from(TOOL_NAMES))
                calls.append(ToolCallPart(id=f"c{counter}", name=name, arguments='{"x": 1}'))
            messages.append(assistant("a" * draw(st.integers(0, 200)), *calls))
            for call in calls:
                size = draw(st.integers(0, 12_000))
                messages.append(Message.tool_result(call_id=call.id, name=call.name, text="r" * size))
        if draw(st.booleans()):
            messages.append(assistant("done " * draw(st.integers(1, 100))))
    return messages


budgets = st.builds(
    RequestBudget,
    context_window=st.integers(1_000, 60_000),
    reserve_output=st.integers(0, 4_000),
    threshold=st.floats(0.5, 0.95),
    keep=st.floats(0.0, 0.3),
)


def assert_valid(messages: Sequence[Message]) -> None:
    """Every call's results follow it at once, and every result's call came before (all protocols)."""
    pending: set[str] = set()
    seen: set[str] = set()
    for message in messages:
        if message.role == "tool":
            for result in message.tool_results:
                assert result.tool_call_id in pending, f"result {result.tool_call_id} without its call"
                pending.discard(result.tool_call_id)
            continue
        assert not pending, f"calls {pending} not answered before a {message.role} message"
        for call in message.tool_calls:
            assert call.id not in seen
            seen.add(call.id)
            pending.add(call.id)
    assert not pending


@settings(max_examples=300, deadline=None)
@given(conversations(), budgets, st.integers(0, 2_000))
def test_the_plan_keeps_rounds_whole_fits_the_budget_and_keeps_the_newest_request(
    messages: list[Message], budget: RequestBudget, fixed: int
) -> None:
    plan = plan_compaction(messages, budget, pinned_indices=pinned_rounds(messages), fixed_tokens=fixed)
    n = len(messages)
    covered = [*plan.summarize, *plan.pinned, *plan.kept]
    assert sorted(covered) == list(range(n)), "every message is summarized, pinned or kept, once"

    after = plan.apply(messages, summary_message("s" * (budget.summary_tokens * 4 - 64)))
    assert_valid(after)

    newest = newest_request(messages)
    if newest is not None:
        assert messages[newest] in after[1:]

    pinned_kept = [messages[i] for i in (*plan.pinned, *plan.kept)]
    estimate = fixed + budget.summary_tokens + MESSAGE_OVERHEAD + messages_tokens(pinned_kept)
    assert plan.estimated_tokens_after == estimate
    assert fixed + message_tokens(after[0]) + messages_tokens(after[1:]) <= estimate
    if plan.fits:
        assert plan.estimated_tokens_after <= budget.limit
    smallest = fixed + budget.summary_tokens + MESSAGE_OVERHEAD
    smallest += message_tokens(messages[newest]) if newest is not None else 0
    if smallest <= budget.limit:
        assert plan.fits, "the budget could be met, so the plan meets it"


@settings(max_examples=200, deadline=None)
@given(conversations())
def test_a_cut_never_separates_a_call_from_its_result(messages: list[Message]) -> None:
    for cut in valid_cuts(messages):
        assert_valid(messages[cut:])


def test_the_latest_todo_round_is_pinned_verbatim_when_it_fits() -> None:
    todo = ToolCallPart(id="t1", name="write_todos", arguments='{"todos": ["a", "b"]}')
    messages = [
        Message.user("build it"),
        assistant("", todo),
        Message.tool_result(call_id="t1", name="write_todos", text="2 todos"),
        *[m for i in range(20) for m in _round(f"r{i}", 4_000)],
    ]
    plan = plan_compaction(messages, RequestBudget(20_000), pinned_indices=pinned_rounds(messages))
    assert plan.fits and plan.pinned == (0, 1, 2)
    after = plan.apply(messages, summary_message("summary"))
    assert after[1:4] == messages[0:3]
    assert is_summary(after[0]) and after[0].text.startswith(SUMMARY_MARKER)


def test_a_short_conversation_has_nothing_to_summarize() -> None:
    messages = [Message.user("hi"), assistant("hello")]
    plan = plan_compaction(messages, RequestBudget(100_000))
    assert plan.summarize == () or plan.keep_from <= 2


def _round(call_id: str, size: int) -> list[Message]:
    call = ToolCallPart(id=call_id, name="read_file", arguments="{}")
    return [assistant("", call), Message.tool_result(call_id=call_id, name="read_file", text="x" * size)]
