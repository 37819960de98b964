"""The endpoints' own web search (NativeSearch) against recorded streams over a loopback socket.

Anthropic's ``web_search_20250305`` server tool: the recorded answer that ends with
``pause_turn`` is continued by sending its blocks back as they came, and the pages, queries and
quoted passages of both answers are gathered. The Responses API's hosted ``web_search``: the
recorded ``web_search_call`` answer. Both: an endpoint refusing the tool (recorded and scripted
400 and 404 answers) means no native search, remembered without another request; other failures
are raised as one-line ``ModelError``s. The container wires the search to the protocol.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import GatewayResponse, ScriptedGateway, replay_fixture
from circle._testing.web import FakeWeb
from circle._testing.wire_scripts import anthropic_answer, responses_answer
from circle.adapters.models._native_search import INSTRUCTIONS, MAX_SEARCHES
from circle.adapters.models.anthropic import AnthropicModel
from circle.adapters.models.anthropic_search import AnthropicWebSearch
from circle.adapters.models.openai_responses import OpenAIResponsesModel
from circle.adapters.models.openai_responses_search import OpenAIResponsesWebSearch
from circle.application.approvals import AllowAll
from circle.application.ports.native_search import NativeSearchAnswer
from circle.application.ports.web import SearchResult
from circle.application.runtime import RuntimeOptions
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext
from circle.domain.errors import ModelHTTPError, RateLimitedError, ToolError
from circle.domain.messages import Usage
from circle.domain.settings import Endpoint, Protocol
from circle.entrypoints.container import Config, Container, build_runtime
from circle.testing import FakeProcessRunner, InMemoryFileSystem, InMemoryTextSearch, ScriptedModel

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures"
PROVIDERS = FIXTURES / "providers"
needs_fixtures = pytest.mark.skipif(not PROVIDERS.is_dir(), reason=f"no recorded fixtures at {FIXTURES}")

PAUSED = PROVIDERS / "anthropic" / "pa_sonnet45_pause_turn_web_search_stream.json"
WEB_SEARCH_CALL = PROVIDERS / "openai-responses" / "pa_gpt5_web_search_call_stream.json"
ANTHROPIC_404 = PROVIDERS / "anthropic" / "pa_error_404_not_found_error.json"
CHAT_REFUSES_SEARCH = PROVIDERS / "openai-chat" / "pa_error_400_param_web_search_options.json"

SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}
JSON_HEADERS = {"content-type": "application/json"}
QUERY = "San Francisco weather today"
WEATHER_URL = "https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629"
PENDING_SEARCH = "srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA"
"""The server_tool_use the recorded answer paused on, before its result."""


def endpoint(base_url: str, protocol: Protocol) -> Endpoint:
    return Endpoint(base_url=base_url, protocol=protocol, api_key=None, model=None, timeout_s=10)


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture
async def anthropic(gateway: ScriptedGateway) -> AsyncIterator[AnthropicWebSearch]:
    gateway.reset()
    client = AnthropicModel(endpoint(gateway.base_url, "anthropic"))
    yield AnthropicWebSearch(client, model="claude-test")
    await client.aclose()


@pytest.fixture
async def responses(gateway: ScriptedGateway) -> AsyncIterator[OpenAIResponsesWebSearch]:
    gateway.reset()
    client = OpenAIResponsesModel(endpoint(gateway.base_url, "openai-responses"))
    yield OpenAIResponsesWebSearch(client, model="gpt-test")
    await client.aclose()


async def search(
    native: AnthropicWebSearch | OpenAIResponsesWebSearch, query: str = QUERY, *, max_results: int = 10
) -> NativeSearchAnswer | None:
    async with asyncio.timeout(10):
        return await native.search(query, max_results=max_results)


def tool_context(native: AnthropicWebSearch | OpenAIResponsesWebSearch, web: FakeWeb) -> ToolContext:
    files = InMemoryFileSystem({"/w/.keep": ""})
    return ToolContext(
        workspace="/w",
        files=files,
        search=InMemoryTextSearch(files),
        processes=FakeProcessRunner(),
        approver=AllowAll(),
        web=web,
        native_search=native,
    )


def sse(*events: dict[str, Any]) -> GatewayResponse:
    chunks = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    return GatewayResponse(200, dict(SSE_HEADERS), chunks=chunks)


def anthropic_blocks(
    *blocks: tuple[dict[str, Any], list[dict[str, Any]]], stop: str = "end_turn"
) -> GatewayResponse:
    """A Messages stream of ``(start block, deltas)`` pairs."""
    message = {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test", "content": []}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**message, "usage": {"input_tokens": 5}}}
    ]
    for index, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 9}})
    return sse(*events, {"type": "message_stop"})


def anthropic_error(status: int, kind: str, message: str) -> GatewayResponse:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return GatewayResponse(status, dict(JSON_HEADERS), json.dumps(body).encode())


def openai_error(status: int, message: str, *, param: str | None = None) -> GatewayResponse:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
    return GatewayResponse(status, dict(JSON_HEADERS), json.dumps(body).encode())


CITED = "Mostly sunny, high of 68F."
CONTINUED = anthropic_blocks(
    (
        {
            "type": "web_search_tool_result",
            "tool_use_id": PENDING_SEARCH,
            "content": [
                {
                    "type": "web_search_result",
                    "title": "Air Quality",
                    "url": "https://air.example/sf",
                    "encrypted_content": "e1",
                }
            ],
        },
        [],
    ),
    (
        {"type": "text", "text": ""},
        [{"type": "text_delta", "text": "Today is mostly sunny in San Francisco."}],
    ),
    (
        {"type": "text", "text": ""},
        [
            {
                "type": "citations_delta",
                "citation": {
                    "type": "web_search_result_location",
                    "url": WEATHER_URL,
                    "title": "San Francisco, CA Weather Forecast | AccuWeather",
                    "cited_text": CITED,
                    "encrypted_index": "i1",
                },
            },
            {"type": "text_delta", "text": " The high is 68F."},
        ],
    ),
)


def recorded_blocks() -> tuple[list[dict[str, Any]], list[str]]:
    """The recorded paused answer's blocks as its start events gave them, and its queries."""
    body = (PAUSED.parent / json.loads(PAUSED.read_text())["response"]["body_file"]).read_text()
    events = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
    blocks = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    inputs: dict[int, str] = {}
    for event in events:
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
            inputs[event["index"]] = inputs.get(event["index"], "") + event["delta"]["partial_json"]
    return blocks, [json.loads(text)["query"] for _, text in sorted(inputs.items())]


# --- Anthropic: web_search_20250305 and pause_turn ------------------------------------------------


@needs_fixtures
async def test_a_paused_search_is_continued_with_its_blocks_sent_back_as_they_came(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch
) -> None:
    gateway.enqueue(replay_fixture(PAUSED), CONTINUED)
    answer = await search(anthropic)
    first, second = (r.json() for r in gateway.requests)
    asked = [{"role": "user", "content": [{"type": "text", "text": f"Search the web for: {QUERY}"}]}]
    assert first == {
        "model": "claude-test",
        "max_tokens": first["max_tokens"],
        "stream": True,
        "system": INSTRUCTIONS,
        "messages": asked,
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": MAX_SEARCHES}],
    }
    assert second["messages"][0] == asked[0] and second["tools"] == first["tools"]
    assert second["messages"][1]["role"] == "assistant"
    sent = second["messages"][1]["content"]
    recorded, queries = recorded_blocks()
    assert [b["type"] for b in sent] == [b["type"] for b in recorded]
    assert [b for b in sent if b["type"] == "web_search_tool_result"] == [
        b for b in recorded if b["type"] == "web_search_tool_result"
    ]
    assert [b["input"]["query"] for b in sent if b["type"] == "server_tool_use"] == queries
    assert sent[-1]["id"] == PENDING_SEARCH and sent[-1]["input"] == {"query": queries[-1]}
    assert sent[0]["type"] == "thinking" and sent[0]["thinking"] and sent[0]["signature"]
    assert all(b["text"] for b in sent if b["type"] == "text")

    assert answer is not None
    assert list(answer.queries) == queries and len(queries) == 11
    assert len(answer.results) == 10 and answer.results[0] == SearchResult(
        "San Francisco, CA Weather Forecast | AccuWeather", WEATHER_URL, CITED
    )
    assert answer.text.startswith("I'll run these searches one at a time as requested. Let me start:")
    assert "Let me continue with the remaining searches you requested:" in answer.text
    assert answer.text.endswith("Today is mostly sunny in San Francisco. The high is 68F.")
    assert answer.errors == ()
    assert answer.usage == Usage(input=404_500 + 5, output=943 + 9)  # both turns counted


@needs_fixtures
async def test_the_websearch_tool_gives_the_pages_and_the_answer_of_the_paused_search(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch
) -> None:
    gateway.enqueue(replay_fixture(PAUSED), CONTINUED)
    web = FakeWeb()
    ctx = tool_context(anthropic, web)
    out = await builtin_tools()["websearch"].invoke({"query": QUERY, "max_results": 2}, ctx)
    lines = out.text.splitlines()
    assert lines[0].startswith("Searched the web for: San Francisco weather today; San Francisco sunrise")
    assert lines[2:5] == [
        "1. San Francisco, CA Weather Forecast | AccuWeather",
        f"   {WEATHER_URL}",
        f"   {CITED}",
    ]
    assert "3. " not in out.text
    assert out.text.endswith("Today is mostly sunny in San Francisco. The high is 68F.")
    assert web.searches == []


async def test_a_failed_continuation_leaves_the_pages_found_so_far(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch
) -> None:
    paused = anthropic_blocks(
        (
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            [
                {"type": "input_json_delta", "partial_json": '{"query": "circle'},
                {"type": "input_json_delta", "partial_json": ' agent"}'},
            ],
        ),
        (
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {"type": "web_search_result", "title": "Circle", "url": "https://circle.example/"}
                ],
            },
            [],
        ),
        stop="pause_turn",
    )
    gateway.enqueue(paused, anthropic_error(529, "overloaded_error", "Overloaded"))
    answer = await search(anthropic, "circle agent")
    assert answer == NativeSearchAnswer(
        results=(SearchResult("Circle", "https://circle.example/", ""),),
        queries=("circle agent",),
        usage=Usage(input=5, output=9),
    )
    assert len(gateway.requests) == 2


async def test_the_search_tools_own_errors_are_reported(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch
) -> None:
    failed = {"type": "web_search_tool_result_error", "error_code": "too_many_requests"}
    gateway.enqueue(
        anthropic_blocks(
            (
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "x"},
                },
                [],
            ),
            ({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": failed}, []),
        )
    )
    answer = await search(anthropic, "x")
    assert answer == NativeSearchAnswer(
        results=(), queries=("x",), errors=("too_many_requests",), usage=Usage(input=5, output=9)
    )


@pytest.mark.parametrize(
    "refusal",
    [
        pytest.param(lambda: replay_fixture(ANTHROPIC_404), id="recorded-404", marks=needs_fixtures),
        pytest.param(
            lambda: anthropic_error(
                400,
                "invalid_request_error",
                "tools.0: Input tag 'web_search_20250305' found using 'type' does not match any of the "
                "expected tags",
            ),
            id="unknown-tool-400",
        ),
        pytest.param(
            lambda: anthropic_answer("I cannot search, but I think it is sunny."),
            id="answered-without-searching",
        ),
    ],
)
async def test_an_anthropic_endpoint_without_the_search_tool_is_remembered(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch, refusal: Any
) -> None:
    gateway.enqueue(refusal())
    assert await search(anthropic) is None
    assert await search(anthropic) is None
    assert len(gateway.requests) == 1
    assert anthropic.refused


async def test_an_overloaded_endpoint_is_an_error_and_is_asked_again_next_time(
    gateway: ScriptedGateway, anthropic: AnthropicWebSearch
) -> None:
    gateway.enqueue(
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_error(429, "rate_limit_error", "slow down"),
    )
    with pytest.raises(ModelHTTPError, match="overloaded") as caught:
        await search(anthropic)
    assert "\n" not in str(caught.value)
    with pytest.raises(RateLimitedError):
        await search(anthropic)
    assert len(gateway.requests) == 2 and anthropic.refused is None


# --- OpenAI Responses: the hosted web_search tool -------------------------------------------------


@needs_fixtures
async def test_a_recorded_web_search_call_gives_its_query_and_answer(
    gateway: ScriptedGateway, responses: OpenAIResponsesWebSearch
) -> None:
    gateway.enqueue(replay_fixture(WEB_SEARCH_CALL))
    answer = await search(responses, "What is the weather in San Francisco today?")
    assert answer is not None
    assert answer.queries == ("weather: San Francisco, CA",)
    assert answer.results == ()  # its one source is an API (oai-weather), without a URL
    assert answer.text.startswith("San Francisco weather today (Tuesday, September 16, 2025): Mostly sunny")
    (request,) = gateway.requests
    assert request.path.endswith("/responses")
    assert request.json() == {
        "model": "gpt-test",
        "stream": True,
        "store": False,
        "instructions": INSTRUCTIONS,
        "input": [
            {"role": "user", "content": "Search the web for: What is the weather in San Francisco today?"}
        ],
        "tools": [{"type": "web_search"}],
        "include": ["web_search_call.action.sources"],
    }


def cited_answer() -> GatewayResponse:
    """A scripted answer: a web_search_call with sources, then text citing two pages."""
    text = "Circle is a coding agent. It runs in the terminal."
    call = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "circle coding agent",
            "sources": [
                {"type": "url", "url": "https://source.example/"},
                {"type": "url", "url": "https://circle.example/"},
            ],
        },
    }
    notes = [
        {
            "type": "url_citation",
            "start_index": 0,
            "end_index": 25,
            "url": "https://circle.example/",
            "title": "Circle",
        },
        {
            "type": "url_citation",
            "start_index": 26,
            "end_index": 51,
            "url": "https://docs.example/",
            "title": "Docs",
        },
        {
            "type": "url_citation",
            "start_index": 0,
            "end_index": 5,
            "url": "file:///etc/passwd",
            "title": "No",
        },
    ]
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": notes}],
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-test"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**call, "status": "in_progress", "action": None},
        },
        {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.output_item.added", "output_index": 1, "item": {**message, "content": []}},
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "item_id": "msg_1",
            "content_index": 0,
            "delta": text,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {
            "type": "response.completed",
            "response": {
                "id": "resp_1",
                "model": "gpt-test",
                "status": "completed",
                "output": [call, message],
            },
        },
    ]
    return sse(*events)


async def test_cited_pages_come_first_with_the_passage_citing_them_then_the_sources(
    gateway: ScriptedGateway, responses: OpenAIResponsesWebSearch
) -> None:
    gateway.enqueue(cited_answer())
    answer = await search(responses, "circle")
    assert answer == NativeSearchAnswer(
        results=(
            SearchResult("Circle", "https://circle.example/", "Circle is a coding agent."),
            SearchResult("Docs", "https://docs.example/", "It runs in the terminal."),
            SearchResult("https://source.example/", "https://source.example/", ""),
        ),
        text="Circle is a coding agent. It runs in the terminal.",
        queries=("circle coding agent",),
    )
    gateway.enqueue(cited_answer())
    assert (await search(responses, "circle", max_results=1)) == dataclasses.replace(
        answer, results=answer.results[:1]
    )


@pytest.mark.parametrize(
    "refusal",
    [
        pytest.param(
            lambda: replay_fixture(CHAT_REFUSES_SEARCH),
            id="recorded-web-search-options-400",
            marks=needs_fixtures,
        ),
        pytest.param(
            lambda: openai_error(400, "Tool 'web_search' is not supported with gpt-test.", param="tools"),
            id="unsupported-tool-400",
        ),
        pytest.param(lambda: openai_error(404, "Not Found"), id="no-responses-route-404"),
        pytest.param(lambda: responses_answer("It is sunny, I believe."), id="answered-without-searching"),
    ],
)
async def test_a_responses_endpoint_without_the_search_tool_is_remembered(
    gateway: ScriptedGateway, responses: OpenAIResponsesWebSearch, refusal: Any
) -> None:
    gateway.enqueue(refusal())
    assert await search(responses) is None
    assert await search(responses) is None
    assert len(gateway.requests) == 1


async def test_a_rate_limited_responses_endpoint_is_one_clear_tool_error(
    gateway: ScriptedGateway, responses: OpenAIResponsesWebSearch
) -> None:
    gateway.enqueue(openai_error(429, "Rate limit reached for gpt-test."))
    ctx = tool_context(responses, FakeWeb())
    with pytest.raises(ToolError) as caught:
        await builtin_tools()["websearch"].invoke({"query": "circle"}, ctx)
    assert str(caught.value).startswith("the web search failed: rate limited (429)")
    assert "\n" not in str(caught.value)


# --- wiring ------------------------------------------------------------------------------------------


def container_for(protocol: Protocol, tmp_path: Path, *, model: str = "m") -> Container:
    config = Config(
        workspace=tmp_path,
        data_dir=tmp_path / "data",
        endpoint=endpoint("http://127.0.0.1:9/v1", protocol),
        options=RuntimeOptions(workspace=str(tmp_path), model=model, protocol=protocol),
        ephemeral=True,
        env={"CIRCLE_CATALOG_REFRESH": "0"},
    )
    return Container(config=config)


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        ("anthropic", AnthropicWebSearch),
        ("openai-responses", OpenAIResponsesWebSearch),
        ("openai-chat", type(None)),
    ],
)
async def test_the_container_gives_the_protocols_own_search_over_the_sessions_model(
    protocol: Protocol, expected: type, tmp_path: Path
) -> None:
    container = container_for(protocol, tmp_path)
    runtime = build_runtime(container)
    native = runtime.ports.native_search
    assert type(native) is expected
    if isinstance(native, AnthropicWebSearch | OpenAIResponsesWebSearch):
        assert native._client is runtime.ports.model
        assert native.model == "m"
    await runtime.aclose()


async def test_a_model_swapped_for_a_fake_has_no_native_search(tmp_path: Path) -> None:
    container = container_for("anthropic", tmp_path)
    container.model.override(ScriptedModel([]))
    runtime = build_runtime(container)
    assert runtime.ports.native_search is None
    await runtime.aclose()
