"""ScriptedGateway: a loopback server answering from a queue, called here with plain httpx."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_error,
    chat_text,
    chat_tool_calls,
    replay_fixture,
)


@pytest.fixture
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture
def http(gateway: ScriptedGateway) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway.base_url, timeout=5) as client:
        yield client


def sse_data(body: str) -> list[str]:
    return [line.removeprefix("data: ") for line in body.splitlines() if line.startswith("data: ")]


def text_of(body: str) -> str:
    chunks = [json.loads(d) for d in sse_data(body) if d != "[DONE]"]
    return "".join(ch["delta"].get("content") or "" for chunk in chunks for ch in chunk["choices"])


def tool_call_deltas(body: str) -> list[dict[str, object]]:
    chunks = [json.loads(d) for d in sse_data(body) if d != "[DONE]"]
    return [c for chunk in chunks for ch in chunk["choices"] for c in ch["delta"].get("tool_calls", [])]


def test_start_returns_a_loopback_base_url() -> None:
    with ScriptedGateway() as gw:
        assert gw.base_url.startswith("http://127.0.0.1:")
        assert gw.base_url.endswith("/v1")
        assert gw.start() == gw.base_url


def test_queued_responses_come_back_in_order(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(GatewayResponse(200, {"x-n": "1"}, b"first"), GatewayResponse(201, {}, b"second"))

    first = http.post("/chat/completions", json={})
    second = http.post("/chat/completions", json={})

    assert (first.status_code, first.text, first.headers["x-n"]) == (200, "first", "1")
    assert (second.status_code, second.text) == (201, "second")


def test_an_empty_queue_answers_500_script_exhausted(http: httpx.Client) -> None:
    response = http.post("/chat/completions", json={})

    assert response.status_code == 500
    assert response.json()["error"]["message"] == "gateway script exhausted"


def test_requests_are_recorded(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(chat_text("hi"))

    http.post("/chat/completions", json={"model": "m"}, headers={"Authorization": "Bearer k"})

    [request] = gateway.requests
    assert isinstance(request, RecordedRequest)
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer k"
    assert request.json() == {"model": "m"}


def test_chunked_request_bodies_are_read(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(chat_text("hi"))

    http.post("/chat/completions", content=iter([b'{"a":', b"1}"]))

    assert gateway.requests[0].json() == {"a": 1}


def test_models_list_does_not_take_from_the_queue(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(chat_text("kept"))

    models = http.get("/models")
    answer = http.post("/chat/completions", json={})

    assert models.json()["data"][0]["id"] == "scripted"
    assert text_of(answer.text) == "kept"


def test_chunks_are_streamed_one_by_one(gateway: ScriptedGateway, http: httpx.Client) -> None:
    chunks = [b"data: one\n\n", b"data: two\n\n", b"data: [DONE]\n\n"]
    gateway.enqueue(GatewayResponse(200, {"content-type": "text/event-stream"}, chunks=chunks))

    with http.stream("POST", "/chat/completions", json={}) as response:
        received = list(response.iter_raw())

    assert response.headers["transfer-encoding"] == "chunked"
    assert b"".join(received) == b"".join(chunks)


def test_a_truncated_stream_breaks_the_connection(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(GatewayResponse(200, {}, chunks=[b"data: partial\n\n"], truncate=True))

    with pytest.raises(httpx.RemoteProtocolError):
        http.post("/chat/completions", json={})


def test_fallback_answers_when_the_queue_is_empty() -> None:
    with ScriptedGateway(fallback=lambda request: chat_text(request.path)) as gw:
        response = httpx.post(gw.base_url + "/chat/completions", json={}, timeout=5)

    assert text_of(response.text) == "/v1/chat/completions"


def test_chat_text_streams_role_deltas_finish_usage_and_done(
    gateway: ScriptedGateway, http: httpx.Client
) -> None:
    gateway.enqueue(chat_text("Hello there, friend", usage=(12, 3)))

    data = sse_data(http.post("/chat/completions", json={}).text)

    chunks = [json.loads(d) for d in data[:-1]]
    assert data[-1] == "[DONE]"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    texts = [c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]]
    assert len([t for t in texts if t]) > 1
    assert "".join(texts) == "Hello there, friend"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["prompt_tokens"] == 12


def test_chat_tool_calls_stream_id_name_then_argument_fragments(
    gateway: ScriptedGateway, http: httpx.Client
) -> None:
    gateway.enqueue(chat_tool_calls([("c1", "read_file", {"path": "a.txt"}), ("c2", "ls", {})]))

    body = http.post("/chat/completions", json={}).text

    calls: list[dict[str, Any]] = tool_call_deltas(body)
    starts = [(c["index"], c["id"], c["function"]["name"]) for c in calls if "id" in c]
    assert starts == [(0, "c1", "read_file"), (1, "c2", "ls")]
    arguments = "".join(c["function"]["arguments"] for c in calls if c["index"] == 0)
    assert json.loads(arguments) == {"path": "a.txt"}
    assert '"finish_reason":"tool_calls"' in body


def test_chat_error_is_an_openai_style_json_error(gateway: ScriptedGateway, http: httpx.Client) -> None:
    gateway.enqueue(chat_error(429, "slow down", headers={"retry-after": "2"}))

    response = http.post("/chat/completions", json={})

    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.json()["error"] == {
        "message": "slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }


def test_replay_fixture_drops_framing_headers_and_reads_the_body_file(tmp_path: Path) -> None:
    (tmp_path / "a.sse").write_bytes(b"data: 1\n\ndata: [DONE]\n\n")
    recording = {
        "status": 200,
        "headers": {"content-type": "text/event-stream", "transfer-encoding": "chunked", "x-a": ["b", "c"]},
        "body_file": "a.sse",
    }
    (tmp_path / "a.json").write_text(json.dumps({"response": recording}))
    (tmp_path / "e.json").write_text(json.dumps({"response": {"status": 404, "body": {"error": {}}}}))

    stream = replay_fixture(tmp_path / "a.json")
    error = replay_fixture(tmp_path / "e.json")

    assert stream.headers == {"content-type": "text/event-stream", "x-a": "b, c"}
    assert stream.chunks == [b"data: 1\n\n", b"data: [DONE]\n\n"]
    assert (error.status, json.loads(error.body), error.chunks) == (404, {"error": {}}, None)


def test_cli_serves_rounds_of_tool_calls_then_a_text_answer() -> None:
    gateway = [sys.executable, "-m", "circle._testing.gateway"]
    command = [*gateway, "--rounds", "2", "--tool-args", '{"path": "x"}']
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            base_url = process.stdout.readline().strip()
            fresh = {"messages": [{"role": "user", "content": "go"}]}
            after_tool = {"messages": [*fresh["messages"], {"role": "tool", "content": "x"}]}
            bodies = [fresh, after_tool, after_tool, after_tool, fresh]
            with httpx.Client(base_url=base_url, timeout=5) as client:
                answers = [client.post("/chat/completions", json=body).text for body in bodies]
        finally:
            process.terminate()

    kinds = ["tool" if tool_call_deltas(a) else "text" for a in answers]
    assert kinds == ["tool", "tool", "text", "tool", "tool"]
    calls: list[dict[str, Any]] = tool_call_deltas(answers[0])
    assert calls[0]["function"]["name"] == "read_file"
    assert json.loads("".join(c["function"]["arguments"] for c in calls)) == {"path": "x"}
