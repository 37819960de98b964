"""The LSP client's framing and dispatch over an in-memory stream pair (no server process)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from circle.adapters.lsp._format import Formatter, hover_text
from circle.adapters.lsp.client import LspClient, LspError, encode_message, read_message


class Pipe:
    """A writer whose bytes another side reads from ``reader``."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()

    def write(self, data: bytes) -> None:
        self.reader.feed_data(data)

    async def drain(self) -> None:
        return None


def stream(*chunks: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    if eof:
        reader.feed_eof()
    return reader


async def test_a_message_is_framed_with_its_byte_length() -> None:
    data = encode_message({"jsonrpc": "2.0", "method": "x", "params": {"t": "é"}})
    header, _, body = data.partition(b"\r\n\r\n")
    assert header == f"Content-Length: {len(body)}".encode()
    assert await read_message(stream(data)) == json.loads(body)


async def test_messages_split_across_chunks_are_read_whole() -> None:
    data = encode_message({"id": 1, "result": None}) + encode_message({"id": 2, "result": [1]})
    reader = stream(*(data[i : i + 7] for i in range(0, len(data), 7)))
    assert await read_message(reader) == {"id": 1, "result": None}
    assert await read_message(reader) == {"id": 2, "result": [1]}
    assert await read_message(reader) is None


async def test_a_truncated_body_is_a_protocol_error() -> None:
    with pytest.raises(LspError, match="ended inside a message"):
        await read_message(stream(b"Content-Length: 50\r\n\r\n{}"))


async def test_a_body_that_is_not_json_is_a_protocol_error() -> None:
    with pytest.raises(LspError, match="not JSON"):
        await read_message(stream(b"Content-Length: 3\r\n\r\nnot"))


class FakeServer:
    """The server side: reads what the client wrote, writes framed answers back."""

    def __init__(self) -> None:
        self.to_client = asyncio.StreamReader()
        self.from_client = Pipe()
        self.client = LspClient(self.to_client, self.from_client, name="fake", root_uri="file:///w")
        self.client.start()

    async def receive(self) -> dict[str, Any]:
        async with asyncio.timeout(5):
            message = await read_message(self.from_client.reader)
        assert message is not None
        return message

    def send(self, message: dict[str, Any]) -> None:
        self.to_client.feed_data(encode_message(message))


async def test_a_request_gets_the_result_of_its_own_id() -> None:
    server = FakeServer()
    pending = asyncio.create_task(server.client.request("textDocument/hover", {"x": 1}))
    sent = await server.receive()
    assert sent["method"] == "textDocument/hover" and sent["params"] == {"x": 1}
    server.send({"jsonrpc": "2.0", "id": sent["id"], "result": {"contents": "doc"}})
    async with asyncio.timeout(5):
        assert await pending == {"contents": "doc"}
    await server.client.aclose()


async def test_an_error_answer_raises_with_its_message() -> None:
    server = FakeServer()
    pending = asyncio.create_task(server.client.request("initialize", {}))
    sent = await server.receive()
    server.send({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -1, "message": "boom"}})
    with pytest.raises(LspError, match="fake answered an error: boom"):
        async with asyncio.timeout(5):
            await pending
    await server.client.aclose()


async def test_server_requests_are_answered() -> None:
    server = FakeServer()
    server.send(
        {"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration", "params": {"items": [{}, {}]}}
    )
    assert await server.receive() == {"jsonrpc": "2.0", "id": 7, "result": [{}, {}]}
    server.send({"jsonrpc": "2.0", "id": 8, "method": "window/workDoneProgress/create", "params": {}})
    assert await server.receive() == {"jsonrpc": "2.0", "id": 8, "result": None}
    server.send({"jsonrpc": "2.0", "id": 9, "method": "client/registerCapability", "params": {}})
    assert await server.receive() == {"jsonrpc": "2.0", "id": 9, "result": None}
    server.send({"jsonrpc": "2.0", "id": 10, "method": "no/such", "params": {}})
    assert (await server.receive())["error"]["code"] == -32601
    await server.client.aclose()


async def test_published_diagnostics_are_kept_and_awaited() -> None:
    server = FakeServer()
    uri = "file:///w/a.py"
    waiting = asyncio.create_task(server.client.wait_for_diagnostics(uri, after=0, timeout_s=5))
    params = {"uri": uri, "diagnostics": [{"message": "bad"}]}
    server.send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})
    assert await waiting is True
    assert server.client.diagnostics[uri] == [{"message": "bad"}]
    await server.client.aclose()


async def test_pending_requests_fail_when_the_server_stops() -> None:
    server = FakeServer()
    pending = asyncio.create_task(server.client.request("textDocument/definition", {}))
    await server.receive()
    server.to_client.feed_eof()
    with pytest.raises(LspError, match="fake stopped"):
        async with asyncio.timeout(5):
            await pending


def test_flat_symbols_are_nested_by_range() -> None:
    def symbol(name: str, kind: int, start: int, end: int) -> dict[str, Any]:
        rng = {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}
        return {"name": name, "kind": kind, "location": {"uri": "file:///w/a.py", "range": rng}}

    result = [symbol("C", 5, 0, 10), symbol("m", 6, 2, 4), symbol("f", 12, 11, 12)]
    text = Formatter("/w", lambda _path, _line: "").symbols("/w/a.py", result)
    assert text.splitlines() == ["class C (line 1)", "  method m (line 3)", "function f (line 12)"]


def test_hover_markup_becomes_plain_text() -> None:
    result = {"contents": {"kind": "markdown", "value": "```python\nf(x)\n```\nDoes f."}}
    assert hover_text(result) == "f(x)\nDoes f."
