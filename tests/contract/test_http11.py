"""The OpenAI protocols' HTTP/1.1 transport against real loopback servers: the answer framed by its
length, chunk by chunk or to the end of the connection; connections kept, and not kept where they
cannot be; a kept connection the server closed; timeouts, refused connections and broken answers
as httpx2's exceptions; TLS; compressed bodies, 1xx answers and redirects through httpx2's client;
a header that would break the framing refused; and the environment's proxies still used."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest

from circle.adapters.models._http11 import Http11Transport, http11_client

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """A loopback server running ``answer`` on each connection; it counts the connections and keeps
    the requests' heads and bodies."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []
        self.url = ""

    async def read_request(self, reader: asyncio.StreamReader) -> bytes | None:
        """The next request's head (its body kept in ``requests``), ``None`` at the end."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        body = await reader.readexactly(length)
        self.requests.append((head, body))
        return head

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self._answer(reader, writer)
        except asyncio.CancelledError:
            pass  # the server closed with the connection open: asyncio's streams log a cancelled one
        finally:
            writer.close()


@asynccontextmanager
async def serving(
    answer: Callable[[Server], Answer], *, tls: ssl.SSLContext | None = None
) -> AsyncIterator[Server]:
    server = Server(lambda r, w: answer(server)(r, w))
    listening = await asyncio.start_server(server._serve, "127.0.0.1", 0, ssl=tls)
    port = listening.sockets[0].getsockname()[1]
    server.url = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    async with listening:
        yield server


def keep_answering(body: bytes = b'{"ok": true}', *, extra: bytes = b"") -> Callable[[Server], Answer]:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await server.read_request(reader) is not None:
                writer.write(b"HTTP/1.1 200 OK\r\n%sContent-Length: %d\r\n\r\n%s" % (extra, len(body), body))
                await writer.drain()

        return run

    return answer


@pytest.fixture
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    client = http11_client(timeout=5)
    yield client
    await client.aclose()


async def test_a_post_goes_out_whole_and_its_connection_is_kept(client: httpx2.AsyncClient) -> None:
    async with serving(keep_answering()) as server:
        answers = [await client.post(f"{server.url}/v1/chat?x=1", content=b'{"n": %d}' % n) for n in range(3)]
    assert [(a.status_code, a.json(), a.http_version) for a in answers] == [
        (200, {"ok": True}, "HTTP/1.1")
    ] * 3
    assert server.connections == 1
    head = server.requests[0][0]
    assert head.startswith(b"POST /v1/chat?x=1 HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in head and b"\r\nContent-Length: 8\r\n" in head
    assert [b for _, b in server.requests] == [b'{"n": 0}', b'{"n": 1}', b'{"n": 2}']


async def test_a_chunked_answer_streams_each_chunk_as_it_comes(client: httpx2.AsyncClient) -> None:
    second = asyncio.Event()

    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await server.read_request(reader) is not None:
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                writer.write(b"6;ext=1\r\ndata:1\r\n")
                await writer.drain()
                await second.wait()
                writer.write(b"6\r\ndata:2\r\n0\r\nX-Trailer: t\r\n\r\n")
                await writer.drain()
                second.clear()

        return run

    async with serving(answer) as server:
        for _ in range(2):
            async with client.stream("POST", server.url, content=b"{}") as response:
                parts = response.aiter_bytes()
                assert await anext(parts) == b"data:1"  # before the rest was sent
                second.set()
                assert [p async for p in parts] == [b"data:2"]
    assert server.connections == 1


async def test_an_answer_without_a_length_is_read_to_the_end_and_its_connection_not_kept(
    client: httpx2.AsyncClient,
) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\n\r\nall of it, to the end")

        return run

    async with serving(answer) as server:
        texts = [(await client.post(server.url, content=b"{}")).text for _ in range(2)]
    assert texts == ["all of it, to the end"] * 2
    assert server.connections == 2


@pytest.mark.parametrize(
    ("status_line", "extra"),
    [(b"HTTP/1.0 200 OK", b""), (b"HTTP/1.1 200 OK", b"Connection: close\r\n")],
)
async def test_an_answer_that_ends_the_connection_is_not_kept(
    client: httpx2.AsyncClient, status_line: bytes, extra: bytes
) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await server.read_request(reader) is not None:
                writer.write(status_line + b"\r\n" + extra + b"Content-Length: 2\r\n\r\nok")
                await writer.drain()

        return run

    async with serving(answer) as server:
        texts = [(await client.post(server.url, content=b"{}")).text for _ in range(2)]
    assert texts == ["ok", "ok"]
    assert server.connections == 2


async def test_a_kept_connection_the_server_closed_is_replaced(client: httpx2.AsyncClient) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()  # then closed, though the answer said nothing of it

        return run

    async with serving(answer) as server:
        first = await client.post(server.url, content=b"{}")
        await asyncio.sleep(0.05)
        second = await client.post(server.url, content=b"{}")
    assert (first.text, second.text, server.connections) == ("ok", "ok", 2)


async def test_a_request_the_server_drops_on_a_kept_connection_is_sent_again_once(
    client: httpx2.AsyncClient,
) -> None:
    """The race of a kept connection: the server closes it as the request goes out, unanswered."""

    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
            if server.connections == 1:
                await server.read_request(reader)  # read, and closed with no answer

        return run

    async with serving(answer) as server:
        texts = [(await client.post(server.url, content=b"{}")).text for _ in range(2)]
    assert texts == ["ok", "ok"]
    assert (server.connections, len(server.requests)) == (2, 3)


async def test_a_new_connection_closed_unanswered_is_an_error_not_sent_again(
    client: httpx2.AsyncClient,
) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)

        return run

    async with serving(answer) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match="without answering"):
            await client.post(server.url, content=b"{}")
    assert len(server.requests) == 1


async def test_an_answer_cut_short_is_an_error_and_its_connection_is_dropped(
    client: httpx2.AsyncClient,
) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")

        return run

    async with serving(answer) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match="before the answer's end"):
            await client.post(server.url, content=b"{}")


async def test_an_answer_left_unread_drops_its_connection(client: httpx2.AsyncClient) -> None:
    async with serving(keep_answering(b"x" * 100_000)) as server:
        for _ in range(2):
            async with client.stream("POST", server.url, content=b"{}") as response:
                assert len(await anext(response.aiter_raw())) > 0
    assert server.connections == 2  # the rest of the first answer would have been read as the second


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.1 answer"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "header cannot be read"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk's size cannot be read"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", "Content-Length"),
    ],
)
async def test_a_broken_answer_is_a_protocol_error(
    client: httpx2.AsyncClient, reply: bytes, error: str
) -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            writer.write(reply)
            await writer.drain()
            await asyncio.sleep(1)

        return run

    async with serving(answer) as server:
        with pytest.raises(httpx2.RemoteProtocolError, match=error):
            await client.post(server.url, content=b"{}")


async def test_a_slow_answer_is_a_read_timeout_and_a_closed_port_a_connect_error() -> None:
    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await server.read_request(reader)
            await asyncio.sleep(5)

        return run

    client = http11_client(timeout=0.2)
    try:
        async with serving(answer) as server:
            with pytest.raises(httpx2.ReadTimeout):
                await client.post(server.url, content=b"{}")
            url = server.url
        with pytest.raises(httpx2.ConnectError):
            await client.post(url, content=b"{}")  # nothing listens there now
    finally:
        await client.aclose()


async def test_a_header_that_would_break_the_framing_is_refused_unsent(client: httpx2.AsyncClient) -> None:
    async with serving(keep_answering()) as server:
        with pytest.raises(httpx2.LocalProtocolError, match="cannot be sent"):
            await client.post(server.url, content=b"{}", headers={"X-Org": "a\r\nX-Injected: 1"})
    assert server.requests == []


async def test_a_compressed_answer_after_a_1xx_and_a_redirect_reads_as_the_sdk_reads_it(
    client: httpx2.AsyncClient,
) -> None:
    packed = gzip.compress(b'{"ok": "unpacked"}')

    def answer(server: Server) -> Answer:
        async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while (head := await server.read_request(reader)) is not None:
                if head.startswith(b"POST /old "):
                    writer.write(
                        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n"
                    )
                else:
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n"
                        % len(packed)
                    )
                    writer.write(packed)
                await writer.drain()

        return run

    async with serving(answer) as server:
        response = await client.post(f"{server.url}/old", content=b"{}")
    assert (response.status_code, response.json(), response.url.path) == (200, {"ok": "unpacked"}, "/new")
    assert [head.split(b" ")[1] for head, _ in server.requests] == [b"/old", b"/new"]
    assert server.connections == 1


async def test_two_requests_at_once_take_two_connections(client: httpx2.AsyncClient) -> None:
    async with serving(keep_answering()) as server:
        answers = await asyncio.gather(*(client.post(server.url, content=b"{}") for _ in range(2)))
        again = await client.post(server.url, content=b"{}")
    assert [a.status_code for a in [*answers, again]] == [200, 200, 200]
    assert server.connections == 2


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


async def test_https_is_verified_offers_http11_and_keeps_its_connection(tmp_path: Path) -> None:
    key, cert = _certificate(tmp_path)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    server_tls.set_alpn_protocols(["http/1.1"])
    trusting = httpx2.AsyncClient(transport=Http11Transport(ssl.create_default_context(cafile=str(cert))))
    stranger = http11_client(timeout=5)  # the usual certificates, which do not know this one
    try:
        async with serving(keep_answering(), tls=server_tls) as server:
            answers = [await trusting.post(server.url, content=b"{}") for _ in range(2)]
            with pytest.raises(httpx2.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await stranger.post(server.url, content=b"{}")
    finally:
        await trusting.aclose()
        await stranger.aclose()
    assert [a.json() for a in answers] == [{"ok": True}] * 2
    assert server.connections == 1  # the stranger's ended in its handshake


async def test_the_environments_proxy_is_used_and_no_proxy_is_honoured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (
        serving(keep_answering(b"from the proxy")) as proxy,
        serving(keep_answering(b"direct")) as direct,
    ):
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "localhost")
        client = http11_client(timeout=5)
        try:
            proxied = await client.post("http://example.invalid/v1/chat", content=b"{}")
            not_proxied = await client.post(direct.url.replace("127.0.0.1", "localhost"), content=b"{}")
        finally:
            await client.aclose()
    assert (proxied.text, not_proxied.text) == ("from the proxy", "direct")
    assert proxy.requests[0][0].startswith(b"POST http://example.invalid/v1/chat HTTP/1.1\r\n")
