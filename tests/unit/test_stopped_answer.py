"""An answer stopped by the person while it streams keeps the text already shown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from circle.application.events import MessageEnded, MessageUpdated, TurnEnded
from circle.application.session import AgentSession
from circle.application.undo import Undo
from circle.domain.budget import messages_tokens
from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart
from circle.domain.model import (
    Finished,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStarted,
)
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer

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


async def _stopped(h: Harness, events: Sequence[ModelEvent], prompt: str = "go") -> AgentSession:
    h.model.add(list(events))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt(prompt))
    async with asyncio.timeout(5):
        while len(h.sink.of(MessageUpdated)) < len(events) - 1:
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    assert session.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.aborted
    return session


def _answers(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if m.role == "assistant"]


async def test_the_text_shown_before_a_stop_is_stored_as_an_aborted_answer() -> None:
    h = Harness(model=StallsAfter())
    session_id = (
        await _stopped(h, [TextDelta(text="Here is the first "), TextDelta(text="half")])
    ).session_id
    stored = [cp.message for cp in await h.store.history(session_id)]
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].text == "Here is the first half"
    assert stored[1].stop_reason is StopReason.ABORTED
    ended = [
        e for e in h.sink.of(MessageEnded) if isinstance(e, MessageEnded) and e.message.role == "assistant"
    ]
    assert len(ended) == 1 and ended[0].checkpoint_id is not None
    assert ended[0].message.stop_reason is StopReason.ABORTED
    turn_end = h.sink.of(TurnEnded)[-1]
    assert (
        isinstance(turn_end, TurnEnded) and turn_end.aborted and turn_end.answer == "Here is the first half"
    )


async def test_the_next_request_carries_the_stopped_text_as_the_assistants_message() -> None:
    h = Harness(model=StallsAfter())
    session_id = (await _stopped(h, [TextDelta(text="I was saying")])).session_id
    h.model = ScriptedModel([answer("go on then")])
    session = await h.runtime().open_session(session_id)
    await session.prompt("continue")
    sent = h.model.requests[0].messages
    assert [(m.role, m.text) for m in sent[-3:]] == [
        ("user", "go"),
        ("assistant", "I was saying"),
        ("user", "continue"),
    ]


async def test_text_and_the_thinking_before_it_are_kept_a_begun_tool_call_is_dropped() -> None:
    h = Harness(model=StallsAfter())
    events = [
        ThinkingDelta(text="let me think"),
        TextDelta(text="Running it now."),
        ToolCallStarted(index=0, id="c1", name="execute"),
        ToolCallDelta(index=0, arguments='{"command": "l'),
    ]
    session_id = (await _stopped(h, events)).session_id
    stored = _answers([cp.message for cp in await h.store.history(session_id)])
    assert len(stored) == 1
    assert stored[0].parts == (ThinkingPart(text="let me think"), TextPart(text="Running it now."))
    assert stored[0].tool_calls == ()


async def test_thinking_cut_short_after_the_text_is_kept_unsigned() -> None:
    h = Harness(model=StallsAfter())
    events = [TextDelta(text="First this."), ThinkingDelta(text="and now I wonder wheth", signature="s")]
    session_id = (await _stopped(h, events)).session_id
    stored = _answers([cp.message for cp in await h.store.history(session_id)])
    assert [m.parts for m in stored] == [
        (TextPart(text="First this."), ThinkingPart(text="and now I wonder wheth"))
    ]


async def test_thinking_alone_is_stored_when_the_stop_comes_before_any_text() -> None:
    h = Harness(model=StallsAfter())
    session_id = (await _stopped(h, [ThinkingDelta(text="hmm"), TextDelta(text="  ")])).session_id
    stored = [cp.message for cp in await h.store.history(session_id)]
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].parts == (ThinkingPart(text="hmm"),)
    assert stored[1].stop_reason is StopReason.ABORTED
    ended = [
        e for e in h.sink.of(MessageEnded) if isinstance(e, MessageEnded) and e.message.role == "assistant"
    ]
    assert len(ended) == 1 and ended[0].checkpoint_id is not None


def test_every_protocol_sends_a_stopped_answer_as_the_assistants_text() -> None:
    from circle.adapters.models._anthropic_wire import message_blocks
    from circle.adapters.models._openai_chat_wire import message_to_wire
    from circle.adapters.models._openai_responses_wire import message_to_items

    stopped = Message(
        role="assistant", parts=(TextPart(text="I was saying"),), stop_reason=StopReason.ABORTED
    )
    assert message_to_wire(stopped) == [{"role": "assistant", "content": "I was saying"}]
    content = [{"type": "output_text", "text": "I was saying"}]
    assert message_to_items(stopped) == [{"type": "message", "role": "assistant", "content": content}]
    role, blocks = message_blocks(stopped)
    assert role == "assistant" and [block.json for block in blocks] == [
        '{"type":"text","text":"I was saying"}'
    ]


async def test_undo_and_token_counts_take_the_stopped_answer_as_any_answer() -> None:
    h = Harness(model=StallsAfter())
    session = await _stopped(h, [TextDelta(text="A long explanation " * 20)])
    messages = session.conversation.messages
    assert messages_tokens(messages) > messages_tokens(messages[:-1]) + 50
    outcome = await Undo(None).undo(session)
    assert outcome is not None and outcome.done and outcome.messages == 2
    assert list(session.conversation.messages) == []


async def test_compaction_takes_the_stopped_answer_as_any_answer() -> None:
    from .test_compaction import Setup, SummarizingModel

    class Stalls(SummarizingModel):
        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            async for event in super().stream(request):
                yield event
            if request.tools and not self.remaining:
                await asyncio.Event().wait()

    setup = Setup(model=Stalls())
    setup.model.add(*[answer("", Call("ls", {})) for _ in range(6)], [TextDelta(text="Half an answer")])
    session = await setup.runtime().new_session()
    task = asyncio.create_task(session.prompt("look around"))
    async with asyncio.timeout(5):
        while not setup.sink.of(MessageUpdated) or setup.model.remaining:
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    session.cancel()
    assert (await task).aborted
    outcome = await session.loop.compact(session.conversation)
    assert outcome is not None and outcome.summarized > 0
    kept = [m.text for m in session.loop.window.prune(session.conversation.messages)]
    assert "Half an answer" in kept  # the last turn is kept after the summary, this answer with it


async def test_a_library_agent_cancelled_mid_answer_keeps_its_text(tmp_path: Path) -> None:
    import circle

    model = StallsAfter([[TextDelta(text="Partly said")], answer("done")])
    async with circle.Agent(tmp_path, model_client=model, store=InMemorySessionStore(), trust=True) as agent:
        turn = asyncio.create_task(agent.run("talk"))
        async with asyncio.timeout(5):
            while not model.requests:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        assert agent.cancel()
        with pytest.raises(circle.TurnCancelledError):
            await turn
        assert [(m.role, m.text, m.stop_reason) for m in agent.messages] == [
            ("user", "talk", None),
            ("assistant", "Partly said", StopReason.ABORTED),
        ]
        await agent.run("and then?")
    assert [m.text for m in model.requests[-1].messages[-3:]] == ["talk", "Partly said", "and then?"]


async def test_a_fork_carries_the_stopped_answer_into_the_new_session() -> None:
    h = Harness(model=StallsAfter([[TextDelta(text="Said so far")], answer("next")]))
    runtime = h.runtime()
    session = await runtime.new_session()
    task = asyncio.create_task(session.prompt("go"))
    async with asyncio.timeout(5):
        while not h.sink.of(MessageUpdated):
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    session.cancel()
    await task
    forked = await runtime.fork_session(session.session_id)
    await forked.prompt("and?")
    assert [m.text for m in h.model.requests[-1].messages[-3:]] == ["go", "Said so far", "and?"]
