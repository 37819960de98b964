"""OpenAIResponsesModel against recorded Responses API streams, replayed over a loopback socket.

Every recording in ``../shared/fixtures/providers/openai-responses`` is replayed through a
:class:`ScriptedGateway` (new files are picked up by glob) and compared with its golden event
sequence; specific recordings are checked for what they show. Request bodies are checked on the
wire, including a round trip of a real answer's reasoning item into the next request.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from circle._testing.gateway import GatewayResponse, ScriptedGateway, replay_fixture, replay_sse
from circle.adapters.models.openai_responses import OpenAIResponsesModel
from circle.domain.errors import (
    CircleError,
    ConfigError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ProviderProtocolError,
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
from circle.domain.model import AnswerAssembler, Finished, ModelEvent, ModelRequest, ToolSpec
from circle.domain.settings import Endpoint
from circle.domain.thinking import ThinkingLevel

from ._golden import check_golden

FIXTURES = Path(__file__).parents[2].parent / "shared" / "fixtures"
RESPONSES = FIXTURES / "providers" / "openai-responses"
needs_fixtures = pytest.mark.skipif(not RESPONSES.is_dir(), reason=f"no recorded fixtures at {FIXTURES}")


def recordings() -> list[Path]:
    """Every replayable recording: NAME.json with a response, and bare .sse bodies."""
    if not RESPONSES.is_dir():
        return []
    paths = [p for p in sorted(RESPONSES.rglob("*.json")) if "response" in json.loads(p.read_text())]
    return paths + [p for p in sorted(RESPONSES.rglob("*.sse")) if not p.with_suffix(".json").exists()]


def replay(path: Path) -> GatewayResponse:
    return replay_fixture(path) if path.suffix == ".json" else replay_sse(path)


def recording(name: str) -> Path:
    return RESPONSES / name


def recorded_request(name: str) -> dict[str, Any]:
    return dict(json.loads(recording(name).read_text())["request"]["body"])


def recorded_events(name: str) -> list[dict[str, Any]]:
    """The parsed events of a recording's SSE body."""
    body = replay(recording(name)).body.decode()
    data = [line[len("data: ") :] for line in body.splitlines() if line.startswith("data: ")]
    return [json.loads(d) for d in data]


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


def endpoint(base_url: str, *, api_key: str | None = None) -> Endpoint:
    return Endpoint(base_url=base_url, protocol="openai-responses", api_key=api_key, model=None, timeout_s=10)


@pytest.fixture
async def model(gateway: ScriptedGateway) -> AsyncIterator[OpenAIResponsesModel]:
    gateway.reset()
    client = OpenAIResponsesModel(endpoint(gateway.base_url))
    yield client
    await client.aclose()


async def collect_into(seen: list[ModelEvent], client: OpenAIResponsesModel, request: ModelRequest) -> None:
    async with asyncio.timeout(10):
        async for event in client.stream(request):
            seen.append(event)


async def events_of(client: OpenAIResponsesModel, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    seen: list[ModelEvent] = []
    await collect_into(seen, client, request)
    return seen


def assemble(events: list[ModelEvent]) -> Message:
    assembler = AnswerAssembler()
    for event in events:
        assembler.add(event)
    return assembler.message()


async def answer_of(client: OpenAIResponsesModel, request: ModelRequest = REQUEST) -> Message:
    return assemble(await events_of(client, request))


# --- scripted Responses streams ------------------------------------------------------------------


def sse(*events: dict[str, Any], truncate: bool = False) -> GatewayResponse:
    """A 200 event stream of ``events``, one chunk each (``type`` doubles as the SSE event name)."""
    chunks = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    headers = {"content-type": "text/event-stream; charset=utf-8"}
    return GatewayResponse(200, headers, chunks=chunks, truncate=truncate)


def terminal(kind: str = "completed", *, reason: str | None = None, **fields: Any) -> dict[str, Any]:
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5}
    response = {"model": "gpt-scripted", "status": kind, "usage": usage, "output": [], **fields}
    if reason is not None:
        response["incomplete_details"] = {"reason": reason}
    return {"type": f"response.{kind}", "response": response}


def text_events(text: str) -> list[dict[str, Any]]:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    done = {**item, "content": [{"type": "output_text", "text": text}]}
    return [
        {"type": "response.created", "response": {"model": "gpt-scripted", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        *(
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "delta": piece}
            for piece in (text[:3], text[3:])
        ),
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    ]


def call_item(arguments: str = "") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "read_file",
        "arguments": arguments,
    }


# --- every recording, replayed ---------------------------------------------------------------------


@needs_fixtures
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
async def test_every_recording_matches_its_golden_event_sequence(
    gateway: ScriptedGateway, model: OpenAIResponsesModel, path: Path
) -> None:
    gateway.enqueue(replay(path))
    seen: list[ModelEvent] = []
    error: CircleError | None = None
    try:
        await collect_into(seen, model, REQUEST)
    except CircleError as exc:
        error = exc
    name = str(path.relative_to(RESPONSES).with_suffix("")).replace("/", "__")
    check_golden("openai-responses", name, seen, error)


@needs_fixtures
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
async def test_every_recording_gives_an_answer_or_an_http_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel, path: Path
) -> None:
    gateway.enqueue(replay(path))
    status = int(json.loads(path.read_text())["response"]["status"]) if path.suffix == ".json" else 200

    if status >= 400:
        with pytest.raises(ModelHTTPError) as caught:
            await events_of(model)
        assert caught.value.status == status
        assert "\n" not in caught.value.message
    else:
        events = await events_of(model)
        message = assemble(events)
        assert message.stop_reason in (StopReason.END, StopReason.TOOL_USE)
        assert message.parts
        assert message.model
        assert message.usage is not None and message.usage.output > 0
        assert [e for e in events if isinstance(e, Finished)] == [events[-1]]


@needs_fixtures
@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("nr_error_400_model_not_found.json", "'does-not-exist-nr-test' does not exist"),
        ("pa_error_400_invalid_temperature.json", "Invalid 'temperature'"),
        ("pa_error_400_reasoning_item_without_following_item.json", "without its required following item"),
    ],
)
async def test_recorded_400s_are_http_errors_with_the_message(
    gateway: ScriptedGateway, model: OpenAIResponsesModel, name: str, words: str
) -> None:
    gateway.enqueue(replay(recording(name)))

    with pytest.raises(ModelHTTPError) as caught:
        await events_of(model)

    assert (type(caught.value), caught.value.status) == (ModelHTTPError, 400)
    assert caught.value.message.startswith("the endpoint answered 400: ")
    assert words in caught.value.message


@needs_fixtures
async def test_a_function_call_keeps_its_call_id_and_item_id(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_gpt4o_function_call_stream.json")))

    message = await answer_of(model)

    assert message.tool_calls == (
        ToolCallPart(
            id="call_kL0PCQV7M2WMoVX8V8OtYSAL",
            name="get_capital",
            arguments='{"country":"France"}',
            provider_id="fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2",
        ),
    )
    assert (message.stop_reason, message.model) == (StopReason.TOOL_USE, "gpt-4o-2024-08-06")


@needs_fixtures
async def test_encrypted_reasoning_is_kept_as_the_signature_of_an_empty_thinking_part(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    name = "pa_gpt5_reasoning_encrypted_then_function_call.json"
    [done] = [
        e["item"]
        for e in recorded_events(name)
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning"
    ]
    gateway.enqueue(replay(recording(name)))

    message = await answer_of(model)

    assert message.parts[0] == ThinkingPart(
        text="", signature=done["encrypted_content"], provider_id=done["id"]
    )
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("final_result", '{"result":6666}')]


@needs_fixtures
async def test_deepseek_raw_reasoning_text_becomes_thinking(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_deepseek_responses_reasoning_text_then_text.json")))

    message = await answer_of(model)

    assert message.parts == (
        ThinkingPart(
            text="We need answer capital of France.", provider_id="b594b7e1-3dbb-4b65-b8c2-f4f5aae4ee80"
        ),
        TextPart(text="The capital of France is Paris."),
    )


@needs_fixtures
async def test_o3_mini_summary_deltas_assemble_into_the_done_items_summary(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    name = "pa_o3mini_reasoning_summary_stream.json"
    [done] = [
        e["item"]
        for e in recorded_events(name)
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "reasoning"
    ]
    gateway.enqueue(replay(recording(name)))

    message = await answer_of(model)

    thinking, text = message.parts
    assert isinstance(thinking, ThinkingPart)
    assert thinking.text == "\n\n".join(s["text"] for s in done["summary"])
    assert (thinking.signature, thinking.provider_id) == (done["encrypted_content"], done["id"])
    assert text.type == "text"
    assert message.text.startswith("I'm not a road safety professional")


@needs_fixtures
async def test_gpt55_reasoning_text_and_call_keep_their_order(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_gpt55_text_and_function_call_phase.json")))

    message = await answer_of(model)

    assert [p.type for p in message.parts] == ["thinking", "text", "tool_call"]
    assert message.text == "I’ll check the capital lookup tool for “PotatoLand.”"
    assert message.tool_calls[0].id == "call_LabG58Uhrq9kZvR52BYKjToD"
    assert message.usage == Usage(input=63, output=69)


@needs_fixtures
async def test_cached_input_tokens_are_reported_apart(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_gpt5_web_search_call_stream.json")))

    message = await answer_of(model)

    assert message.usage == Usage(input=9463 - 8320, output=582, cache_read=8320)
    assert message.stop_reason is StopReason.END
    assert message.text.startswith("San Francisco weather today")


@needs_fixtures
async def test_a_background_stream_with_a_queued_event_gives_its_answer(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_background_mode_stream_queued.json")))

    message = await answer_of(model)

    assert (message.text, message.stop_reason) == ("2 + 2 equals 4.", StopReason.END)


@needs_fixtures
async def test_a_non_streamed_answer_is_the_collected_stream(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_nonstream_function_call.json")))

    message = await answer_of(model)

    [call] = message.tool_calls
    assert (call.id, call.arguments) == ("call_YfwRsW8sUxDKipwyhWTzOXCA", '{"country":"PotatoLand"}')
    assert call.provider_id == "fc_04907f5d3de791830068fbaa1b310c81958dc9c508e878c632"
    assert (message.stop_reason, message.usage) == (StopReason.TOOL_USE, Usage(input=40, output=18))


# --- the request on the wire ---------------------------------------------------------------------


async def test_the_request_is_stateless_with_instructions_tools_limits_and_reasoning(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(sse(*text_events("ok"), terminal()))
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
    assert recorded.path == "/v1/responses"
    assert recorded.json() == {
        "model": "gpt-test",
        "stream": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "high", "summary": "auto"},
        "max_output_tokens": 256,
        "instructions": "Be brief.",
        "tools": [
            {
                "type": "function",
                "name": "read_file",
                "description": "Read a file.",
                "parameters": TOOL.parameters,
                "strict": False,
            }
        ],
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
    }


async def test_unset_options_are_not_sent(gateway: ScriptedGateway, model: OpenAIResponsesModel) -> None:
    gateway.enqueue(sse(*text_events("ok"), terminal()))

    await events_of(model, ModelRequest(model="m", system="", messages=(Message.user("hi"),)))

    body = gateway.requests[0].json()
    assert not {"include", "reasoning", "max_output_tokens", "instructions", "tools"} & body.keys()


@pytest.mark.parametrize(
    ("level", "effort"), [("minimal", "minimal"), ("low", "low"), ("medium", "medium"), ("max", "high")]
)
async def test_the_thinking_level_is_the_reasoning_effort(
    gateway: ScriptedGateway, model: OpenAIResponsesModel, level: ThinkingLevel, effort: str
) -> None:
    gateway.enqueue(sse(*text_events("ok"), terminal()))

    await events_of(model, ModelRequest(model="m", system="", messages=REQUEST.messages, thinking=level))

    assert gateway.requests[0].json()["reasoning"] == {"effort": effort, "summary": "auto"}


async def test_reasoning_a_call_and_its_result_encode_in_order_with_the_encrypted_content(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    answer = Message(
        role="assistant",
        parts=(
            ThinkingPart(text="Use the tool.", signature="gAAAA-secret", provider_id="rs_1"),
            ToolCallPart(id="call_1", name="read_file", arguments='{"path":"a"}', provider_id="fc_1"),
        ),
    )
    history = (
        Message.user("read a"),
        answer,
        Message.tool_result(call_id="call_1", name="read_file", text="A"),
    )
    gateway.enqueue(sse(*text_events("done"), terminal()))

    await events_of(model, ModelRequest(model="gpt-5", system="", messages=history))

    body = gateway.requests[0].json()
    assert body["include"] == ["reasoning.encrypted_content"]  # history has reasoning, no thinking asked
    assert "reasoning" not in body
    assert body["input"][1:] == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Use the tool."}],
            "encrypted_content": "gAAAA-secret",
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read_file",
            "arguments": '{"path":"a"}',
            "id": "fc_1",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "A"},
    ]


@needs_fixtures
async def test_a_recorded_answer_goes_back_as_the_items_that_openai_accepted(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(replay(recording("pa_gpt55_text_and_function_call_phase.json")))
    answer = await answer_of(model)
    [call] = answer.tool_calls
    history = (
        Message.user("What is the capital of PotatoLand?"),
        answer,
        Message.tool_result(call_id=call.id, name=call.name, text="Potato City"),
    )
    gateway.enqueue(replay(recording("pa_gpt55_text_final_turn.json")))

    await events_of(model, ModelRequest(model="gpt-5.5", system="", messages=history))

    # the next request pydantic-ai sent, which OpenAI answered (message ids and phase are not kept)
    accepted = recorded_request("pa_gpt55_text_final_turn.json")["input"]
    sent = gateway.requests[1].json()["input"]
    keys = ("type", "id", "encrypted_content", "summary", "call_id", "name", "arguments", "output")
    assert [{k: i[k] for k in keys if k in i} for i in sent[1:]] == [
        {k: i[k] for k in keys if k in i and not (i["type"] == "message" and k == "id")} for i in accepted[1:]
    ]
    assert sent[2]["content"] == [{"type": "output_text", "text": answer.text}]


async def test_a_reasoning_item_without_its_following_item_is_left_out(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    def thinking(pid: str | None) -> ThinkingPart:
        return ThinkingPart(text="hmm", signature=f"sig-{pid}", provider_id=pid)

    cut = Message(
        role="assistant", parts=(TextPart(text="a"), thinking("rs_end")), stop_reason=StopReason.INCOMPLETE
    )
    searched = Message(role="assistant", parts=(thinking("rs_search"), thinking("rs_2"), TextPart(text="b")))
    other = Message(role="assistant", parts=(thinking(None), TextPart(text="c")))
    gateway.enqueue(sse(*text_events("ok"), terminal()))

    await events_of(model, ModelRequest(model="m", system="", messages=(cut, searched, other)))

    items = gateway.requests[0].json()["input"]
    assert [(i["type"], i.get("id")) for i in items] == [
        ("message", None),
        ("reasoning", "rs_2"),
        ("message", None),
        ("message", None),
    ]


async def test_images_documents_and_tool_attachments_are_input_content(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    picture = ImagePart(media_type="image/png", data="iVBO")
    user = Message(
        role="user",
        parts=(
            TextPart(text="look"),
            picture,
            DocumentPart(media_type="application/pdf", data="JVBE", name="a.pdf"),
        ),
    )
    result = ToolResultPart(tool_call_id="c", tool_name="shot", content=(TextPart(text="taken"), picture))
    gateway.enqueue(sse(*text_events("ok"), terminal()))

    await events_of(
        model, ModelRequest(model="m", system="", messages=(user, Message(role="tool", parts=(result,))))
    )

    items = gateway.requests[0].json()["input"]
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBO"}
    assert items[0]["content"] == [
        {"type": "input_text", "text": "look"},
        image,
        {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBE"},
    ]
    assert items[1] == {"type": "function_call_output", "call_id": "c", "output": "taken"}
    assert items[2]["role"] == "user"
    assert items[2]["content"][1] == image


async def test_the_same_history_gives_the_same_body(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    request = ModelRequest(
        model="m", system="s", messages=(Message.user("a"), Message.user("b")), tools=(TOOL,)
    )
    gateway.enqueue(sse(*text_events("1"), terminal()), sse(*text_events("2"), terminal()))

    await events_of(model, request)
    await events_of(model, request)

    first, second = gateway.requests
    assert first.body == second.body


async def test_api_openai_com_without_a_key_is_a_config_error() -> None:
    client = OpenAIResponsesModel(endpoint("https://api.openai.com/v1"))

    with pytest.raises(ConfigError, match="CIRCLE_API_KEY"):
        await events_of(client)
    await client.aclose()


# --- how answers end -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("max_output_tokens", StopReason.MAX_TOKENS),
        ("content_filter", StopReason.FILTERED),
        ("something_new", StopReason.INCOMPLETE),
    ],
)
async def test_an_incomplete_response_says_why(
    gateway: ScriptedGateway, model: OpenAIResponsesModel, reason: str, stop: StopReason
) -> None:
    gateway.enqueue(sse(*text_events("partial"), terminal("incomplete", reason=reason)))

    message = await answer_of(model)

    assert (message.text, message.stop_reason) == ("partial", stop)


async def test_a_failed_response_raises_its_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    error = {"code": "server_error", "message": "The model had a problem."}
    gateway.enqueue(sse(*text_events("par"), terminal("failed", error=error)))
    seen: list[ModelEvent] = []

    with pytest.raises(ModelError) as caught:
        await collect_into(seen, model, REQUEST)

    assert type(caught.value) is ModelStreamError
    assert caught.value.status == 500  # server_error
    assert caught.value.message == "the endpoint failed mid-answer: The model had a problem."
    assert seen
    assert not any(isinstance(e, Finished) for e in seen)


async def test_an_error_event_raises_model_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(sse({"type": "error", "code": "ERR", "message": "Something went wrong.", "param": None}))

    with pytest.raises(ModelError, match="Something went wrong") as caught:
        await events_of(model)

    assert type(caught.value) is ModelStreamError
    assert caught.value.status is None  # an unknown code: an error in the stream, retried as such


async def test_a_call_without_argument_deltas_takes_them_from_the_done_item(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(
        sse(
            {"type": "response.output_item.added", "output_index": 0, "item": call_item()},
            {"type": "response.output_item.done", "output_index": 0, "item": call_item('{"path":"a"}')},
            terminal(),
        )
    )

    message = await answer_of(model)

    assert [(c.id, c.arguments, c.provider_id) for c in message.tool_calls] == [
        ("call_1", '{"path":"a"}', "fc_1")
    ]
    assert message.stop_reason is StopReason.TOOL_USE


async def test_unknown_events_are_ignored(gateway: ScriptedGateway, model: OpenAIResponsesModel) -> None:
    future = {"type": "response.something_new.delta", "output_index": 0, "delta": "?"}
    gateway.enqueue(sse(future, *text_events("fine"), future, terminal()))

    assert (await answer_of(model)).text == "fine"


async def test_a_stream_without_its_terminal_event_has_no_finish(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(sse(*text_events("half an answer")))

    events = await events_of(model)

    assert not any(isinstance(e, Finished) for e in events)
    assert assemble(events).stop_reason is StopReason.INCOMPLETE


async def test_a_stream_cut_mid_call_is_a_connection_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    added = {"type": "response.output_item.added", "output_index": 0, "item": call_item()}
    delta = {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"pa'}
    gateway.enqueue(sse(added, delta, truncate=True))

    with pytest.raises(ModelConnectionError, match="broke mid-answer"):
        await events_of(model)


async def test_data_that_is_not_json_is_a_protocol_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    gateway.enqueue(GatewayResponse(200, {"content-type": "text/event-stream"}, chunks=[b"data: {oops\n\n"]))

    with pytest.raises(ProviderProtocolError, match="not JSON"):
        await events_of(model)


# --- errors --------------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_an_unreachable_endpoint_is_a_connection_error() -> None:
    client = OpenAIResponsesModel(endpoint(f"http://127.0.0.1:{closed_port()}/v1"))

    with pytest.raises(ModelConnectionError, match=r"cannot reach http://127\.0\.0\.1:"):
        await events_of(client)
    await client.aclose()


async def test_an_html_502_page_is_a_readable_http_error(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    page = (
        b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
        b"</center><hr><center>nginx/1.25.3</center></body></html>"
    )
    gateway.enqueue(GatewayResponse(502, {"content-type": "text/html"}, page))

    with pytest.raises(ModelHTTPError) as caught:
        await events_of(model)

    assert (caught.value.status, caught.value.message) == (
        502,
        "the endpoint answered 502: 502 Bad Gateway nginx/1.25.3",
    )


async def test_a_429_is_rate_limited_with_its_retry_after(
    gateway: ScriptedGateway, model: OpenAIResponsesModel
) -> None:
    body = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    headers = {"content-type": "application/json", "retry-after": "7"}
    gateway.enqueue(GatewayResponse(429, headers, json.dumps(body).encode()))

    with pytest.raises(RateLimitedError) as caught:
        await events_of(model)

    assert (caught.value.status, caught.value.retry_after) == (429, 7.0)
    assert caught.value.message == "rate limited (429) (retry after 7 s): Rate limit reached"
