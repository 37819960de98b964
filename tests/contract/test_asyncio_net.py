"""The OpenAI protocols' network backend on asyncio's transports: a request written in one piece,
reads and writes as httpcore2 expects them (a timeout, the end of a connection), TLS, and the
client the adapters make using it."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpcore2
import httpx2
import pytest

from circle.adapters.models._asyncio_net import HELD_BYTES, AsyncioBackend, use_asyncio
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


def _certificate(folder: Path) -> tuple[Path, Path]:
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return key, cert


@pytest.fixture
async def https_server(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    key, cert = _certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readuntil(b"\r\n\r\n")).startswith(b"POST"):
            await reader.readexactly(2)  # the body: "{}"
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"https://127.0.0.1:{port}/v1", cert


async def test_https_works_through_the_backend_and_keeps_its_connection(
    https_server: tuple[str, Path],
) -> None:
    url, cert = https_server
    client = use_asyncio(httpx2.AsyncClient(verify=ssl.create_default_context(cafile=str(cert))))
    try:
        answers = [await client.post(url, content=b"{}") for _ in range(2)]
    finally:
        await client.aclose()
    assert [(a.status_code, a.text) for a in answers] == [(200, "ok"), (200, "ok")]
    streams = [a.extensions["network_stream"] for a in answers]
    assert streams[0].get_extra_info("ssl_object") is not None
    assert streams[0] is streams[1]


def test_the_openai_adapters_client_connects_through_asyncio() -> None:
    """httpx2 takes no backend argument, so it is set on the client's pool: a change of httpx2's
    insides that undid it silently shows here."""
    client = new_http_client(
        Endpoint(base_url="http://127.0.0.1:1/v1", protocol="openai-chat", api_key=None, model="m")
    )
    pool = getattr(client, "_transport")._pool  # noqa: B009
    assert isinstance(pool._network_backend, AsyncioBackend)
