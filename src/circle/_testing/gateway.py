"""ScriptedGateway: a loopback HTTP server that answers like an OpenAI-compatible endpoint.

Contract tests, end-to-end tests and benchmarks point a real model adapter (and its SDK, over
a real socket) at it. Each POST takes the next queued :class:`GatewayResponse`; every request is
recorded. ``GET /v1/models`` answers a small list and takes nothing from the queue.

From another process (benchmarks)::

    python -m circle._testing.gateway --rounds 3 --tool-args '{"path": "README.md"}'

prints the base URL on its first line, then answers each conversation with ``--rounds`` tool
calls followed by a final text answer, over and over.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

_DROPPED_HEADERS = frozenset({"content-length", "transfer-encoding", "content-encoding", "connection"})
_SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
_JSON_HEADERS = {"content-type": "application/json"}
_MODEL = {"id": "scripted", "object": "model", "created": 0, "owned_by": "circle"}


@dataclass(frozen=True, slots=True)
class GatewayResponse:
    """One scripted HTTP answer.

    Attributes:
        status: the HTTP status.
        headers: response headers; framing headers are added by the gateway.
        body: the whole body, sent with a Content-Length (ignored when ``chunks`` is given).
        chunks: pieces written one by one with chunked framing and a flush between them.
        delay_s: seconds to wait before answering.
        truncate: after the chunks, close the connection without ending the body.
        stall_after: with ``chunks``, how many of them go out before a pause of ``stall_s``.
        stall_s: seconds of silence after ``stall_after`` chunks (a stalled stream).
        drop_after_bytes: with ``chunks``, close the connection abruptly once this many bytes of
            the body went out, cutting a chunk if need be (a connection dropped mid-answer).
        interval_s: with ``chunks``, seconds between one chunk and the next (a paced stream).
    """

    status: int
    headers: dict[str, str]
    body: bytes = b""
    chunks: list[bytes] | None = None
    delay_s: float = 0
    truncate: bool = False
    stall_after: int | None = None
    stall_s: float = 0
    drop_after_bytes: int | None = None
    interval_s: float = 0


_MODELS = GatewayResponse(200, _JSON_HEADERS, json.dumps({"object": "list", "data": [_MODEL]}).encode())


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A request the gateway received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


Responder = Callable[[RecordedRequest], GatewayResponse]


class ScriptedGateway:
    """A threaded loopback HTTP server answering from a queue of scripted responses.

    Args:
        fallback: answers a POST when the queue is empty; without one the gateway answers 500
            "gateway script exhausted".
        record: keep every request in :attr:`requests` (turn off for long benchmark runs).
    """

    def __init__(self, *, fallback: Responder | None = None, record: bool = True) -> None:
        self._fallback = fallback
        self._record = record
        self._lock = threading.Lock()
        self._queue: collections.deque[GatewayResponse | Responder] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The base URL, like ``http://127.0.0.1:PORT/v1``; the gateway must be started."""
        if self._server is None:
            raise RuntimeError("the gateway is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def start(self) -> str:
        """Start serving on 127.0.0.1 and an unused port; returns the base URL."""
        if self._server is None:
            self._server = _Server(("127.0.0.1", 0), _Handler, gateway=self)
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving and drop open connections."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.drop_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedGateway:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def enqueue(self, *responses: GatewayResponse | Responder) -> None:
        """Queue responses; each POST takes the oldest (a function is called with the request,
        outside the gateway's lock, so it may wait for what the client is to do first)."""
        with self._lock:
            self._queue.extend(responses)

    def reset(self) -> None:
        """Forget queued responses and recorded requests."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    def _answer(self, request: RecordedRequest) -> GatewayResponse:
        with self._lock:
            if self._record:
                self._requests.append(request)
            if request.method == "GET":
                found = request.path.rstrip("/").endswith("/models")
                return _MODELS if found else chat_error(404, f"no such path: {request.path}")
            queued = self._queue.popleft() if self._queue else None
        if isinstance(queued, GatewayResponse):
            return queued
        if queued is not None:
            return queued(request)
        if self._fallback is not None:
            return self._fallback(request)
        return chat_error(500, "gateway script exhausted")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], handler: type[_Handler], *, gateway: ScriptedGateway
    ) -> None:
        self.gateway = gateway
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        with self.connections_lock:
            for sock in list(self.connections):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.connections_lock:
            self.server.connections.add(self.request)
        super().setup()

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.request)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self._serve()

    do_GET = do_POST

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            parts: list[bytes] = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def _serve(self) -> None:
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self._read_body(),
        )
        response = self.server.gateway._answer(request)
        if response.delay_s:
            time.sleep(response.delay_s)
        self.send_response(response.status)
        for name, value in response.headers.items():
            if name.lower() not in _DROPPED_HEADERS:
                self.send_header(name, value)
        if response.chunks is None:
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            self.wfile.write(response.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        budget = response.drop_after_bytes
        for index, chunk in enumerate(response.chunks):
            if index == response.stall_after:
                time.sleep(response.stall_s)
            elif index and response.interval_s:
                time.sleep(response.interval_s)
            if budget is not None:
                chunk, budget = chunk[:budget], budget - len(chunk[:budget])
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            if budget == 0:
                break
        if response.truncate or budget is not None:
            self.close_connection = True
            self.request.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")


def replay_fixture(json_path: Path) -> GatewayResponse:
    """The response of a recorded ``NAME.json`` fixture (see shared/fixtures/README.md).

    Framing headers are dropped; an SSE body is sent in chunks, one event per chunk.
    """
    recording = json.loads(json_path.read_text(encoding="utf-8"))["response"]
    headers = {
        name: ", ".join(value) if isinstance(value, list) else str(value)
        for name, value in recording.get("headers", {}).items()
        if name.lower() not in _DROPPED_HEADERS
    }
    if "body_file" in recording:
        body = (json_path.parent / recording["body_file"]).read_bytes()
    else:
        body = json.dumps(recording["body"]).encode()
    is_sse = "event-stream" in headers.get("content-type", "")
    return GatewayResponse(recording["status"], headers, body, _sse_events(body) if is_sse else None)


def replay_sse(sse_path: Path) -> GatewayResponse:
    """A 200 ``text/event-stream`` response whose body is the bytes of ``sse_path``."""
    body = sse_path.read_bytes()
    return GatewayResponse(200, dict(_SSE_HEADERS), body, _sse_events(body))


def _sse_events(body: bytes) -> list[bytes]:
    return [piece for piece in re.split(rb"(?<=\n\n)", body) if piece]


_ids = itertools.count(1)


def _chunk(model: str, delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> bytes:
    choices = (
        [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    )
    data = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": model}
    data.update(choices=choices, usage=usage)
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def _pieces(text: str, count: int = 3) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _stream(
    model: str,
    text: str,
    calls: list[tuple[str, str, dict[str, Any]]],
    usage: tuple[int, int],
    pieces: int = 3,
) -> GatewayResponse:
    chunks = [_chunk(model, {"role": "assistant", "content": "" if text or not calls else None})]
    chunks += [_chunk(model, {"content": piece}) for piece in _pieces(text, pieces)]
    for index, (call_id, name, args) in enumerate(calls):
        function = {"name": name, "arguments": ""}
        start = {"index": index, "id": call_id, "type": "function", "function": function}
        chunks.append(_chunk(model, {"tool_calls": [start]}))
        for piece in _pieces(json.dumps(args)):
            chunks.append(_chunk(model, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    chunks.append(_chunk(model, {}, "tool_calls" if calls else "stop"))
    tokens = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    chunks.append(_chunk(model, None, None, {**tokens, "prompt_tokens_details": {"cached_tokens": 0}}))
    chunks.append(b"data: [DONE]\n\n")
    return GatewayResponse(200, dict(_SSE_HEADERS), b"", chunks)


def chat_text(
    text: str, *, usage: tuple[int, int] = (10, 5), model: str = "scripted", pieces: int = 3
) -> GatewayResponse:
    """A streamed Chat Completions answer of plain text in ``pieces`` deltas, with a final usage chunk."""
    return _stream(model, text, [], usage, pieces)


def chat_tool_calls(
    calls: list[tuple[str, str, dict[str, Any]]],
    *,
    text: str = "",
    usage: tuple[int, int] = (10, 5),
    model: str = "scripted",
) -> GatewayResponse:
    """A streamed Chat Completions answer with tool calls ``(id, name, arguments)`` after optional text."""
    return _stream(model, text, calls, usage)


def chat_error(status: int, message: str, *, headers: dict[str, str] | None = None) -> GatewayResponse:
    """An OpenAI-style JSON error answer."""
    kind, code = {
        401: ("invalid_request_error", "invalid_api_key"),
        404: ("invalid_request_error", "model_not_found"),
        429: ("requests", "rate_limit_exceeded"),
    }.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return GatewayResponse(status, {**_JSON_HEADERS, **(headers or {})}, json.dumps(body).encode())


_TOOL_ROLE = re.compile(rb'"role"\s*:\s*"tool"')


@dataclass
class _RoundsScript:
    """``rounds`` tool calls, then a text answer; a request without tool results starts over."""

    rounds: int
    tool_name: str
    tool_args: dict[str, Any]
    done: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> GatewayResponse:
        with self.lock:
            if not _TOOL_ROLE.search(request.body):
                self.done = 0
            if self.done >= self.rounds:
                self.done = 0
                return chat_text("Done: read the file.")
            self.done += 1
        return chat_tool_calls([(f"call_{next(_ids)}", self.tool_name, self.tool_args)])


def main(argv: list[str] | None = None) -> None:
    """Serve a rounds script until interrupted; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog="python -m circle._testing.gateway", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="tool calls before each final answer")
    parser.add_argument("--tool-name", default="read_file")
    parser.add_argument("--tool-args", default='{"path": "README.md"}', help="the tool call's JSON arguments")
    args = parser.parse_args(argv)
    script = _RoundsScript(args.rounds, args.tool_name, json.loads(args.tool_args))
    gateway = ScriptedGateway(fallback=script, record=False)
    print(gateway.start(), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        gateway.stop()


__all__ = [
    "GatewayResponse",
    "RecordedRequest",
    "Responder",
    "ScriptedGateway",
    "chat_error",
    "chat_text",
    "chat_tool_calls",
    "replay_fixture",
    "replay_sse",
]


if __name__ == "__main__":
    main(sys.argv[1:])
