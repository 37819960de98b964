"""The Reliability rules, played against every protocol: a fault table over real sockets.

Each row scripts what a loopback :class:`ScriptedGateway` answers, request by request (headers
that come late, a stream that stalls or drops, 429s, 5xx, gateway timeouts, errors inside a
stream, malformed events, answers that end badly, a 400 naming a parameter), and says what must
follow: how many requests were made, the waits between them, how the turn ends and what history
holds. Every row runs once per protocol, through the real adapter and its SDK, inside a real turn
(:class:`~circle.application.runtime.Runtime` with fakes for everything but the model). Backoffs
sleep on a :class:`FakeClock`, so the longest schedules cost nothing; where a row needs a real
stall, the deadlines are a quarter of a second.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field

import pytest

from circle._testing.faults import PROTOCOLS, Faults, Protocol, delayed, dropped, stalled
from circle._testing.gateway import GatewayResponse, RecordedRequest, ScriptedGateway
from circle.adapters.models.anthropic import AnthropicModel
from circle.adapters.models.openai_chat import OpenAIChatModel
from circle.adapters.models.openai_responses import OpenAIResponsesModel
from circle.application.agent_loop import TurnResult
from circle.application.approvals import AllowAll
from circle.application.event_bus import EventBus
from circle.application.events import AgentEvent, MessageUpdated, RetryScheduled
from circle.application.model_guard import GuardedModel
from circle.application.ports.model_client import ModelClient
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.domain.errors import ModelConnectionError
from circle.domain.messages import Message
from circle.domain.model import ModelRequest
from circle.domain.retry import TimeoutPolicy
from circle.domain.settings import Endpoint
from circle.testing import (
    FakeClock,
    FakeProcessRunner,
    InMemoryFileSystem,
    InMemorySessionStore,
    InMemoryTextSearch,
    RecordingSink,
)

REAL_STALLS = TimeoutPolicy(first_event_s=0.25, stall_s=0.25)
"""For rows with a real stall: the first try gives up after 0.25 s, the next after 0.5 s."""
NO_STALLS = TimeoutPolicy(first_event_s=20, stall_s=20)
SLOW = 1.5
"""How long a scripted stall lasts: well past any deadline of REAL_STALLS a row reaches."""
REJECTED = {"openai-chat": "stream_options", "openai-responses": "reasoning", "anthropic": "thinking"}
"""A parameter each protocol's request carries (with thinking on) that an endpoint may reject."""

Script = Callable[[Faults], list[GatewayResponse]]
Check = Callable[[Protocol, list[RecordedRequest]], None]


@dataclass(frozen=True)
class Row:
    """One scenario: what the gateway answers, and what must come of it."""

    script: Script
    attempts: int
    waits: list[float]
    outcome: str  # "answer", "incomplete" or "error"
    history: list[str]
    retries: list[str] = field(default_factory=list)
    error: str | None = None
    timeouts: TimeoutPolicy = NO_STALLS
    thinking: bool = False
    check: Check | None = None


def _without_rejected(protocol: Protocol, requests: list[RecordedRequest]) -> None:
    first, second = (request.json() for request in requests)
    assert REJECTED[protocol] in first
    assert REJECTED[protocol] not in second


def ok(f: Faults) -> GatewayResponse:
    return f.answer("Hello")


ANSWERED = ["user: hi", "assistant: Hello"]
ASKED = ["user: hi"]

TABLE: dict[str, Row] = {
    # --- timeouts: retried up to 10 times, each try waiting longer ------------------------------
    "delay before headers": Row(
        lambda f: [delayed(f.answer("late"), SLOW), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["timeout 1/10: no answer within 250ms"],
        timeouts=REAL_STALLS,
    ),
    "stall mid-stream": Row(
        lambda f: [stalled(f.answer("A partial answer that is lost"), SLOW, after=3), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["timeout 1/10: the answer stalled: nothing came for 250ms"],
        timeouts=REAL_STALLS,
    ),
    "408 from a gateway": Row(
        lambda f: [f.error(408, "Request Timeout"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["timeout 1/10"],
    ),
    "504 from a gateway": Row(
        lambda f: [f.error(504, "Gateway Timeout"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["timeout 1/10"],
    ),
    "524 from a gateway": Row(
        lambda f: [f.error(524, "A timeout occurred"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["timeout 1/10"],
    ),
    "ten timeouts, then it gives up": Row(
        lambda f: [f.error(504, "Gateway Timeout")] * 11,
        attempts=11,
        waits=[1, 2, 4, 8, 16, 30, 30, 30, 30, 30],
        outcome="error",
        history=ASKED,
        retries=[f"timeout {n}/10" for n in range(1, 11)],
        error="(gave up after 10 retries)",
    ),
    # --- dropped connections and server errors: 6 times within 5 minutes ------------------------
    "connection dropped after 40 bytes": Row(
        lambda f: [dropped(f.answer("A partial answer that is lost"), 40), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["dropped 1/6"],
    ),
    "connection dropped mid-answer": Row(
        lambda f: [dropped(f.answer("A partial answer that is lost " * 4), 600), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["dropped 1/6"],
    ),
    "500": Row(
        lambda f: [f.error(500, "Internal error"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["server 1/6"],
    ),
    "502": Row(
        lambda f: [f.error(502, "Bad gateway"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["server 1/6"],
    ),
    "503 with Retry-After": Row(
        lambda f: [f.error(503, "Unavailable", headers={"retry-after": "3"}), ok(f)],
        attempts=2,
        waits=[3.0],
        outcome="answer",
        history=ANSWERED,
        retries=["server 1/6"],
    ),
    "529 overloaded": Row(
        lambda f: [f.error(529, "Overloaded"), f.error(529, "Overloaded"), ok(f)],
        attempts=3,
        waits=[1.0, 2.0],
        outcome="answer",
        history=ANSWERED,
        retries=["server 1/6", "server 2/6"],
    ),
    "server errors until it gives up": Row(
        lambda f: [f.error(503, "Unavailable")] * 7,
        attempts=7,
        waits=[1, 2, 4, 8, 16, 32],
        outcome="error",
        history=ASKED,
        retries=[f"server {n}/6" for n in range(1, 7)],
        error="(gave up after 6 retries)",
    ),
    "x-should-retry: false": Row(
        lambda f: [f.error(503, "Unavailable", headers={"x-should-retry": "false"}), ok(f)],
        attempts=1,
        waits=[],
        outcome="error",
        history=ASKED,
        error="503",
    ),
    # --- rate limits: 5 times within 10 minutes, honouring Retry-After --------------------------
    "429 with Retry-After": Row(
        lambda f: [f.error(429, "Slow down", headers={"retry-after": "7"}), ok(f)],
        attempts=2,
        waits=[7.0],
        outcome="answer",
        history=ANSWERED,
        retries=["rate_limit 1/5"],
    ),
    "429 with retry-after-ms": Row(
        lambda f: [f.error(429, "Slow down", headers={"retry-after-ms": "1500", "retry-after": "9"}), ok(f)],
        attempts=2,
        waits=[1.5],
        outcome="answer",
        history=ANSWERED,
        retries=["rate_limit 1/5"],
    ),
    "rate limits until it gives up": Row(
        lambda f: [f.error(429, "Slow down")] * 6,
        attempts=6,
        waits=[2, 4, 8, 16, 32],
        outcome="error",
        history=ASKED,
        retries=[f"rate_limit {n}/5" for n in range(1, 6)],
        error="(gave up after 5 retries)",
    ),
    "429 that is a spent quota": Row(
        lambda f: [f.error(429, "You exceeded your current quota, please check your plan."), ok(f)],
        attempts=1,
        waits=[],
        outcome="error",
        history=ASKED,
        error="the quota is spent (the endpoint did not say when it resets)",
    ),
    "429 whose Retry-After is beyond the window": Row(
        lambda f: [f.error(429, "Slow down", headers={"retry-after": "5400"}), ok(f)],
        attempts=1,
        waits=[],
        outcome="error",
        history=ASKED,
        error="the quota is spent; it resets in 1h 30m",
    ),
    # --- errors inside a stream: 3 times ----------------------------------------------------------
    "error event mid-stream": Row(
        lambda f: [f.stream_error("A partial answer that is lost"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["stream_error 1/3"],
    ),
    "overloaded event mid-stream": Row(
        lambda f: [f.stream_error("A partial answer that is lost", server=True), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["server 1/6"],
    ),
    "error events until it gives up": Row(
        lambda f: [f.stream_error()] * 4,
        attempts=4,
        waits=[1, 2, 4],
        outcome="error",
        history=ASKED,
        retries=[f"stream_error {n}/3" for n in range(1, 4)],
        error="(gave up after 3 retries)",
    ),
    "malformed SSE": Row(
        lambda f: [f.malformed("A partial answer that is lost"), ok(f)],
        attempts=2,
        waits=[1.0],
        outcome="answer",
        history=ANSWERED,
        retries=["stream_error 1/3"],
    ),
    # --- rejected parameters: dropped for the rest of the session --------------------------------
    "400 naming a parameter": Row(
        lambda f: [f.rejected(REJECTED[f.protocol]), ok(f)],
        attempts=2,
        waits=[],
        outcome="answer",
        history=ANSWERED,
        retries=["rejected_parameter 1/5"],
        thinking=True,
        check=_without_rejected,
    ),
    "400 naming nothing to drop": Row(
        lambda f: [f.error(400, "Invalid 'messages[0].content': string too long."), ok(f)],
        attempts=1,
        waits=[],
        outcome="error",
        history=ASKED,
        error="400",
    ),
    # --- incomplete answers: kept in history, reported, their tool calls not run -----------------
    "missing finish": Row(
        lambda f: [f.missing_finish("An answer without its end")],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[incomplete]: An answer without its end"],
    ),
    "truncated tool JSON": Row(
        lambda f: [f.cut_tool_call("read_file", {"file_path": "notes/a-long-file-name.txt"})],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[incomplete] +read_file: ", "tool: Not run: the answer"],
    ),
    "output limit": Row(
        lambda f: [f.stopped("length", "An answer cut")],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[max_tokens] +ls: An answer cut", "tool: Not run: the answer"],
    ),
    "filtered": Row(
        lambda f: [f.stopped("filtered", "An answer cut")],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[filtered] +ls: An answer cut", "tool: Not run: the answer"],
    ),
    "empty": Row(
        lambda f: [f.empty()],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[empty]: "],
    ),
    "endless repetition": Row(
        lambda f: [f.repeating("I will check the file again to be sure. ", 200)],
        attempts=1,
        waits=[],
        outcome="incomplete",
        history=["user: hi", "assistant[incomplete]: I will check the file again to be sure."],
    ),
}


# --- the machinery -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture(scope="module", autouse=True)
def _warm_sdks(gateway: ScriptedGateway) -> None:
    """The first request of a process pays the SDKs' imports and platform probes (up to a
    second): pay it once here, so a quarter-second deadline measures the socket alone."""

    async def warm() -> None:
        for protocol in PROTOCOLS:
            gateway.enqueue(Faults(protocol).answer("warm"))
            model = adapter(protocol, gateway.base_url)
            async for _ in model.stream(request()):
                pass
            await model.aclose()

    asyncio.run(warm())


def adapter(protocol: Protocol, base_url: str) -> ModelClient:
    endpoint = Endpoint(
        base_url=base_url, protocol=protocol, api_key="test-key", model="test-model", timeout_s=30
    )
    kinds: dict[Protocol, Callable[[Endpoint], ModelClient]] = {
        "openai-chat": OpenAIChatModel,
        "openai-responses": OpenAIResponsesModel,
        "anthropic": AnthropicModel,
    }
    return kinds[protocol](endpoint)


async def drain(model: ModelClient) -> None:
    async for _ in model.stream(request()):
        pass


def request() -> ModelRequest:
    return ModelRequest(model="test-model", system="", messages=(Message.user("hi"),))


@dataclass
class Played:
    result: TurnResult
    history: list[Message]
    retries: list[RetryScheduled]
    sleeps: list[float]
    requests: list[RecordedRequest]
    guard: GuardedModel
    events: list[AgentEvent]


Play = Callable[..., Awaitable[Played]]


@pytest.fixture
async def play(gateway: ScriptedGateway) -> AsyncIterator[Play]:
    runtimes: list[Runtime] = []

    async def run(protocol: Protocol, row: Row, prompts: tuple[str, ...] = ("hi",)) -> Played:
        gateway.reset()
        gateway.enqueue(*row.script(Faults(protocol)))
        sink, clock = RecordingSink(), FakeClock()
        guard = GuardedModel(
            adapter(protocol, gateway.base_url),
            clock=clock,
            timeouts=row.timeouts,
            on_retry=sink.emit,
            jitter=lambda: 0.0,
        )
        files = InMemoryFileSystem({"/w/.keep": ""})
        store = InMemorySessionStore()
        ports = Ports(
            model=guard,
            store=store,
            files=files,
            search=InMemoryTextSearch(files),
            processes=FakeProcessRunner(),
            approver=AllowAll(),
        )
        options = RuntimeOptions(workspace="/w", model="test-model", thinking="low" if row.thinking else None)
        runtime = Runtime(ports, options, events=EventBus(sink))
        runtimes.append(runtime)
        session = await runtime.new_session()
        async with asyncio.timeout(30):
            for prompt in prompts:
                result = await session.prompt(prompt)
        checkpoints = await store.history(session.session_id)
        retries = [e for e in sink.events if isinstance(e, RetryScheduled)]
        messages = [c.message for c in checkpoints]
        return Played(result, messages, retries, clock.sleeps, gateway.requests, guard, sink.events)

    yield run
    for runtime in runtimes:
        await runtime.aclose()


def summary(message: Message) -> str:
    """``role[stop] +call: text``: what a row expects of one message of history."""
    stop = message.stop_reason
    mark = f"[{stop.value}]" if message.role == "assistant" and stop and not stop.is_complete else ""
    calls = "".join(f" +{call.name}" for call in message.tool_calls)
    text = message.tool_results[0].text if message.role == "tool" else message.text
    return f"{message.role}{mark}{calls}: {text}"


def matches(actual: str, expected: str) -> bool:
    """The summary starts with the expected one (long texts are compared by their start)."""
    return actual == expected if expected.endswith(": ") else actual.startswith(expected)


# --- one test per row, per protocol --------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", list(TABLE))
async def test_fault(play: Play, protocol: Protocol, name: str) -> None:
    row = TABLE[name]

    played = await play(protocol, row)

    assert len(played.requests) == row.attempts
    assert played.sleeps == row.waits
    retries = [f"{r.kind} {r.attempt}/{r.max_attempts}: {r.error}" for r in played.retries]
    assert len(retries) == len(row.retries), retries
    for got, expected in zip(retries, row.retries, strict=True):
        assert got.startswith(expected), (got, expected)
    assert [r.delay_ms for r in played.retries if r.delay_ms] == [round(w * 1000) for w in row.waits]
    result = played.result
    outcome = "error" if result.error else "incomplete" if result.incomplete else "answer"
    assert outcome == row.outcome, result
    if row.error is not None:
        assert result.error is not None
        assert row.error in result.error.message
    history = [summary(m) for m in played.history]
    assert len(history) == len(row.history), history
    for got, expected in zip(history, row.history, strict=True):
        assert matches(got, expected), (got, expected)
    if row.check is not None:
        row.check(protocol, played.requests)


# --- what the table cannot say in one row ---------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_rejected_parameter_stays_dropped_for_the_rest_of_the_session(
    play: Play, protocol: Protocol
) -> None:
    row = Row(lambda f: [f.rejected(REJECTED[f.protocol]), ok(f), ok(f)], 3, [], "answer", [], thinking=True)

    played = await play(protocol, row, ("hi", "and again"))

    bodies = [json.loads(r.body) for r in played.requests]
    assert [REJECTED[protocol] in body for body in bodies] == [True, False, False]
    assert played.guard.dropped_parameters == {REJECTED[protocol]}


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_tls_failure_is_not_retried(gateway: ScriptedGateway, protocol: Protocol) -> None:
    clock, sink = FakeClock(), RecordingSink()
    tls_url = gateway.base_url.replace("http://", "https://")
    guard = GuardedModel(adapter(protocol, tls_url), clock=clock, on_retry=sink.emit)

    with pytest.raises(ModelConnectionError, match="SSL") as caught:
        await asyncio.wait_for(drain(guard), 10)
    await guard.aclose()

    assert caught.value.kind == "tls"
    assert (clock.sleeps, sink.events) == ([], [])


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_endpoint_nobody_listens_at_is_not_retried(protocol: Protocol) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    clock, sink = FakeClock(), RecordingSink()
    guard = GuardedModel(adapter(protocol, closed), clock=clock, on_retry=sink.emit)

    with pytest.raises(ModelConnectionError, match="cannot reach") as caught:
        await asyncio.wait_for(drain(guard), 10)
    await guard.aclose()

    assert caught.value.kind == "connect"
    assert (clock.sleeps, sink.events) == ([], [])


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_the_deltas_of_a_lost_attempt_come_before_the_retry_event_that_voids_them(
    play: Play, protocol: Protocol
) -> None:
    played = await play(protocol, TABLE["connection dropped mid-answer"])

    stream = [
        e.delta if isinstance(e, MessageUpdated) else "<retry>"
        for e in played.events
        if isinstance(e, MessageUpdated | RetryScheduled)
    ]
    retry = stream.index("<retry>")
    assert "".join(stream[:retry]).startswith("A partial answer")
    assert "".join(stream[retry + 1 :]) == "Hello"
    assert played.result.answer == "Hello"
