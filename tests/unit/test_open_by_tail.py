"""A long session opens by its tail (what a screen shows), and its first turn still sends the model
all of it: the rest is read first, and what depends on every message is settled from them all."""

from __future__ import annotations

import pytest

from circle._testing.catalog import InMemoryCatalog
from circle.application.tools.plan import PLAN_ENTER
from circle.domain.catalog import ModelInfo, Prices
from circle.domain.messages import Message, TextPart, ToolCallPart, Usage
from circle.testing import answer

from ._harness import WORKSPACE, Harness


async def _stored(h: Harness, messages: list[Message]) -> str:
    info = await h.store.create_session(workspace=WORKSPACE, title="long")
    for message in messages:
        await h.store.append(info.id, message)
    return info.id


def _turns(count: int) -> list[Message]:
    return [
        Message.user(f"question {i}")
        if i % 2 == 0
        else Message(role="assistant", parts=(TextPart(text=f"answer {i}"),))
        for i in range(count)
    ]


async def test_a_session_opened_by_its_tail_reads_the_tail_and_its_first_turn_sends_everything() -> None:
    h = Harness()
    session_id = await _stored(h, _turns(40))

    session = await h.runtime().open_session(session_id, tail=6)

    conversation = session.conversation
    assert [m.text for m in conversation.messages] == [f"{k} {i}" for k, i in _named(range(34, 40))]
    assert (conversation.earlier, conversation.complete) == (34, False)
    assert h.store.tails_read == [(session_id, "main", 6)]
    h.model.add(answer("the next answer"))
    await session.prompt("one more")
    sent = h.model.requests[-1].messages
    assert [m.text for m in sent[:40]] == [m.text for m in _turns(40)]
    assert sent[40].text == "one more" and len(sent) == 41
    assert conversation.complete and len(conversation.messages) == 42


def _named(indices: range) -> list[tuple[str, int]]:
    return [("question" if i % 2 == 0 else "answer", i) for i in indices]


async def test_the_tail_goes_back_to_the_persons_message_that_began_its_turn() -> None:
    h = Harness()
    calls = [
        Message(role="assistant", parts=(ToolCallPart(id=f"c{i}", name="ls", arguments="{}"),))
        for i in range(5)
    ]
    results = [Message.tool_result(call_id=f"c{i}", name="ls", text="x") for i in range(5)]
    rounds = [m for pair in zip(calls, results, strict=True) for m in pair]
    session_id = await _stored(h, [*_turns(10), Message.user("list it"), *rounds])

    conversation = (await h.runtime().open_session(session_id, tail=3)).conversation

    assert conversation.messages[0].text == "list it" and len(conversation.messages) == 11
    assert conversation.earlier == 10


async def test_plan_mode_and_the_thinking_level_are_settled_from_the_whole_session() -> None:
    h = Harness()
    entered = Message(role="assistant", parts=(ToolCallPart(id="p", name=PLAN_ENTER, arguments="{}"),))
    asked = Message(role="assistant", parts=(TextPart(text="thought about it"),), thinking="high")
    early = [Message.user("plan it"), entered, Message.tool_result(call_id="p", name=PLAN_ENTER, text="on")]
    later = [Message.user(f"then {i}") for i in range(6)]  # sent while the endpoint was down
    session_id = await _stored(h, [*early, Message.user("go on"), asked, *later])

    session = await h.runtime().open_session(session_id, tail=2)
    assert not session.loop.context.plan_mode.active  # the tail alone says nothing of them
    await session.conversation.load()

    assert session.loop.context.plan_mode.active
    assert session.loop.settings.thinking == "high"
    h.model.add(answer("planned"))
    await session.prompt("and now")
    assert h.model.requests[-1].thinking == "high"


async def test_the_session_totals_count_the_answers_not_read_yet() -> None:
    prices = {"scripted": Prices(1, 2), "other": Prices(3, 4)}
    h = Harness(catalog=InMemoryCatalog([ModelInfo(id=m, provider="p", prices=p) for m, p in prices.items()]))
    messages: list[Message] = []
    for index in range(30):
        used = Usage(input=1000 * index, output=100 * index, cache_read=10)
        messages.append(Message.user(f"q{index}"))
        model = "other" if index % 3 == 0 else "scripted"
        messages.append(Message(role="assistant", parts=(TextPart(text="a"),), usage=used, model=model))
    session_id = await _stored(h, messages)
    session = await h.runtime().open_session(session_id, tail=4)
    loop, conversation = session.loop, session.conversation

    def totals() -> tuple[int, float | None]:
        paid = loop.window.session_messages(conversation)
        spent = sum((m.usage for m in paid if m.usage is not None), Usage())
        return spent.total, loop.costs.total_cost(paid, loop.costs.unstored)

    before = totals()
    await conversation.load()

    assert conversation.complete and conversation.unread_spending() == []
    assert before[0] == totals()[0] == sum(m.usage.total for m in messages if m.usage is not None)
    assert before[1] == pytest.approx(totals()[1])


async def test_a_session_opened_by_its_tail_counts_what_its_other_branches_spent_before_it_is_read() -> None:
    h = Harness()
    messages: list[Message] = []
    for index in range(20):
        messages.append(Message.user(f"q{index}"))
        messages.append(Message(role="assistant", parts=(TextPart(text="a"),), usage=Usage(input=100)))
    session_id = await _stored(h, messages[:2])
    early = (await h.store.history(session_id))[1]
    await h.store.create_branch(session_id, "side", head_id=early.id)
    await h.store.append(session_id, Message.user("aside"), branch="side")
    side = Message(role="assistant", parts=(TextPart(text="b"),), usage=Usage(input=5_000), model="scripted")
    await h.store.append(session_id, side, branch="side")
    for message in messages[2:]:  # the main branch goes on
        await h.store.append(session_id, message)
    session = await h.runtime().open_session(session_id, tail=4)
    window, conversation = session.loop.window, session.conversation

    assert not conversation.complete
    assert window.session_usage(conversation).total == 20 * 100 + 5_000  # the branch left, unread
    await conversation.load()
    assert window.session_usage(conversation).total == 20 * 100 + 5_000
