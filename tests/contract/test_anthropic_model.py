"""AnthropicModel against recorded Anthropic Messages streams and a scripted loopback gateway.

Every recording in ``../shared/fixtures/providers/anthropic`` (``pa_*.json`` with a response and
the bare SDK ``*.sse`` bodies) is replayed through the real adapter, its SDK and a real socket,
and compared with its golden event sequence; new files are picked up by glob. The request
tests read the JSON body the gateway received.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import GatewayResponse, ScriptedGateway, replay_fixture, replay_sse
from circle.adapters.models.anthropic import AnthropicModel, api_base_url
from circle.domain.errors import (
    CircleError,
    ConfigError,
    ContextOverflowError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    RateLimitedError,
)
from circle.domain.messages import (
    DocumentPart,
    ImagePart,
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from circle.domain.model import (
    AnswerAssembler,
    Finished,
    ModelEvent,
    ModelRequest,
    ToolCallEnded,
    ToolSpec,
    UsageReported,
)
from circle.domain.settings import Endpoint

from ._golden import check_golden

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures"
ANTHROPIC = FIXTURES / "providers" / "anthropic"
needs_fixtures = pytest.mark.skipif(not ANTHROPIC.is_dir(), reason=f"no recorded fixtures at {FIXTURES}")

MODEL = "claude-test"
REQUEST = ModelRequest(model=MODEL, system="You are terse.", messages=(Message.user("hi"),))
TOOL = ToolSpec(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
EPHEMERAL = {"type": "ephemeral"}
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}


def recordings() -> list[Path]:
    """Every replayable recording: NAME.json with a response, and bare .sse bodies."""
    if not ANTHROPIC.is_dir():
        return []
    paths = [p for p in sorted(ANTHROPIC.rglob("*.json")) if "response" in json.loads(p.read_text())]
    return paths + [p for p in sorted(ANTHROPIC.rglob("*.sse")) if not p.with_suffix(".json").exists()]


def recording(name: str) -> Path:
    return ANTHROPIC / name


def replay(path: Path) -> GatewayResponse:
    return replay_fixture(path) if path.suffix == ".json" else replay_sse(path)


def recorded_status(path: Path) -> int:
    return int(json.loads(path.read_text())["response"]["status"]) if path.suffix == ".json" else 200


def golden_name(path: Path) -> str:
    return str(path.relative_to(ANTHROPIC).with_suffix("")).replace("/", "__")


RECORDINGS = recordings()


# --- scripted Anthropic answers ------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> GatewayResponse:
    chunks = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    return GatewayResponse(200, dict(SSE_HEADERS), chunks=chunks)


def answer_events(
    *blocks: dict[str, Any], stop: str = "end_turn", usage: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """The events of an answer whose blocks are ``{"type": "text", "text": ...}`` and the like."""
    start_usage = {"input_tokens": 10, "output_tokens": 1, **(usage or {})}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "content": []}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {**message, "usage": start_usage}}]
    for index, block in enumerate(blocks):
        empty = {"text": {"text": ""}, "thinking": {"thinking": "", "signature": ""}}.get(block["type"], {})
        start = {**block, **empty} if block["type"] in ("text", "thinking") else block
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        if block["type"] == "text":
            delta = {"type": "text_delta", "text": block["text"]}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        if block["type"] == "thinking":
            for delta in (
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ):
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}})
    return [*events, {"type": "message_stop"}]


def text_answer(text: str) -> GatewayResponse:
    return sse(*answer_events({"type": "text", "text": text}))


def error_answer(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> GatewayResponse:
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}
    return GatewayResponse(
        status, {"content-type": "application/json", **(headers or {})}, json.dumps(body).encode()
    )


SIGNATURE_ERROR = "messages.1.content.0: Invalid `signature` in `thinking` block"


# --- fixtures and helpers ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture
async def model(gateway: ScriptedGateway) -> AsyncIterator[AnthropicModel]:
    gateway.reset()
    client = AnthropicModel(endpoint(gateway.base_url))
    yield client
    await client.aclose()


def endpoint(base_url: str, *, api_key: str | None = None, timeout_s: float = 10) -> Endpoint:
    return Endpoint(base_url=base_url, protocol="anthropic", api_key=api_key, model=None, timeout_s=timeout_s)


async def events_of(client: AnthropicModel, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in client.stream(request)]


async def collect_into(
    seen: list[ModelEvent], client: AnthropicModel, request: ModelRequest = REQUEST
) -> None:
    async with asyncio.timeout(10):
        async for event in client.stream(request):
            seen.append(event)


def assemble(events: list[ModelEvent]) -> Message:
    assembler = AnswerAssembler()
    for event in events:
        assembler.add(event)
    return assembler.message()


async def answer_of(client: AnthropicModel, request: ModelRequest = REQUEST) -> Message:
    return assemble(await events_of(client, request))


async def replayed(gateway: ScriptedGateway, model: AnthropicModel, name: str) -> Message:
    gateway.enqueue(replay(recording(name)))
    return await answer_of(model)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def thinking_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in body["messages"]
        for block in message["content"]
        if block["type"] in ("thinking", "redacted_thinking")
    ]


# --- every recording ----------------------------------------------------------------------------


@needs_fixtures
@pytest.mark.parametrize("path", RECORDINGS, ids=golden_name)
async def test_every_recording_matches_its_golden_event_sequence(
    gateway: ScriptedGateway, model: AnthropicModel, path: Path
) -> None:
    gateway.enqueue(replay(path))
    seen: list[ModelEvent] = []
    error: CircleError | None = None
    try:
        await collect_into(seen, model)
    except CircleError as exc:
        error = exc

    if recorded_status(path) >= 400:
        assert isinstance(error, ModelHTTPError | ContextOverflowError)
        assert "\n" not in error.message
    else:
        assert error is None
        assert [e for e in seen if isinstance(e, Finished)] == [seen[-1]]
        assert isinstance(seen[-2], UsageReported)
        finished = seen[-1]
        assert isinstance(finished, Finished) and finished.scope == model.scope(MODEL)
        seen[-1] = dataclasses.replace(finished, scope="<the gateway's scope>")  # its port varies
    check_golden("anthropic", golden_name(path), seen, error)


@needs_fixtures
async def test_thinking_with_its_signature_comes_before_the_text(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    message = await replayed(gateway, model, "pa_sonnet4_thinking_signature_delta_text.json")

    thinking, text = message.parts
    assert isinstance(thinking, ThinkingPart) and isinstance(text, TextPart)
    assert thinking.text.startswith("This is a straightforward question about pedestrian safety.")
    assert thinking.signature is not None and thinking.signature.startswith("EvMCCkYICxgCKkCHP2cS")
    assert (message.stop_reason, message.model) == (StopReason.END, "claude-sonnet-4-20250514")
    assert message.usage == Usage(input=43, output=282)
    assert message.scope == model.scope(MODEL)


@needs_fixtures
async def test_redacted_thinking_blocks_are_kept_apart_and_verbatim(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    message = await replayed(gateway, model, "pa_sonnet45_redacted_thinking_stream.json")

    first, second, text = message.parts
    assert isinstance(first, ThinkingPart) and isinstance(second, ThinkingPart)
    assert first.redacted is not None and first.redacted.startswith("EqkECkYIBxgCKkA8AZ4n")
    assert second.redacted is not None and second.redacted.endswith("GAE=")
    assert (first.text, first.signature) == ("", None)
    assert isinstance(text, TextPart) and text.text


@needs_fixtures
async def test_a_tool_use_block_becomes_a_call_with_its_streamed_arguments(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    message = await replayed(gateway, model, "anthropic-sdk-python/tool_use_response.sse")

    [call] = message.tool_calls
    assert (call.id, call.name, call.arguments) == (
        "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        "get_weather",
        '{"location": "Paris"}',
    )
    assert message.text == "I'll check the current weather in Paris for you."
    assert message.stop_reason is StopReason.TOOL_USE
    assert message.usage == Usage(input=377, output=65)


@needs_fixtures
async def test_max_tokens_ends_the_cut_tool_call_and_says_why(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    gateway.enqueue(replay(recording("anthropic-sdk-python/incomplete_partial_json_response.sse")))

    events = await events_of(model)

    message = assemble(events)
    assert message.stop_reason is StopReason.MAX_TOKENS
    [call] = message.tool_calls
    assert call.name == "make_file" and call.parsed_arguments() is None
    assert ToolCallEnded(index=1) in events


@needs_fixtures
@pytest.mark.parametrize(
    ("name", "stop"),
    [
        ("anthropic-sdk-python/refusal_response.sse", StopReason.FILTERED),
        ("anthropic-sdk-python/stream-a-refusal.sse", StopReason.FILTERED),
        ("pa_sonnet45_pause_turn_web_search_stream.json", StopReason.INCOMPLETE),
    ],
)
async def test_refusal_is_filtered_and_pause_turn_is_incomplete(
    gateway: ScriptedGateway, model: AnthropicModel, name: str, stop: StopReason
) -> None:
    message = await replayed(gateway, model, name)

    assert message.stop_reason is stop


@needs_fixtures
async def test_usage_takes_the_latest_counts_with_cache_reads_and_writes(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    fields = await replayed(gateway, model, "anthropic-sdk-python/message_delta_fields_response.sse")
    omitted = await replayed(gateway, model, "anthropic-sdk-python/message_delta_omitted_usage_response.sse")

    assert fields.usage == Usage(input=40, output=8, cache_read=7, cache_write=12)
    assert omitted.usage == Usage(input=25, output=8, cache_read=5, cache_write=10)


@needs_fixtures
async def test_server_tool_blocks_are_not_tool_calls(gateway: ScriptedGateway, model: AnthropicModel) -> None:
    search = await replayed(gateway, model, "anthropic-sdk-python/server_tool_use_response.sse")
    code = await replayed(gateway, model, "pa_sonnet46_code_execution_thinking_stream.json")

    assert search.tool_calls == () and search.text
    assert code.tool_calls == () and code.stop_reason is StopReason.END
    assert "for you right away!\n\nFollowing the standard" in code.text  # text resumed after the tool


@needs_fixtures
async def test_unknown_events_and_a_comment_line_are_ignored(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    message = await replayed(gateway, model, "anthropic-sdk-python/unknown_events_response.sse")

    assert (message.text, message.stop_reason) == ("Hello there!", StopReason.END)
    assert message.usage == Usage(input=11, output=6)


@needs_fixtures
async def test_a_json_message_instead_of_a_stream_is_the_collected_answer(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    message = await replayed(gateway, model, "pa_nonstream_parallel_tool_use.json")

    assert [json.loads(c.arguments)["name"] for c in message.tool_calls] == [
        "Alice",
        "Bob",
        "Charlie",
        "Daisy",
    ]
    assert message.text.startswith("I'll help you find out who is the youngest")
    assert (message.stop_reason, message.usage) == (StopReason.TOOL_USE, Usage(input=423, output=202))


# --- errors -------------------------------------------------------------------------------------


def quoted_errors() -> list[dict[str, Any]]:
    path = ANTHROPIC / "errors-quoted.json"
    return list(json.loads(path.read_text())["entries"]) if path.exists() else []


QUOTED_CLASSES: dict[str, tuple[type[ModelError], str]] = {
    "rate_limit_429_account": (RateLimitedError, "exceed your account's rate limit"),
    "rate_limit_429_org_itpm": (RateLimitedError, "30,000 input tokens per minute"),
    "overloaded_529": (ModelHTTPError, "overloaded (529)"),
    "overloaded_in_stream_event": (ModelStreamError, "overloaded"),
    "thinking_signature_invalid_400": (ModelHTTPError, "Invalid `signature`"),
    "thinking_blocks_modified_400": (ModelHTTPError, "cannot be modified"),
    "thinking_budget_400": (ModelHTTPError, "budget_tokens"),
    "prompt_too_long_400": (ContextOverflowError, "prompt is too long"),
}


def quoted_response(entry: dict[str, Any]) -> GatewayResponse:
    if "sse" in entry:
        return GatewayResponse(entry["status"], dict(SSE_HEADERS), entry["sse"].encode())
    body = json.dumps(entry["body"]).encode() if "body" in entry else entry["body_prefix"].encode()
    return GatewayResponse(entry["status"], {"content-type": "application/json"}, body)


@needs_fixtures
@pytest.mark.parametrize("entry", quoted_errors(), ids=lambda e: str(e["id"]))
async def test_quoted_error_bodies_map_to_their_class(
    gateway: ScriptedGateway, model: AnthropicModel, entry: dict[str, Any]
) -> None:
    gateway.enqueue(quoted_response(entry))

    with pytest.raises(ModelError) as caught:
        await events_of(model)

    error_class, words = QUOTED_CLASSES[entry["id"]]
    assert type(caught.value) is error_class
    assert words in caught.value.message
    if isinstance(caught.value, ModelStreamError):  # an error event: its HTTP equivalent
        assert caught.value.status == 529
    else:
        assert getattr(caught.value, "status", entry["status"]) == entry["status"]


async def test_an_error_event_mid_stream_raises_after_the_text_so_far(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    events = answer_events({"type": "text", "text": "Half an answ"})[:3]
    events.append({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}})
    gateway.enqueue(sse(*events))
    seen: list[ModelEvent] = []

    with pytest.raises(ModelError, match="failed mid-answer: Internal server error") as caught:
        await collect_into(seen, model)

    assert type(caught.value) is ModelStreamError
    assert caught.value.status == 500  # api_error
    assert assemble(seen).text == "Half an answ"


async def test_retry_after_is_read_from_a_429(gateway: ScriptedGateway, model: AnthropicModel) -> None:
    gateway.enqueue(error_answer(429, "rate_limit_error", "Slow down", headers={"retry-after": "7"}))

    with pytest.raises(RateLimitedError) as caught:
        await events_of(model)

    assert (caught.value.status, caught.value.retry_after) == (429, 7.0)
    assert caught.value.message == "rate limited (429) (retry after 7 s): Slow down"


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "the endpoint refused the API key (401): invalid x-api-key"),
        (404, "model or URL not found (404)"),
    ],
)
async def test_refused_keys_and_missing_models_say_so(
    gateway: ScriptedGateway, model: AnthropicModel, status: int, words: str
) -> None:
    gateway.enqueue(error_answer(status, "authentication_error", "invalid x-api-key"))

    with pytest.raises(ModelHTTPError) as caught:
        await events_of(model)

    assert caught.value.status == status
    assert caught.value.message.startswith(words)


async def test_an_html_502_page_is_a_readable_http_error(
    gateway: ScriptedGateway, model: AnthropicModel
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


async def test_a_stream_cut_mid_answer_is_a_connection_error(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    complete = text_answer("never finished")
    assert complete.chunks is not None
    gateway.enqueue(GatewayResponse(200, complete.headers, chunks=complete.chunks[:3], truncate=True))

    with pytest.raises(ModelConnectionError, match="broke mid-answer"):
        await events_of(model)


async def test_a_stream_that_ends_without_message_stop_is_incomplete(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    complete = text_answer("almost")
    assert complete.chunks is not None
    gateway.enqueue(GatewayResponse(200, complete.headers, chunks=complete.chunks[:-1]))

    events = await events_of(model)

    assert not any(isinstance(e, Finished) for e in events)
    assert assemble(events).stop_reason is StopReason.INCOMPLETE


async def test_an_unreachable_endpoint_is_a_connection_error() -> None:
    client = AnthropicModel(endpoint(f"http://127.0.0.1:{closed_port()}"))

    with pytest.raises(ModelConnectionError, match=r"cannot reach http://127\.0\.0\.1:"):
        await events_of(client)
    await client.aclose()


async def test_a_slow_endpoint_times_out_as_a_connection_error(gateway: ScriptedGateway) -> None:
    gateway.reset()
    gateway.enqueue(GatewayResponse(200, {}, b"", delay_s=1.0))
    client = AnthropicModel(endpoint(gateway.base_url, timeout_s=0.2))

    with pytest.raises(ModelConnectionError, match=r"no answer within 0\.2 s"):
        await events_of(client)
    await client.aclose()


async def test_api_anthropic_com_without_a_key_is_a_config_error() -> None:
    client = AnthropicModel(endpoint("https://api.anthropic.com/v1"))

    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        await events_of(client)
    await client.aclose()


# --- the request on the wire --------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_the_base_url_may_end_with_v1_or_not(gateway: ScriptedGateway, suffix: str) -> None:
    gateway.reset()
    gateway.enqueue(text_answer("ok"))
    root = gateway.base_url.removesuffix("/v1")
    client = AnthropicModel(endpoint(root + suffix, api_key="sk-ant-test"))
    try:
        await events_of(client)
    finally:
        await client.aclose()

    [recorded] = gateway.requests
    assert recorded.path == "/v1/messages"
    assert "sk-ant-test" in recorded.headers.get("x-api-key", recorded.headers.get("authorization", ""))
    assert api_base_url(root + suffix) == root


async def test_the_request_has_cached_system_and_tools_and_max_tokens_for_an_unknown_model(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    other = ToolSpec(name="ls", description="List.", parameters={"type": "object", "properties": {}})
    gateway.enqueue(text_answer("ok"))

    await events_of(
        model,
        ModelRequest(model=MODEL, system="Be brief.", messages=(Message.user("hi"),), tools=(other, TOOL)),
    )

    body = gateway.requests[0].json()
    assert (body["model"], body["max_tokens"], body["stream"]) == (MODEL, 8192, True)
    assert "thinking" not in body
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert body["tools"] == [
        {"name": "ls", "description": "List.", "input_schema": other.parameters},
        {
            "name": "read_file",
            "description": "Read a file.",
            "input_schema": TOOL.parameters,
            "cache_control": EPHEMERAL,
        },
    ]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}]}
    ]


@pytest.mark.parametrize(
    ("level", "limit", "budget", "max_tokens"),
    [("high", 30_000, 24_000, 30_000), ("medium", None, 10_000, 18_192), ("low", 500, 1024, 1524)],
)
async def test_thinking_sends_a_budget_below_max_tokens(
    gateway: ScriptedGateway,
    model: AnthropicModel,
    level: Any,
    limit: int | None,
    budget: int,
    max_tokens: int,
) -> None:
    gateway.enqueue(text_answer("ok"))

    await events_of(
        model,
        ModelRequest(
            model=MODEL, system="", messages=REQUEST.messages, max_output_tokens=limit, thinking=level
        ),
    )

    body = gateway.requests[0].json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == max_tokens
    assert "system" not in body


@pytest.mark.parametrize(
    ("level", "limit", "budget", "max_tokens"),
    [
        (None, 64_000, None, 64_000),
        ("minimal", 64_000, 1024, 64_000),
        ("medium", 64_000, 10_000, 64_000),
        ("high", 64_000, 24_000, 64_000),
        ("max", 64_000, 48_000, 64_000),
        (None, 4_096, None, 4_096),
        ("max", 32_000, 30_976, 32_000),
    ],
)
async def test_max_tokens_is_the_models_output_limit_and_each_level_its_own_budget(
    gateway: ScriptedGateway,
    model: AnthropicModel,
    level: Any,
    limit: int,
    budget: int | None,
    max_tokens: int,
) -> None:
    gateway.enqueue(text_answer("ok"))

    await events_of(
        model,
        ModelRequest(model=MODEL, system="", messages=REQUEST.messages, thinking=level, output_limit=limit),
    )

    body = gateway.requests[0].json()
    assert body["max_tokens"] == max_tokens
    assert body.get("thinking") == (None if budget is None else {"type": "enabled", "budget_tokens": budget})


async def test_tool_results_merge_into_one_user_message_and_roles_alternate(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    png = ImagePart(media_type="image/png", data="iVBO")
    history = (
        Message.user("List both folders."),
        Message.user("Quickly, please."),
        Message(
            role="assistant",
            parts=(
                TextPart(text="Listing."),
                ToolCallPart(id="toolu_a", name="ls", arguments='{"path": "a"}'),
                ToolCallPart(id="call:b.1", name="ls", arguments="{not json"),
            ),
        ),
        Message.tool_result(call_id="toolu_a", name="ls", text="x.py"),
        Message(
            role="tool",
            parts=(
                ToolResultPart(
                    tool_call_id="call:b.1",
                    tool_name="ls",
                    content=(TextPart(text="no such folder"), png),
                    is_error=True,
                ),
            ),
        ),
        Message.user("Also look at this."),
    )
    gateway.enqueue(text_answer("ok"))

    await events_of(model, ModelRequest(model=MODEL, system="", messages=history))

    messages = gateway.requests[0].json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["text"] for b in messages[0]["content"]] == ["List both folders.", "Quickly, please."]
    assert messages[1]["content"][1:] == [
        {"type": "tool_use", "id": "toolu_a", "name": "ls", "input": {"path": "a"}},
        {"type": "tool_use", "id": "call_b_1", "name": "ls", "input": {}},
    ]
    assert messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_a",
            "content": [{"type": "text", "text": "x.py"}],
            "is_error": False,
        },
        {
            "type": "tool_result",
            "tool_use_id": "call_b_1",
            "content": [
                {"type": "text", "text": "no such folder"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
            ],
            "is_error": True,
        },
        {"type": "text", "text": "Also look at this.", "cache_control": EPHEMERAL},
    ]


async def test_images_and_pdfs_are_base64_blocks(gateway: ScriptedGateway, model: AnthropicModel) -> None:
    pdf = base64.b64encode(b"%PDF-1.7 ...").decode()
    message = Message(
        role="user",
        parts=(
            TextPart(text="Compare these."),
            ImagePart(media_type="image/jpeg", data="/9j/"),
            DocumentPart(media_type="application/pdf", data=pdf, name="spec.pdf"),
        ),
    )
    gateway.enqueue(text_answer("ok"))

    await events_of(model, ModelRequest(model=MODEL, system="", messages=(message,)))

    assert gateway.requests[0].json()["messages"][0]["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
            "title": "spec.pdf",
            "cache_control": EPHEMERAL,
        },
    ]


async def test_cache_breakpoints_mark_the_newest_turns_and_stay_within_four(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    history = (
        Message.user("one"),
        Message(role="assistant", parts=(TextPart(text="two"),)),
        Message.user("three"),
        Message(role="assistant", parts=(TextPart(text="four"), ThinkingPart(text="hm", signature="s"))),
        Message.user("five"),
    )
    gateway.enqueue(text_answer("ok"))

    await events_of(model, ModelRequest(model=MODEL, system="s", messages=history, tools=(TOOL,)))

    raw = gateway.requests[0].body.decode()
    marked = [
        [b.get("text") for b in m["content"] if "cache_control" in b]
        for m in gateway.requests[0].json()["messages"]
    ]
    assert marked == [[], [], ["three"], [], ["five"]]
    assert raw.count('"cache_control"') == 4


async def test_historical_thinking_round_trips_verbatim(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    answer = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="Let me think.", signature="sig-1"),
            ThinkingPart(redacted="opaque-data"),
            ThinkingPart(text="from another protocol, unsigned"),
            TextPart(text="Reading it."),
            ToolCallPart(id="toolu_1", name="read_file", arguments='{"path": "a.txt"}'),
        ),
    )
    history = (
        Message.user("Read a.txt"),
        answer,
        Message.tool_result(call_id="toolu_1", name="read_file", text="A"),
    )
    gateway.enqueue(text_answer("ok"))

    await events_of(model, ModelRequest(model=MODEL, system="", messages=history, thinking="low"))

    assert gateway.requests[0].json()["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque-data"},
        {"type": "text", "text": "Reading it."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}},
    ]


async def test_a_streamed_answer_goes_back_verbatim_in_the_next_request(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    call = {"type": "tool_use", "id": "toolu_9", "name": "read_file", "input": {"path": "a.txt"}}
    thinking = {"type": "thinking", "thinking": "I need the file.", "signature": "sig-9"}
    usage = {"cache_read_input_tokens": 30, "cache_creation_input_tokens": 4}
    gateway.enqueue(sse(*answer_events(thinking, call, stop="tool_use", usage=usage)), text_answer("done"))

    answer = await answer_of(
        model, ModelRequest(model=MODEL, system="", messages=REQUEST.messages, thinking="low")
    )
    result = Message.tool_result(call_id="toolu_9", name="read_file", text="A")
    follow_up = ModelRequest(
        model=MODEL, system="", messages=(*REQUEST.messages, answer, result), thinking="low"
    )
    await events_of(model, follow_up)

    assert (answer.stop_reason, answer.scope) == (StopReason.TOOL_USE, model.scope(MODEL))
    assert answer.usage == Usage(input=10, output=5, cache_read=30, cache_write=4)
    assert gateway.requests[1].json()["messages"][1] == {
        "role": "assistant",
        "content": [thinking, call],
    }


async def test_the_same_history_gives_the_same_body(gateway: ScriptedGateway, model: AnthropicModel) -> None:
    request = ModelRequest(
        model=MODEL, system="s", messages=(Message.user("a"), Message.user("b")), tools=(TOOL,)
    )
    gateway.enqueue(text_answer("1"), text_answer("2"))

    await events_of(model, request)
    await events_of(model, request)

    first, second = gateway.requests
    assert first.body == second.body


async def test_a_given_http_client_is_used_and_left_open(gateway: ScriptedGateway) -> None:
    import httpx2

    gateway.reset()
    gateway.enqueue(text_answer("via the given client"))
    async with httpx2.AsyncClient(headers={"x-from": "given"}) as http_client:
        client = AnthropicModel(endpoint(gateway.base_url), http_client=http_client)
        message = await answer_of(client)
        await client.aclose()

        assert not http_client.is_closed
    assert message.text == "via the given client"
    assert gateway.requests[0].headers["x-from"] == "given"


# --- thinking scope -----------------------------------------------------------------------------


def thought(signature: str, *, scope: str | None) -> Message:
    return Message(
        role="assistant",
        parts=(
            ThinkingPart(text=f"thought {signature}", signature=signature),
            TextPart(text=f"said {signature}"),
        ),
        scope=scope,
    )


def conversation(*answers: Message) -> ModelRequest:
    messages: list[Message] = []
    for index, answer in enumerate(answers):
        messages += [Message.user(f"question {index}"), answer]
    return ModelRequest(model=MODEL, system="", messages=(*messages, Message.user("next")), thinking="low")


async def test_the_scope_names_url_key_and_model(gateway: ScriptedGateway, model: AnthropicModel) -> None:
    gateway.enqueue(text_answer("ok"))

    finished = (await events_of(model))[-1]

    assert isinstance(finished, Finished) and finished.scope == model.scope(MODEL)
    keyed = AnthropicModel(endpoint(gateway.base_url, api_key="other"))
    moved = AnthropicModel(endpoint(gateway.base_url.replace("127.0.0.1", "localhost")))
    scopes = {model.scope(MODEL), model.scope("claude-other"), keyed.scope(MODEL), moved.scope(MODEL)}
    assert len(scopes) == 4
    assert model.scope(MODEL) == AnthropicModel(endpoint(gateway.base_url + "/")).scope(MODEL)


async def test_thinking_of_another_scope_is_left_out_but_its_text_stays(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    gateway.enqueue(text_answer("ok"))
    request = conversation(
        thought("old", scope="other-scope"),
        thought("none", scope=None),
        thought("mine", scope=model.scope(MODEL)),
    )

    await events_of(model, request)

    body = gateway.requests[0].json()
    assert [b["signature"] for b in thinking_blocks(body)] == ["none", "mine"]
    assert body["messages"][1]["content"] == [{"type": "text", "text": "said old"}]
    assert body["thinking"]["type"] == "enabled"


async def test_a_rejected_signature_retries_once_without_it_and_is_remembered(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    imported = thought("imported", scope=None)
    gateway.enqueue(error_answer(400, "invalid_request_error", SIGNATURE_ERROR), text_answer("recovered"))

    message = await answer_of(model, conversation(imported))

    first, second = gateway.requests
    assert message.text == "recovered"
    assert [b["signature"] for b in thinking_blocks(first.json())] == ["imported"]
    assert thinking_blocks(second.json()) == []
    assert second.json()["thinking"]["type"] == "enabled"
    assert second.json()["messages"][1]["content"] == [{"type": "text", "text": "said imported"}]

    gateway.enqueue(text_answer("later"))
    await events_of(model, conversation(imported, thought("fresh", scope=model.scope(MODEL))))

    third = gateway.requests[2].json()
    assert [b["signature"] for b in thinking_blocks(third)] == ["fresh"]


async def test_a_second_signature_error_is_raised_without_a_third_try(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    rejection = error_answer(400, "invalid_request_error", SIGNATURE_ERROR)
    gateway.enqueue(rejection, rejection, text_answer("never asked"))

    with pytest.raises(ModelHTTPError, match="Invalid `signature`") as caught:
        await events_of(model, conversation(thought("imported", scope=None)))

    assert caught.value.status == 400
    assert len(gateway.requests) == 2


@pytest.mark.parametrize(
    "message",
    [
        "The `thinking` blocks in the latest assistant message cannot be modified.",
        "thinking.budget_tokens: Input should be greater than or equal to 1024",
    ],
)
async def test_other_400s_are_not_signature_errors(
    gateway: ScriptedGateway, model: AnthropicModel, message: str
) -> None:
    gateway.enqueue(error_answer(400, "invalid_request_error", message), text_answer("never asked"))

    with pytest.raises(ModelHTTPError):
        await events_of(model, conversation(thought("imported", scope=None)))

    assert len(gateway.requests) == 1


async def test_a_signature_error_without_historical_thinking_is_not_retried(
    gateway: ScriptedGateway, model: AnthropicModel
) -> None:
    gateway.enqueue(error_answer(400, "invalid_request_error", SIGNATURE_ERROR), text_answer("never asked"))

    with pytest.raises(ModelHTTPError):
        await events_of(model)

    assert len(gateway.requests) == 1
