"""The OpenAI protocols' network backend on asyncio's transports: a request written in one piece,
reads and writes as httpcore2 expects them (a timeout, the end of a connection), and the client the
adapters make using it (TLS through it: tests/contract/test_http11.py)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import httpcore2
import httpx2
import pytest

from circle.adapters.models._asyncio_net import HELD_BYTES, AsyncioBackend
from circle.adapters.models._http11 import Http11Transport
from circle.adapters.models._openai_common import new_http_client
from circle.domain.settings import Endpoint


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


async def _accepted(server: socket.socket) -> socket.socket:
    peer, _ = await asyncio.to_thread(server.accept)
    peer.setblocking(False)
    return peer


def _received(peer: socket.socket) -> bytes:
    try:
        return peer.recv(1 << 20)
    except BlockingIOError:
        return b""


async def test_a_request_goes_out_in_one_piece_when_its_answer_is_read(listener: socket.socket) -> None:
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
    peer = await _accepted(listener)
    await stream.write(b"POST / HTTP/1.1\r\n\r\n", timeout=5)  # httpcore2 writes the head, then the body
    await stream.write(b'{"body": 1}', timeout=5)
    await asyncio.sleep(0.05)
    assert _received(peer) == b""

    reading = asyncio.create_task(stream.read(100, timeout=5))
    await asyncio.sleep(0.05)
    assert _received(peer) == b'POST / HTTP/1.1\r\n\r\n{"body": 1}'  # one segment, one recv
    peer.sendall(b"HTTP/1.1 200 OK\r\n")
    assert await reading == b"HTTP/1.1 200 OK\r\n"
    await stream.aclose()
    peer.close()


async def test_a_large_body_goes_out_without_waiting_for_the_answer(listener: socket.socket) -> None:
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
    peer = await _accepted(listener)
    await stream.write(b"x" * HELD_BYTES, timeout=5)
    got = b""
    async with asyncio.timeout(5):
        while len(got) < HELD_BYTES:
            got += _received(peer)
            await asyncio.sleep(0.001)
    assert got == b"x" * HELD_BYTES
    await stream.aclose()
    peer.close()


async def test_a_read_waits_no_longer_than_its_timeout_and_the_end_reads_empty(
    listener: socket.socket,
) -> None:
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
    peer = await _accepted(listener)
    with pytest.raises(httpcore2.ReadTimeout):
        await stream.read(100, timeout=0.05)
    assert not stream.get_extra_info("is_readable")

    peer.close()
    await asyncio.sleep(0.05)
    assert stream.get_extra_info("is_readable")  # a kept connection the server closed is not reused
    assert await stream.read(100, timeout=5) == b""
    await stream.aclose()


def test_the_openai_adapters_client_frames_its_direct_requests_itself() -> None:
    """new_http_client's direct connections are :class:`Http11Transport`'s, on this backend."""
    client = new_http_client(
        Endpoint(base_url="http://127.0.0.1:1/v1", protocol="openai-chat", api_key=None, model="m")
    )
    transport = client._transport_for_url(httpx2.URL("http://127.0.0.1:1/v1/chat/completions"))
    assert isinstance(transport, Http11Transport)
    assert isinstance(transport._backend, AsyncioBackend)
