"""A network backend on asyncio's own transports, for the OpenAI protocols' client.

httpx2 reaches its sockets through anyio: each read and write opens a cancel scope and asks
sniffio which loop runs, a fifth of a streamed request's CPU against the loopback gateway. Here a
read waits on a future (with an ``asyncio.timeout`` only when it has to wait) and a write hands its
bytes to the transport. httpcore2 writes a request's head and its body apart; a stream keeps what
it is given until the answer is read (or :data:`HELD_BYTES` wait), so a request goes out in one
piece, one system call and one wake-up of the other end instead of two.

:mod:`._http11` makes its direct connections with it (proxied ones, which httpx2 makes from the
environment, keep anyio).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
"""A ``setsockopt`` argument list, as httpcore2 takes them."""
HELD_BYTES = 64 * 1024
"""Written bytes kept back at most before they are sent without waiting for the answer."""
READ_AHEAD = 256 * 1024
"""Received bytes held at most before the socket is no longer read until some are taken."""
HAPPY_EYEBALLS_S = 0.25
"""How long an address is tried before the next one is tried beside it (as anyio does)."""


class _Connection(asyncio.Protocol):
    """What a transport delivers: the bytes not yet read, the end, and whoever waits for them."""

    def __init__(self) -> None:
        self.received = bytearray()
        self.ended = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.writable: asyncio.Future[None] | None = None
        self.paused = False
        self.held_back = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.received += data
        if len(self.received) > READ_AHEAD and self.transport is not None and not self.held_back:
            self.held_back = True
            self.transport.pause_reading()
        _wake(self.waiter)

    def eof_received(self) -> bool:
        self.ended = True
        _wake(self.waiter)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended, self.error = True, exc
        _wake(self.waiter)
        _wake(self.writable)

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        _wake(self.writable)


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


async def _until(waiter: asyncio.Future[None], seconds: float | None) -> None:
    if seconds is None:
        await waiter
    else:
        async with asyncio.timeout(seconds):
            await waiter


class AsyncioStream(httpcore2.AsyncNetworkStream):
    """One connection, plain or TLS, as httpcore2 reads and writes it."""

    def __init__(self, transport: asyncio.Transport, connection: _Connection) -> None:
        self._transport = transport
        self._connection = connection
        self._held: list[bytes] = []
        self._held_size = 0

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        self._send_held()
        connection = self._connection
        if not connection.received and not connection.ended:
            connection.waiter = asyncio.get_running_loop().create_future()
            try:
                await _until(connection.waiter, timeout)
            except TimeoutError:
                raise httpcore2.ReadTimeout("no data in time") from None
            finally:
                connection.waiter = None
        if not connection.received:
            if connection.error is not None:
                raise httpcore2.ReadError(str(connection.error) or type(connection.error).__name__)
            return b""
        data = bytes(connection.received[:max_bytes])
        del connection.received[:max_bytes]
        if connection.held_back and len(connection.received) <= READ_AHEAD:
            connection.held_back = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore2.WriteError("the connection is closed")
        self._held.append(buffer)
        self._held_size += len(buffer)
        if self._held_size < HELD_BYTES:
            return
        self._send_held()
        if self._connection.paused:
            self._connection.writable = asyncio.get_running_loop().create_future()
            try:
                await _until(self._connection.writable, timeout)
            except TimeoutError:
                raise httpcore2.WriteTimeout("the connection took no data in time") from None
            finally:
                self._connection.writable = None

    def _send_held(self) -> None:
        if self._held:
            held, self._held, self._held_size = self._held, [], 0
            self._transport.write(held[0] if len(held) == 1 else b"".join(held))

    async def aclose(self) -> None:
        self._held, self._held_size = [], 0
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore2's interface)
    ) -> httpcore2.AsyncNetworkStream:
        self._send_held()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                tls = await loop.start_tls(
                    self._transport, self._connection, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.close()
            raise httpcore2.ConnectTimeout("the TLS handshake took too long") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore2.ConnectError(str(exc)) from exc
        assert isinstance(tls, asyncio.Transport)
        self._connection.transport = tls
        return AsyncioStream(tls, self._connection)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # a kept connection the server closed, or one it sent data on
            return self._connection.ended or bool(self._connection.received)
        names = {"ssl_object": "ssl_object", "client_addr": "sockname", "server_addr": "peername"}
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return self._transport.get_extra_info(names[info]) if info in names else None


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    """Connections on the running asyncio loop (TCP_NODELAY set, as asyncio sets it)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore2's interface)
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_connection(
                    _Connection, host, port, local_addr=local, happy_eyeballs_delay=HAPPY_EYEBALLS_S
                )
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"no connection to {host}:{port} in time") from None
        except OSError as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        return _with_options(transport, connection, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore2's interface)
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_unix_connection(_Connection, path)
        except TimeoutError:
            raise httpcore2.ConnectTimeout(f"no connection to {path} in time") from None
        except OSError as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        return _with_options(transport, connection, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _with_options(
    transport: asyncio.BaseTransport,
    connection: _Connection,
    options: Iterable[SocketOption] | None,
) -> AsyncioStream:
    assert isinstance(transport, asyncio.Transport)
    sock: socket.socket | None = transport.get_extra_info("socket")
    for option in options or ():
        if sock is not None:
            sock.setsockopt(*option)
    return AsyncioStream(transport, connection)


__all__ = ["HELD_BYTES", "AsyncioBackend", "AsyncioStream"]
