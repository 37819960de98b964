"""A small LSP client: JSON-RPC 2.0 messages with Content-Length framing over a pair of streams.

It sends requests (numbered) and notifications, answers the server's own requests
(``workspace/configuration`` and the like) so the server does not wait on us, and keeps the latest
``textDocument/publishDiagnostics`` per document. Failures raise :class:`LspError`; the servers
module turns them into ``ToolError`` for the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any, Protocol

JSON = Any
"""A decoded JSON value (LSP results are deep unions; they are checked where they are read)."""
MAX_MESSAGE_BYTES = 64_000_000
METHOD_NOT_FOUND = -32601


class LspError(Exception):
    """A server that will not start, stopped, broke the protocol, timed out or answered an error."""


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


def encode_message(message: dict[str, JSON]) -> bytes:
    """One message, framed: ``Content-Length`` header, blank line, UTF-8 JSON body."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


async def read_message(reader: asyncio.StreamReader) -> dict[str, JSON] | None:
    """The next message from ``reader``; None at a clean end of the stream.

    Raises:
        LspError: a header or body that is not a framed JSON object.
    """
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            if length is None:
                return None
            raise LspError("the language server's output ended inside a message")
        text = line.decode("ascii", "replace").strip()
        if not text:
            if length is None:
                continue  # stray blank line between messages
            break
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise LspError(f"bad Content-Length header: {text!r}") from None
    if not 0 <= length <= MAX_MESSAGE_BYTES:
        raise LspError(f"bad Content-Length: {length}")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise LspError("the language server's output ended inside a message") from None
    try:
        message = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LspError(f"the language server sent a body that is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise LspError("the language server sent a message that is not a JSON object")
    return message


def answer_server_request(method: str, params: JSON, *, root_uri: str) -> tuple[JSON, dict[str, JSON] | None]:
    """What the client answers a server's request with: (result, error)."""
    match method:
        case "workspace/configuration":
            items = params.get("items", []) if isinstance(params, dict) else []
            return [{} for _ in items], None
        case "workspace/workspaceFolders":
            return [{"uri": root_uri, "name": root_uri.rsplit("/", 1)[-1]}], None
        case (
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "window/showDocument"
        ):
            return None, None
    return None, {"code": METHOD_NOT_FOUND, "message": f"{method} is not supported by this client"}


class LspClient:
    """Talks to one server over ``reader`` (its stdout) and ``writer`` (its stdin)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: Writer,
        *,
        name: str,
        root_uri: str,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.root_uri = root_uri
        self._reader = reader
        self._writer = writer
        self._on_close = on_close
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[JSON]] = {}
        self._closed: str | None = None
        self._write_lock = asyncio.Lock()
        self.diagnostics: dict[str, list[JSON]] = {}
        """The latest diagnostics per document URI."""
        self._published = asyncio.Condition()
        self._publications: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start reading the server's messages (in a task of the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def request(self, method: str, params: JSON, *, timeout_s: float = 30.0) -> JSON:
        """Send a request and wait for its result.

        Raises:
            LspError: the server answered an error, stopped, or did not answer within ``timeout_s``.
        """
        self._check_open()
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            async with asyncio.timeout(timeout_s):
                return await future
        except TimeoutError:
            raise LspError(f"{self.name} did not answer {method} within {timeout_s:g} s") from None
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: JSON) -> None:
        self._check_open()
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def publications(self, uri: str) -> int:
        """How many times diagnostics were published for ``uri`` (to wait for the next one)."""
        return self._publications.get(uri, 0)

    async def wait_for_diagnostics(self, uri: str, *, after: int, timeout_s: float) -> bool:
        """Wait until diagnostics for ``uri`` are published more than ``after`` times; False on timeout."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s), self._published:
                await self._published.wait_for(lambda: self.publications(uri) > after or self.closed)
        return self.publications(uri) > after

    async def aclose(self) -> None:
        """Stop reading; pending requests fail."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._close("the client was closed")

    def _check_open(self) -> None:
        if self._closed is not None:
            raise LspError(f"{self.name} stopped: {self._closed}")

    async def _send(self, message: dict[str, JSON]) -> None:
        try:
            async with self._write_lock:
                self._writer.write(encode_message(message))
                await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            self._close(f"its input is closed ({exc})")
            raise LspError(f"{self.name} stopped: its input is closed") from None

    async def _read_loop(self) -> None:
        reason = "it closed its output"
        try:
            while (message := await read_message(self._reader)) is not None:
                await self._dispatch(message)
        except LspError as exc:
            reason = str(exc)
        except (ConnectionError, OSError) as exc:
            reason = f"reading its output failed ({exc})"
        self._close(reason)

    async def _dispatch(self, message: dict[str, JSON]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                result, error = answer_server_request(method, message.get("params"), root_uri=self.root_uri)
                reply: dict[str, JSON] = {"jsonrpc": "2.0", "id": message["id"]}
                reply.update({"error": error} if error is not None else {"result": result})
                with contextlib.suppress(LspError):
                    await self._send(reply)
            elif method == "textDocument/publishDiagnostics":
                await self._record_diagnostics(message.get("params"))
            return
        future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if future is None or future.done():
            return
        if (error := message.get("error")) is not None:
            text = error.get("message", "") if isinstance(error, dict) else str(error)
            future.set_exception(LspError(f"{self.name} answered an error: {text or error}"))
        else:
            future.set_result(message.get("result"))

    async def _record_diagnostics(self, params: JSON) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("uri"), str):
            return
        uri: str = params["uri"]
        items = params.get("diagnostics")
        async with self._published:
            self.diagnostics[uri] = list(items) if isinstance(items, list) else []
            self._publications[uri] = self.publications(uri) + 1
            self._published.notify_all()

    def _close(self, reason: str) -> None:
        if self._closed is not None:
            return
        self._closed = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(LspError(f"{self.name} stopped: {reason}"))
        if self._on_close is not None:
            self._on_close()


__all__ = ["JSON", "LspClient", "LspError", "answer_server_request", "encode_message", "read_message"]
