"""A turn counts the tokens no endpoint counted (a stream stopped before its count came), guessed
from what streamed, and says how many of its tokens are guessed."""

from __future__ import annotations

import asyncio

from circle.application.events import MessageUpdated, TurnEnded
from circle.application.guards import CHARS_PER_TOKEN, uncounted_tokens
from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart, ToolCallPart, Usage
from circle.domain.model import TextDelta, ThinkingDelta
from circle.testing import answer

from ._harness import Harness
from .test_fidelity_cut_thinking import StallsAfter


def test_a_counted_answer_has_no_guessed_tokens_and_a_cut_one_has_what_its_count_lacks() -> None:
    parts = (
        ThinkingPart(text="t" * 40),
        TextPart(text="x" * 40),
        ToolCallPart(id="c", name="ls", arguments="{}"),
    )
    counted = Message(role="assistant", parts=parts, usage=Usage(input=10, output=3))
    assert uncounted_tokens(counted) == 0
    assert uncounted_tokens(counted, cut=True) == 82 // CHARS_PER_TOKEN - 3
    silent = counted.model_copy(update={"usage": None, "stop_reason": StopReason.END})
    assert uncounted_tokens(silent) == 82 // CHARS_PER_TOKEN


async def test_a_turn_stopped_mid_stream_counts_the_guessed_tokens_and_says_so() -> None:
    streamed = "word " * 40
    h = Harness(model=StallsAfter([[ThinkingDelta(text=streamed), TextDelta(text=streamed)]]))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("go"))
    async with asyncio.timeout(5):
        while len(h.sink.of(MessageUpdated)) < 2:
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    assert session.cancel()
    result = await asyncio.wait_for(task, 5)
    ended = h.sink.of(TurnEnded)[-1]
    assert isinstance(ended, TurnEnded) and ended.aborted
    guessed = 2 * len(streamed) // CHARS_PER_TOKEN
    assert ended.estimated == result.estimated == guessed
    assert ended.usage.output == guessed  # in the count, not beside it
    assert session.loop.estimated == guessed
    assert session.loop.costs.unstored.output == guessed  # the session's total counts them too

    h.model.add(answer("counted"))
    await session.prompt("again")
    counted = h.sink.of(TurnEnded)[-1]
    assert isinstance(counted, TurnEnded) and counted.estimated == 0
    assert session.loop.estimated == guessed


async def test_the_guessed_tokens_of_a_stopped_turn_count_in_a_session_opened_again() -> None:
    streamed = "word " * 40
    h = Harness(model=StallsAfter([[ThinkingDelta(text=streamed), TextDelta(text=streamed)]]))
    session = await h.runtime().new_session()
    task = asyncio.create_task(session.prompt("go"))
    async with asyncio.timeout(5):
        while len(h.sink.of(MessageUpdated)) < 2:
            await asyncio.sleep(0.001)
    await asyncio.sleep(0.01)
    assert session.cancel()
    await asyncio.wait_for(task, 5)
    guessed = session.loop.estimated
    assert guessed and h.store.states[session.session_id].estimated == guessed
    reopened = await h.runtime().open_session(session.session_id)
    assert reopened.loop.estimated == guessed
    assert reopened.loop.costs.unstored.output == guessed
