"""GuardedModel with in-memory fakes: deadlines, restarts, notices, giving up, and its wiring."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager

import pytest

from circle.application.events import RetryScheduled
from circle.application.model_guard import GuardedModel
from circle.application.runtime import RuntimeOptions
from circle.domain.errors import ModelConnectionError, ModelError, ModelHTTPError, RateLimitedError
from circle.domain.messages import Message, StopReason
from circle.domain.model import (
    AnswerAssembler,
    ModelEvent,
    ModelRequest,
    RequestSent,
    ResponseStarted,
    StreamRestarted,
    TextDelta,
)
from circle.domain.retry import TimeoutPolicy
from circle.testing import FakeClock, RecordingSink, ScriptedModel, answer

from ._harness import WORKSPACE, Harness

REQUEST = ModelRequest(model="m", system="", messages=(Message.user("hi"),))
HANG = object()
"""In a :class:`Flaky` script: wait for ever (until a deadline ends the try)."""


class Flaky:
    """A ModelClient playing one script per request: events, then maybe an error or a hang."""

    def __init__(self, *scripts: Sequence[ModelEvent | ModelError | object]) -> None:
        self.scripts = list(scripts)
        self.requests: list[ModelRequest] = []
        self.closed = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        for step in self.scripts.pop(0) if self.scripts else answer("(script ended)"):
            if step is HANG:
                await asyncio.Event().wait()
            elif isinstance(step, ModelError):
                raise step
            else:
                yield step  # type: ignore[misc]

    async def aclose(self) -> None:
        self.closed = True


class InstantDeadlines:
    """Deadlines that end at once whenever the awaited event is not already there; records them."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def __call__(self, seconds: float) -> AbstractAsyncContextManager[object]:
        self.asked.append(seconds)
        return asyncio.timeout(0)


def guard(model: object, **kwargs: object) -> tuple[GuardedModel, FakeClock, RecordingSink]:
    clock, sink = FakeClock(), RecordingSink()
    options: dict[str, object] = {"clock": clock, "on_retry": sink.emit, "jitter": lambda: 0.0}
    return GuardedModel(model, **(options | kwargs)), clock, sink  # type: ignore[arg-type]


async def events_of(model: GuardedModel, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    return [event async for event in model.stream(request)]


def assembled(events: list[ModelEvent]) -> Message:
    assembler = AnswerAssembler()
    for event in events:
        assembler.add(event)
    return assembler.message()


async def test_an_answer_that_never_starts_is_tried_eleven_times_with_doubling_deadlines() -> None:
    deadlines = InstantDeadlines()
    model, clock, sink = guard(Flaky(*[[HANG]] * 11), deadline=deadlines)

    with pytest.raises(ModelConnectionError) as caught:
        await events_of(model)

    assert deadlines.asked == [45, 90, 180, 300, 300, 300, 300, 300, 300, 300, 300]
    assert clock.sleeps == [1, 2, 4, 8, 16, 30, 30, 30, 30, 30]
    assert caught.value.kind == "timeout"
    assert caught.value.message == "no answer within 5m (CIRCLE_LLM_TIMEOUT) (gave up after 10 retries)"
    notices = [e for e in sink.events if isinstance(e, RetryScheduled)]
    assert [(n.kind, n.attempt, n.max_attempts) for n in notices] == [
        ("timeout", n, 10) for n in range(1, 11)
    ]


async def test_a_stalled_stream_waits_longer_for_content_at_each_try() -> None:
    deadlines = InstantDeadlines()
    stalls = [[ResponseStarted(), TextDelta(text="par"), HANG]] * 3
    model, _, _ = guard(Flaky(*stalls, answer("done")), deadline=deadlines)

    events = await events_of(model)

    # per try: the start, then each next event; the stall deadline doubles with each timeout
    assert deadlines.asked[:9] == [45, 180, 180, 90, 360, 360, 180, 720, 720]
    assert assembled(events).text == "done"


async def test_a_retry_after_part_of_the_answer_restarts_it() -> None:
    flaky = Flaky(
        [ResponseStarted(), TextDelta(text="lost "), ModelConnectionError("broke", kind="dropped")],
        answer("kept"),
    )
    model, clock, _ = guard(flaky)

    events = await events_of(model)

    assert events.count(StreamRestarted()) == 1
    assert events.index(StreamRestarted()) == 2
    message = assembled(events)
    assert (message.text, message.stop_reason) == ("kept", StopReason.END)
    assert clock.sleeps == [1.0]


async def test_no_restart_is_yielded_when_nothing_had_come() -> None:
    flaky = Flaky([ResponseStarted(), ModelHTTPError("down", status=503)], answer("ok"))
    model, _, _ = guard(flaky)

    events = await events_of(model)

    assert StreamRestarted() not in events
    assert assembled(events).text == "ok"


async def test_a_final_error_is_raised_at_once_with_its_own_message() -> None:
    model, clock, sink = guard(Flaky([ModelHTTPError("the endpoint refused the API key (401)", status=401)]))

    with pytest.raises(ModelHTTPError, match=r"^the endpoint refused the API key \(401\)$"):
        await events_of(model)

    assert (clock.sleeps, sink.events) == ([], [])


async def test_a_spent_quota_stops_at_once_and_says_when_it_resets() -> None:
    quota = RateLimitedError("rate limited (429)", status=429, retry_after=3 * 3600)
    model, clock, _ = guard(Flaky([quota]))

    with pytest.raises(
        RateLimitedError, match=r"the quota is spent; it resets in 3h \(at 2023-11-15 01:13 UTC\)"
    ):
        await events_of(model)

    assert clock.sleeps == []


async def test_the_notice_says_what_is_retried_how_often_and_after_how_long() -> None:
    flaky = Flaky([RateLimitedError("rate limited (429)", status=429, retry_after=12.5)], answer("ok"))
    model, _, sink = guard(flaky)

    await events_of(model)

    assert sink.events == [
        RetryScheduled(
            kind="rate_limit", attempt=1, max_attempts=5, delay_ms=12500, error="rate limited (429)"
        )
    ]


async def test_a_rejected_parameter_is_left_out_of_every_later_request() -> None:
    rejected = ModelHTTPError("the endpoint answered 400", status=400, param="temperature")
    flaky = Flaky([rejected], answer("one"), answer("two"))
    model, clock, _ = guard(flaky)

    await events_of(model)
    await events_of(model)

    assert [r.drop_parameters for r in flaky.requests] == [frozenset(), {"temperature"}, {"temperature"}]
    assert model.dropped_parameters == {"temperature"}
    assert clock.sleeps == []


async def test_a_parameter_rejected_again_is_not_retried() -> None:
    rejected = ModelHTTPError("the endpoint answered 400", status=400, param="temperature")
    model, _, _ = guard(Flaky([rejected], [rejected]))

    with pytest.raises(ModelHTTPError, match=r"\(gave up after 1 retry\)"):
        await events_of(model)


ANTHROPIC_TOO_MANY = (
    "the endpoint answered 400: max_tokens: 128000 > 64000, which is the maximum allowed number of"
    " output tokens for claude-sonnet-4-5-20250929"
)
OPENAI_TOO_MANY = (
    "the endpoint answered 400: max_tokens is too large: 100000. This model supports at most 16384"
    " completion tokens, whereas you provided 100000."
)


@pytest.mark.parametrize(
    ("text", "param", "allowed"),
    [(ANTHROPIC_TOO_MANY, None, 64_000), (OPENAI_TOO_MANY, "max_tokens", 16_384)],
)
async def test_an_output_limit_the_endpoint_refuses_is_lowered_to_what_it_allows(
    text: str, param: str | None, allowed: int
) -> None:
    rejected = ModelHTTPError(text, status=400, param=param)
    flaky = Flaky([rejected], answer("one"), answer("two"))
    model, clock, _ = guard(flaky)
    asked = dataclasses.replace(REQUEST, output_limit=128_000, max_output_tokens=100_000)

    await events_of(model, asked)
    await events_of(model, asked)

    assert [(r.output_limit, r.max_output_tokens) for r in flaky.requests] == [
        (128_000, 100_000),
        (allowed, allowed),
        (allowed, allowed),
    ]
    assert model.dropped_parameters == frozenset() and clock.sleeps == []


async def test_an_output_limit_refused_again_is_not_lowered_again() -> None:
    rejected = ModelHTTPError(ANTHROPIC_TOO_MANY, status=400)
    flaky = Flaky([rejected], [rejected])
    model, _, _ = guard(flaky)

    with pytest.raises(ModelHTTPError, match=r"\(gave up after 1 retry\)"):
        await events_of(model, dataclasses.replace(REQUEST, output_limit=128_000))
    assert len(flaky.requests) == 2


def block_the_loop(seconds: float) -> None:
    """Local work before a request leaves, without an await: an SDK import, a long json.dumps."""
    time.sleep(seconds)


class SlowToSend:
    """A client whose work before sending blocks the event loop (loading an SDK under load)."""

    def __init__(self, *, after_send: float, blocking: float = 0.4) -> None:
        self.after_send = after_send
        self.blocking = blocking
        self.requests = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests += 1
        block_the_loop(self.blocking)
        yield RequestSent()
        await asyncio.sleep(self.after_send)
        for event in answer("sent in time"):
            yield event

    async def aclose(self) -> None:
        pass


async def test_the_deadline_for_the_answer_to_start_counts_from_the_send() -> None:
    slow = SlowToSend(after_send=0.05)
    model = GuardedModel(slow, timeouts=TimeoutPolicy(first_event_s=0.25, stall_s=5))

    events = await events_of(model)

    assert assembled(events).text == "sent in time"
    assert slow.requests == 1 and RequestSent() not in events


async def test_an_endpoint_silent_after_the_send_still_times_out() -> None:
    slow = SlowToSend(after_send=10, blocking=0)
    sink = RecordingSink()
    policy = TimeoutPolicy(first_event_s=0.05, stall_s=5, max_first_event_s=0.05)
    model = GuardedModel(slow, timeouts=policy, clock=FakeClock(), on_retry=sink.emit, jitter=lambda: 0.0)

    with pytest.raises(ModelConnectionError, match="no answer within"):
        await events_of(model)
    assert slow.requests > 1


async def test_cancelling_during_a_backoff_cancels_the_request() -> None:
    class SlowClock(FakeClock):
        async def sleep(self, seconds: float) -> None:
            await asyncio.Event().wait()

    model = GuardedModel(Flaky([ModelHTTPError("down", status=503)]), clock=SlowClock())
    task = asyncio.create_task(events_of(model))
    await asyncio.sleep(0.01)
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task


async def test_closing_the_guard_closes_the_model() -> None:
    flaky = Flaky()
    model, _, _ = guard(flaky)

    await model.aclose()

    assert flaky.closed


# --- in a turn ------------------------------------------------------------------------------------


async def test_a_turn_keeps_only_the_answer_that_came_whole() -> None:
    flaky = Flaky(
        [ResponseStarted(), TextDelta(text="a partial "), ModelConnectionError("broke", kind="dropped")],
        answer("the whole answer"),
    )
    harness = Harness()
    model, _, _ = guard(flaky)
    harness.model = model  # type: ignore[assignment]
    session = await harness.runtime().new_session()

    result = await session.prompt("hi")

    assert result.answer == "the whole answer"
    assert [m.text for m in session.conversation.messages] == ["hi", "the whole answer"]


def test_a_runtime_with_a_timeout_policy_guards_each_session_model() -> None:
    harness = Harness()
    runtime = harness.runtime()
    runtime.options = RuntimeOptions(workspace="/w", model="scripted", timeouts=TimeoutPolicy())

    guarded = runtime.session_model()

    assert isinstance(guarded, GuardedModel)
    assert guarded.inner is harness.model
    assert runtime.session_model() is guarded  # one guard for the endpoint: all learn from each


async def test_a_parameter_one_session_learned_is_left_out_of_another_sessions_requests() -> None:
    rejected = ModelHTTPError("the endpoint answered 400", status=400, param="temperature")
    flaky = Flaky([rejected], answer("one"), answer("two"))
    harness = Harness()
    harness.model = flaky  # type: ignore[assignment]
    runtime = harness.runtime()
    runtime.options = RuntimeOptions(workspace=WORKSPACE, model="scripted", timeouts=TimeoutPolicy())

    await (await runtime.new_session()).prompt("hi")
    await (await runtime.new_session()).prompt("hi again")

    assert [r.drop_parameters for r in flaky.requests] == [frozenset(), {"temperature"}, {"temperature"}]


async def test_what_one_model_refused_is_not_left_out_for_another() -> None:
    rejected = ModelHTTPError("the endpoint answered 400", status=400, param="temperature")
    flaky = Flaky([rejected], answer("one"), answer("two"))
    model, _, _ = guard(flaky)

    await events_of(model)
    await events_of(model, dataclasses.replace(REQUEST, model="other"))

    assert [r.drop_parameters for r in flaky.requests] == [frozenset(), {"temperature"}, frozenset()]


def test_a_runtime_without_one_uses_the_model_as_it_is() -> None:
    harness = Harness(model=ScriptedModel())

    assert harness.runtime().session_model() is harness.model


async def test_with_automatic_retries_off_a_transient_failure_is_raised_at_once() -> None:
    model, clock, sink = guard(Flaky([ModelHTTPError("down", status=503)], answer("not asked")))
    model.auto_retry = False

    with pytest.raises(ModelHTTPError, match=r"^down \(automatic retries are off\)$"):
        await events_of(model)

    assert (clock.sleeps, sink.events) == ([], [])


async def test_aborting_the_retries_ends_the_wait_with_the_last_error() -> None:
    class SlowClock(FakeClock):
        async def sleep(self, seconds: float) -> None:
            await asyncio.Event().wait()

    model = GuardedModel(Flaky([ModelHTTPError("down", status=503)]), clock=SlowClock(), jitter=lambda: 0.0)
    task = asyncio.create_task(events_of(model))
    await asyncio.sleep(0.01)

    assert model.abort_retries() == 1
    with pytest.raises(ModelHTTPError, match=r"^down \(the retry was aborted\)$"):
        await task
    assert model.abort_retries() == 0
