"""ModelClient contract: recorded provider streams replayed through the real adapter, and the
same basic answers from the scripted fake.

The OpenAI Chat Completions adapter talks to a loopback :class:`ScriptedGateway` over a real
socket, so the SDK, its transport and our SSE reading are all exercised. Every recording in
``../shared/fixtures/providers/openai-chat`` is replayed; new files are picked up by glob.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import (
    GatewayResponse,
    ScriptedGateway,
    chat_error,
    chat_text,
    chat_tool_calls,
    replay_fixture,
    replay_sse,
)
from circle._testing.model import Call, ScriptedModel, answer
from circle.adapters.models.openai_chat import OpenAIChatModel
from circle.application.ports.model_client import ModelClient
from circle.domain.errors import (
    CircleError,
    ConfigError,
    ContextOverflowError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ProviderProtocolError,
    RateLimitedError,
)
from circle.domain.messages import (
    ImagePart,
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)
from circle.domain.model import (
    AnswerAssembler,
    Finished,
    ModelEvent,
    ModelRequest,
    RequestSent,
    ResponseIdentified,
    ResponseStarted,
    TextDelta,
    ToolSpec,
)
from circle.domain.settings import Endpoint

from ._golden import check_golden

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures"
OPENAI_CHAT = FIXTURES / "providers" / "openai-chat"
needs_fixtures = pytest.mark.skipif(not OPENAI_CHAT.is_dir(), reason=f"no recorded fixtures at {FIXTURES}")


def recordings() -> list[Path]:
    """Every replayable recording: NAME.json with a response, and bare .sse bodies."""
    if not OPENAI_CHAT.is_dir():
        return []
    paths = [p for p in sorted(OPENAI_CHAT.rglob("*.json")) if "response" in json.loads(p.read_text())]
    return paths + [p for p in sorted(OPENAI_CHAT.rglob("*.sse")) if not p.with_suffix(".json").exists()]


def replay(path: Path) -> GatewayResponse:
    return replay_fixture(path) if path.suffix == ".json" else replay_sse(path)


def recorded_status(path: Path) -> int:
    return int(json.loads(path.read_text())["response"]["status"]) if path.suffix == ".json" else 200


def raw_body(path: Path) -> str:
    return replay(path).body.decode()


RECORDINGS = recordings()
REQUEST = ModelRequest(model="gpt-test", system="You are terse.", messages=(Message.user("hi"),))
TOOL = ToolSpec(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture
async def model(gateway: ScriptedGateway) -> AsyncIterator[OpenAIChatModel]:
    gateway.reset()
    client = OpenAIChatModel(endpoint(gateway.base_url))
    yield client
    await client.aclose()


def endpoint(base_url: str, *, api_key: str | None = None, timeout_s: float = 10) -> Endpoint:
    return Endpoint(
        base_url=base_url, protocol="openai-chat", api_key=api_key, model=None, timeout_s=timeout_s
    )


async def events_of(client: ModelClient, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in client.stream(request)]


async def collect_into(seen: list[ModelEvent], client: ModelClient) -> None:
    async with asyncio.timeout(10):
        async for event in client.stream(REQUEST):
            seen.append(event)


def assemble(events: list[ModelEvent]) -> Message:
    assembler = AnswerAssembler()
    for event in events:
        assembler.add(event)
    return assembler.message()


async def answer_of(client: ModelClient, request: ModelRequest = REQUEST) -> Message:
    return assemble(await events_of(client, request))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the same basic answers from the real adapter and from the scripted fake ---------------------

Calls = list[tuple[str, str, dict[str, Any]]]
Arrange = Callable[[str, Calls], ModelClient]


def _openai_chat(gateway: ScriptedGateway, text: str, calls: Calls) -> ModelClient:
    gateway.enqueue(chat_tool_calls(calls, text=text) if calls else chat_text(text))
    return OpenAIChatModel(endpoint(gateway.base_url))


def _scripted(gateway: ScriptedGateway, text: str, calls: Calls) -> ModelClient:
    return ScriptedModel([answer(text, *(Call(name=name, args=args, id=id_) for id_, name, args in calls))])


@pytest.fixture(params=[_openai_chat, _scripted], ids=["openai-chat", "scripted"])
async def arrange(request: pytest.FixtureRequest, gateway: ScriptedGateway) -> AsyncIterator[Arrange]:
    """Makes a client that will give the answer ``(text, calls)`` to its next request."""
    gateway.reset()
    clients: list[ModelClient] = []

    def make(text: str, calls: Calls) -> ModelClient:
        clients.append(request.param(gateway, text, calls))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


async def test_a_text_answer_is_assembled(arrange: Arrange) -> None:
    message = await answer_of(arrange("Hello there, friend.", []))

    assert message.text == "Hello there, friend."
    assert message.stop_reason is StopReason.END
    assert message.usage == Usage(input=10, output=5)


async def test_a_tool_call_is_assembled(arrange: Arrange) -> None:
    message = await answer_of(arrange("", [("call_1", "read_file", {"path": "a.txt"})]))

    [call] = message.tool_calls
    assert (call.id, call.name, call.parsed_arguments()) == ("call_1", "read_file", {"path": "a.txt"})
    assert message.stop_reason is StopReason.TOOL_USE


# --- every recorded stream and error, replayed through the real adapter -------------------------


@dataclass(frozen=True)
class Expected:
    """What a recorded stream must assemble into; ``None`` leaves a field unchecked."""

    stop: StopReason
    usage: Usage | None = None
    text: str | None = None
    thinking: str | None = None  # the start of the one thinking part, which comes first
    calls: tuple[tuple[str, str, str], ...] | None = None  # (id, name, raw arguments)
    model: str | None = None


STOP_TOOL = StopReason.TOOL_USE
EXPECTED_ANSWERS = {
    "pa_gpt4omini_tool_call_include_usage.json": Expected(
        STOP_TOOL,
        Usage(input=53, output=15),
        calls=(("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", '{"country":"UK"}'),),
        model="gpt-4o-mini-2024-07-18",
    ),
    "gpt4o_parallel_tool_calls_index0_index1.sse": Expected(
        STOP_TOOL,
        Usage(input=149, output=60),
        calls=(
            (
                "call_JMW1whyEaYG438VE1OIflxA2",
                "GetWeatherArgs",
                '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            ),
            ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", '{"ticker": "AAPL", "exchange": "NASDAQ"}'),
        ),
    ),
    "gpt4o_finish_length_max_tokens.sse": Expected(
        StopReason.MAX_TOKENS, Usage(input=79, output=1), text='{"'
    ),
    # the error chunk that follows finish_reason "length" does not spoil the answer
    "pa_openrouter_stream_finish_length.json": Expected(
        StopReason.MAX_TOKENS,
        Usage(input=43, output=10),
        thinking="We need to respond to a greeting. The user",
    ),
    "pa_openrouter_claude_reasoning_stream.json": Expected(
        StopReason.END, Usage(input=43, output=36), "2 + 2 = 4", "This is a simple arithmetic question."
    ),
    "pa_groq_gptoss_reasoning_tool_call_usage.json": Expected(
        STOP_TOOL,
        Usage(input=304, output=49),  # from x_groq.usage
        thinking='We need to call the function with correct parameter "name".',
        calls=(("fc_bfb39741-3748-4def-9886-a93fc9c64a90", "get_something_by_name", '{"name":"example"}'),),
    ),
    "pa_mistral_magistral_thinking_stream.json": Expected(
        StopReason.END,
        Usage(input=10, output=232),
        thinking="Okay, the user is asking how to cross the street.",
    ),
    "gpt4o_refusal_deltas.sse": Expected(StopReason.END, text="I'm sorry, I can't assist with that request."),
    "gpt4o_n3_multiple_choices.sse": Expected(  # only choice 0 counts
        StopReason.END, text='{"city":"San Francisco","temperature":65,"units":"f"}'
    ),
    "nr_gpt51_stream_text_no_usage.json": Expected(
        StopReason.END, Usage(), "six", model="gpt-5.1-2025-11-13"
    ),
    "pa_gpt5_reasoning_model_text_include_usage_moderation.json": Expected(
        StopReason.END, Usage(input=13, output=11), "Paris."
    ),
}
EXPECTED_ERRORS: dict[str, tuple[type[ModelHTTPError], int, str]] = {
    "nr_error_401_invalid_api_key.json": (ModelHTTPError, 401, "refused the API key"),
    "nr_error_404_model_not_found.json": (ModelHTTPError, 404, "does-not-exist"),
    "pa_groq_error_404_model_not_found.json": (ModelHTTPError, 404, "not found"),
    "pa_error_400_unsupported_value_param.json": (ModelHTTPError, 400, "Unsupported value"),
    "pa_error_400_param_web_search_options.json": (ModelHTTPError, 400, "Web search options"),
    "pa_openrouter_error_429_upstream_rate_limited.json": (RateLimitedError, 429, "rate-limited upstream"),
}


def recording(name: str) -> Path:
    [path] = OPENAI_CHAT.rglob(name)
    return path


def check_answer(message: Message, expected: Expected) -> None:
    assert message.stop_reason is expected.stop
    assert expected.usage is None or message.usage == expected.usage
    assert expected.text is None or message.text == expected.text
    assert expected.model is None or message.model == expected.model
    calls = tuple((c.id, c.name, c.arguments) for c in message.tool_calls)
    assert expected.calls is None or calls == expected.calls
    thinking = [p for p in message.parts if isinstance(p, ThinkingPart)]
    if expected.thinking is not None:
        assert thinking == [message.parts[0]]
        assert thinking[0].text.startswith(expected.thinking)


@needs_fixtures
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
async def test_every_recording_gives_its_answer_or_a_specific_error(
    gateway: ScriptedGateway, model: OpenAIChatModel, path: Path
) -> None:
    gateway.enqueue(replay(path))
    status = recorded_status(path)

    if status >= 400:
        with pytest.raises((ModelHTTPError, ContextOverflowError)) as caught:
            await events_of(model)
        assert not isinstance(caught.value, ModelHTTPError) or caught.value.status == status
        assert "\n" not in str(caught.value)
        if path.name in EXPECTED_ERRORS:
            error_class, expected_status, words = EXPECTED_ERRORS[path.name]
            assert type(caught.value) is error_class
            assert caught.value.status == expected_status
            assert words in caught.value.message
    elif "event: error" in raw_body(path):
        with pytest.raises(ModelError) as in_stream:
            await events_of(model)
        assert not isinstance(in_stream.value, ModelHTTPError)
    else:
        events = await events_of(model)
        message = assemble(events)
        assert message.stop_reason in (StopReason.END, StopReason.TOOL_USE, StopReason.MAX_TOKENS)
        assert message.parts
        assert message.model
        assert [e for e in events if isinstance(e, Finished)] == [events[-1]]
        if path.name in EXPECTED_ANSWERS:
            check_answer(message, EXPECTED_ANSWERS[path.name])


@needs_fixtures
def test_the_expectations_name_existing_recordings() -> None:
    names = {p.name for p in RECORDINGS}

    assert set(EXPECTED_ANSWERS) <= names
    assert set(EXPECTED_ERRORS) <= names


@needs_fixtures
async def test_the_event_sequence_starts_deltas_ends_calls_then_reports_usage_and_finishes(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    gateway.enqueue(replay(recording("pa_gpt4omini_tool_call_include_usage.json")))

    kinds = [type(event).__name__ for event in await events_of(model)]

    assert kinds[:3] == ["RequestSent", "ResponseStarted", "ResponseIdentified"]
    kinds = kinds[3:]
    assert kinds[0] == "ToolCallStarted"
    assert set(kinds[1:-3]) == {"ToolCallDelta"}
    assert kinds[-3:] == ["ToolCallEnded", "UsageReported", "Finished"]


@needs_fixtures
async def test_an_error_event_inside_a_200_stream_raises_model_error(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    gateway.enqueue(replay(recording("pa_groq_gptoss_reasoning_then_inline_error_event.json")))
    seen: list[ModelEvent] = []

    with pytest.raises(ModelError) as caught:
        await collect_into(seen, model)

    assert type(caught.value) is ModelStreamError
    assert caught.value.status is None  # a failed generation: another try may differ
    assert "Tool call validation failed" in caught.value.message
    assert seen
    assert not any(isinstance(e, Finished) for e in seen)


def quoted_errors() -> list[dict[str, Any]]:
    path = OPENAI_CHAT / "errors-quoted.json"
    return list(json.loads(path.read_text())["entries"]) if path.exists() else []


QUOTED_CLASSES: dict[str, type[ModelError]] = {
    "groq_429_tpm": RateLimitedError,
    "groq_413_tpm_request_too_large": ModelHTTPError,
    "openai_style_context_length_400": ContextOverflowError,
}


@needs_fixtures
@pytest.mark.parametrize("entry", quoted_errors(), ids=lambda e: str(e["id"]))
async def test_quoted_error_bodies_map_to_their_class(
    gateway: ScriptedGateway, model: OpenAIChatModel, entry: dict[str, Any]
) -> None:
    gateway.enqueue(
        GatewayResponse(
            entry["status"], {"content-type": "application/json"}, json.dumps(entry["body"]).encode()
        )
    )

    with pytest.raises(ModelError) as caught:
        await events_of(model)

    assert type(caught.value) is QUOTED_CLASSES.get(entry["id"], type(caught.value))
    assert entry["body"]["error"]["message"][:40] in caught.value.message


# --- the request on the wire ---------------------------------------------------------------------


async def test_the_request_has_the_system_message_tools_and_usage_option(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    gateway.enqueue(chat_text("ok"))
    request = ModelRequest(
        model="gpt-test",
        system="Be brief.",
        messages=(Message.user("hi"),),
        tools=(TOOL,),
        max_output_tokens=256,
        thinking="high",
    )

    await events_of(model, request)

    [recorded] = gateway.requests
    body = recorded.json()
    assert recorded.path == "/v1/chat/completions"
    assert body["model"] == "gpt-test"
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["messages"][1] == {"role": "user", "content": "hi"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "read_file", "description": "Read a file.", "parameters": TOOL.parameters},
        }
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["max_tokens"], body["reasoning_effort"]) == (256, "high")


async def test_unset_limits_are_not_sent(gateway: ScriptedGateway, model: OpenAIChatModel) -> None:
    gateway.enqueue(chat_text("ok"))

    await events_of(model)

    body = gateway.requests[0].json()
    assert not {"max_tokens", "max_completion_tokens", "reasoning_effort", "tools"} & body.keys()


async def test_a_tool_call_and_its_result_round_trip_into_wire_messages(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    call_id = "call_ZR5UUuTt3pf61kjwAJIYdVMj"
    history = (
        Message.user("What is the capital of the UK? Use the tool, then answer."),
        Message(
            role="assistant",
            parts=(
                ThinkingPart(text="I should use the tool.", signature="sig"),
                ToolCallPart(id=call_id, name="get_capital", arguments='{"country":"UK"}'),
            ),
        ),
        Message.tool_result(call_id=call_id, name="get_capital", text="London"),
    )
    gateway.enqueue(chat_text("The capital of the UK is London."))

    await events_of(model, ModelRequest(model="gpt-4o-mini", system="", messages=history))

    # the same wire messages pydantic-ai sent in pa_gpt4omini_text_after_tool_include_usage.json
    assert gateway.requests[0].json()["messages"] == [
        {"role": "user", "content": "What is the capital of the UK? Use the tool, then answer."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_capital", "arguments": '{"country":"UK"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "London"},
    ]


async def test_each_tool_result_is_its_own_tool_message_and_images_are_data_urls(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    results = Message(
        role="tool",
        parts=(
            *Message.tool_result(call_id="a", name="ls", text="x.py").parts,
            *Message.tool_result(call_id="b", name="ls", text="y.py").parts,
        ),
    )
    picture = Message(
        role="user", parts=(TextPart(text="look"), ImagePart(media_type="image/png", data="iVBO"))
    )
    gateway.enqueue(chat_text("ok"))

    await events_of(model, ModelRequest(model="m", system="", messages=(results, picture)))

    messages = gateway.requests[0].json()["messages"]
    assert messages[:2] == [
        {"role": "tool", "tool_call_id": "a", "content": "x.py"},
        {"role": "tool", "tool_call_id": "b", "content": "y.py"},
    ]
    assert messages[2]["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
    ]


async def test_the_same_history_gives_the_same_body(gateway: ScriptedGateway, model: OpenAIChatModel) -> None:
    request = ModelRequest(
        model="m", system="s", messages=(Message.user("a"), Message.user("b")), tools=(TOOL,)
    )
    gateway.enqueue(chat_text("1"), chat_text("2"))

    await events_of(model, request)
    await events_of(model, request)

    first, second = gateway.requests
    assert first.body == second.body


async def test_a_local_endpoint_needs_no_key_and_a_given_key_is_sent(gateway: ScriptedGateway) -> None:
    gateway.reset()
    gateway.enqueue(chat_text("1"), chat_text("2"))
    keyless = OpenAIChatModel(endpoint(gateway.base_url))
    keyed = OpenAIChatModel(endpoint(gateway.base_url, api_key="sk-test"))
    try:
        await events_of(keyless)
        await events_of(keyed)
    finally:
        await keyless.aclose()
        await keyed.aclose()

    assert gateway.requests[0].headers["authorization"].startswith("Bearer ")
    assert gateway.requests[1].headers["authorization"] == "Bearer sk-test"


async def test_api_openai_com_without_a_key_is_a_config_error() -> None:
    client = OpenAIChatModel(endpoint("https://api.openai.com/v1"))

    with pytest.raises(ConfigError, match="CIRCLE_API_KEY"):
        await events_of(client)
    await client.aclose()


# --- broken streams and unreachable endpoints ----------------------------------------------------


async def test_a_stream_cut_mid_tool_call_is_a_connection_error(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    complete = chat_tool_calls([("call_1", "read_file", {"path": "a.txt"})])
    assert complete.chunks is not None
    gateway.enqueue(GatewayResponse(200, complete.headers, chunks=complete.chunks[:3], truncate=True))

    with pytest.raises(ModelConnectionError, match="broke mid-answer"):
        await events_of(model)


async def test_a_stream_that_ends_without_a_finish_reason_is_incomplete(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    complete = chat_tool_calls([("call_1", "read_file", {"path": "a.txt"})])
    assert complete.chunks is not None
    gateway.enqueue(GatewayResponse(200, complete.headers, chunks=complete.chunks[:3]))

    events = await events_of(model)

    assert not any(isinstance(e, Finished) for e in events)
    assert assemble(events).stop_reason is StopReason.INCOMPLETE


async def test_an_unreachable_endpoint_is_a_connection_error() -> None:
    client = OpenAIChatModel(endpoint(f"http://127.0.0.1:{closed_port()}/v1"))

    with pytest.raises(ModelConnectionError, match=r"cannot reach http://127\.0\.0\.1:"):
        await events_of(client)
    await client.aclose()


async def test_a_slow_endpoint_times_out_as_a_connection_error(gateway: ScriptedGateway) -> None:
    gateway.reset()
    gateway.enqueue(GatewayResponse(200, {}, b"", delay_s=1.0))
    client = OpenAIChatModel(endpoint(gateway.base_url, timeout_s=0.2))

    with pytest.raises(ModelConnectionError, match=r"no answer within 0\.2 s"):
        await events_of(client)
    await client.aclose()


async def test_an_html_502_page_is_a_readable_http_error(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    page = (
        b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
        b"</center><hr><center>nginx/1.25.3</center></body></html>"
    )
    gateway.enqueue(GatewayResponse(502, {"content-type": "text/html"}, page))

    with pytest.raises(ModelHTTPError) as caught:
        await events_of(model)

    assert caught.value.status == 502
    assert caught.value.message == "the endpoint answered 502: 502 Bad Gateway nginx/1.25.3"


async def test_retry_after_is_read_from_a_429(gateway: ScriptedGateway, model: OpenAIChatModel) -> None:
    gateway.enqueue(chat_error(429, "Rate limit reached", headers={"retry-after": "7"}))
    gateway.enqueue(chat_error(429, "Rate limit reached", headers={"retry-after-ms": "1500"}))

    with pytest.raises(RateLimitedError) as seconds:
        await events_of(model)
    with pytest.raises(RateLimitedError) as millis:
        await events_of(model)

    assert (seconds.value.status, seconds.value.retry_after, millis.value.retry_after) == (429, 7.0, 1.5)


async def test_a_context_length_400_is_context_overflow(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    message = (
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    )
    gateway.enqueue(chat_error(400, message))

    with pytest.raises(ContextOverflowError, match="maximum context length"):
        await events_of(model)


async def test_a_chunk_that_is_not_json_is_a_protocol_error(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    gateway.enqueue(GatewayResponse(200, {"content-type": "text/event-stream"}, chunks=[b"data: {oops\n\n"]))

    with pytest.raises(ProviderProtocolError, match="not JSON"):
        await events_of(model)


async def test_a_json_completion_instead_of_a_stream_is_the_collected_answer(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    completion = {
        "id": "c",
        "object": "chat.completion",
        "model": "local-model",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Reading it.",
                    "tool_calls": [
                        {"id": "t1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 8}},
    }
    gateway.enqueue(
        GatewayResponse(200, {"content-type": "application/json"}, json.dumps(completion).encode())
    )

    message = await answer_of(model)

    assert message.text == "Reading it."
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [("t1", "read_file", "{}")]
    assert (message.stop_reason, message.model) == (StopReason.TOOL_USE, "local-model")
    assert message.usage == Usage(input=12, output=4, cache_read=8)


async def test_a_consumer_that_stops_early_leaves_the_client_usable(
    gateway: ScriptedGateway, model: OpenAIChatModel
) -> None:
    gateway.enqueue(chat_text("a long answer in several pieces"), chat_text("next"))

    async with asyncio.timeout(10):
        stream = model.stream(REQUEST)
        first = await anext(stream)
        while isinstance(first, RequestSent | ResponseStarted | ResponseIdentified):  # no content yet
            first = await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]

    assert isinstance(first, TextDelta)
    assert (await answer_of(model)).text == "next"


async def test_a_given_http_client_is_used_and_left_open(gateway: ScriptedGateway) -> None:
    import httpx2

    gateway.reset()
    gateway.enqueue(chat_text("via the given client"))
    async with httpx2.AsyncClient(headers={"x-from": "given"}) as http_client:
        client = OpenAIChatModel(endpoint(gateway.base_url), http_client=http_client)
        message = await answer_of(client)
        await client.aclose()

        assert not http_client.is_closed
    assert message.text == "via the given client"
    assert gateway.requests[0].headers["x-from"] == "given"


@needs_fixtures
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
async def test_every_recording_matches_its_golden_event_sequence(
    gateway: ScriptedGateway, model: OpenAIChatModel, path: Path
) -> None:
    gateway.enqueue(replay(path))
    seen: list[ModelEvent] = []
    error: CircleError | None = None
    try:
        await collect_into(seen, model)
    except CircleError as exc:
        error = exc
    name = str(path.relative_to(OPENAI_CHAT).with_suffix("")).replace("/", "__")
    check_golden("openai-chat", name, seen, error)
