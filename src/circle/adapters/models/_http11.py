"""An httpx2 transport speaking HTTP/1.1 itself, for the OpenAI protocols' direct connections.

httpx2's own transport hands each request to httpcore2's connection pool, which frames it with h11:
three layers of objects, events and state checks a request, 0.7 ms of CPU each against the
loopback gateway, a seventh of a tool round. Circle's requests are simple (a POST of a ready JSON
body, a streamed answer on a kept connection), so they are framed here: the head and body written
in one piece, the answer's head parsed from the bytes, its body read by its length, chunk by chunk,
or to the end of the connection (RFC 9112, section 6.3), and the connection kept for the next
request when the answer allows it.

The client above is httpx2's, unchanged: redirects, cookies, timeouts and the decoding of a
compressed body work as before, and a proxy from the environment keeps httpx2's own transport
(:func:`http11_client` puts this one under the direct connections only). Connections come from
:class:`~._asyncio_net.AsyncioBackend` (asyncio's transports, TLS with ``http/1.1`` offered by
ALPN). Failures are httpx2's exceptions, as its own transport raises them.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator, Mapping

import httpcore2
import httpx2

from ._asyncio_net import AsyncioBackend

KEEP_IDLE_S = 5.0
"""How long a connection is kept unused for the next request (httpx2's keep-alive expiry)."""
MAX_HEAD_BYTES = 64 * 1024
"""The most an answer's head (status line and headers) may take."""
READ_BYTES = 64 * 1024
"""The most taken from a connection at a time."""
_NO_BODY_STATUSES = frozenset({204, 304})
_UNANSWERED = "the server closed the connection without answering"
_HTTPCORE_ERRORS: tuple[tuple[type[Exception], type[httpx2.TransportError]], ...] = (
    (httpcore2.ConnectTimeout, httpx2.ConnectTimeout),
    (httpcore2.ReadTimeout, httpx2.ReadTimeout),
    (httpcore2.WriteTimeout, httpx2.WriteTimeout),
    (httpcore2.ConnectError, httpx2.ConnectError),
    (httpcore2.ReadError, httpx2.ReadError),
    (httpcore2.WriteError, httpx2.WriteError),
)


class _ServerClosedError(Exception):
    """The connection ended before an answer's first byte came."""


class _Connection:
    """One connection to an origin: its stream, the bytes read and not yet used, when it was last
    used, and whether an answer was begun on it."""

    def __init__(self, stream: httpcore2.AsyncNetworkStream, origin: tuple[bytes, bytes, int]) -> None:
        self.stream = stream
        self.origin = origin
        self.buffer = bytearray()
        self.idle_since = time.monotonic()
        self.answered = False
        self.received_any = False

    async def fill(self, seconds: float | None) -> None:
        """Add what the connection has next to the buffer; :class:`_ServerClosedError` at its end."""
        data = await self.stream.read(READ_BYTES, seconds)
        if not data:
            raise _ServerClosedError
        self.received_any = True
        self.buffer += data

    async def line(self, seconds: float | None) -> bytes:
        """The next line (CRLF or a bare LF ends it), without its end."""
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > MAX_HEAD_BYTES:
                raise httpx2.RemoteProtocolError("the answer's head is too long")
            await self.fill(seconds)
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return line[:-1] if line.endswith(b"\r") else line

    def usable(self) -> bool:
        """Whether the kept connection can carry another request: recent, open, nothing unasked on it."""
        fresh = time.monotonic() - self.idle_since < KEEP_IDLE_S
        return fresh and not self.buffer and not self.stream.get_extra_info("is_readable")


class Http11Transport(httpx2.AsyncBaseTransport):
    """HTTP/1.1 on kept connections, one request at a time on each (see the module).

    Args:
        ssl_context: the TLS settings of ``https`` origins (``http/1.1`` is offered by ALPN); by
            default httpx2's (its certificates, ``SSL_CERT_FILE`` and ``SSL_CERT_DIR``), made on
            the first ``https`` connection: loading the certificates takes 30 ms, which a local
            ``http`` endpoint never needs.
    """

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self._ssl_context = ssl_context
        self._backend = AsyncioBackend()
        self._kept: dict[tuple[bytes, bytes, int], list[_Connection]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        timeouts: Mapping[str, float | None] = request.extensions.get("timeout", {})
        data = _request_head(request) + await _request_body(request)
        for _ in range(2):
            kept = await self._kept_connection(request)
            connection = kept or await self._connect(request, timeouts.get("connect"))
            reused, connection.received_any = connection.answered, False
            try:
                return await self._exchange(connection, request, data, timeouts)
            except (_ServerClosedError, httpcore2.ReadError, httpcore2.WriteError) as exc:
                await connection.stream.aclose()
                if reused and not connection.received_any:
                    continue  # a kept connection the server closed as the request went out: a new one
                if isinstance(exc, _ServerClosedError):
                    raise httpx2.RemoteProtocolError(_UNANSWERED, request=request) from None
                raise _translated(exc, request) from exc
            except BaseException as exc:
                await connection.stream.aclose()
                translated = _translated(exc, request)
                if translated is exc:
                    raise
                raise translated from exc
        raise httpx2.RemoteProtocolError(_UNANSWERED, request=request)

    async def _exchange(
        self,
        connection: _Connection,
        request: httpx2.Request,
        data: bytes,
        timeouts: Mapping[str, float | None],
    ) -> httpx2.Response:
        """Send ``data`` (the request) on ``connection`` and read the answer's head."""
        await connection.stream.write(data, timeouts.get("write"))
        seconds = timeouts.get("read")
        while True:
            version, status, reason, headers = await _answer_head(connection, seconds)
            connection.answered = True
            if not 100 <= status < 200 or status == 101:
                break  # 1xx answers before the real one are passed over
        length, reusable = _framing(request, status, headers)
        reusable = reusable and version == b"HTTP/1.1"  # 1.0 keeps no connection unless it asks to
        stream = _AnswerBody(self, connection, request, length, reusable, seconds)
        return httpx2.Response(
            status,
            headers=headers,
            stream=stream,
            extensions={"http_version": version, "reason_phrase": reason},
        )

    async def _kept_connection(self, request: httpx2.Request) -> _Connection | None:
        kept = self._kept.get(_origin(request.url))
        while kept:
            connection = kept.pop()
            if connection.usable():
                return connection
            await connection.stream.aclose()
        return None

    async def _connect(self, request: httpx2.Request, seconds: float | None) -> _Connection:
        scheme, host, port = _origin(request.url)
        name = host.decode("ascii")
        try:
            stream = await self._backend.connect_tcp(name, port, timeout=seconds)
            if scheme == b"https":
                stream = await stream.start_tls(await self._tls(), server_hostname=name, timeout=seconds)
        except Exception as exc:
            raise _translated(exc, request) from exc
        return _Connection(stream, (scheme, host, port))

    async def _tls(self) -> ssl.SSLContext:
        if self._ssl_context is None:  # loading the certificates takes 30 ms: not on the event loop
            self._ssl_context = await asyncio.to_thread(httpx2.create_ssl_context)
        self._ssl_context.set_alpn_protocols(["http/1.1"])
        return self._ssl_context

    async def keep(self, connection: _Connection) -> None:
        """Keep ``connection`` (its answer read to the end) for the next request to its origin."""
        if self._closed:
            await connection.stream.aclose()
            return
        connection.idle_since = time.monotonic()
        self._kept.setdefault(connection.origin, []).append(connection)

    async def aclose(self) -> None:
        self._closed = True
        kept, self._kept = self._kept, {}
        for connections in kept.values():
            for connection in connections:
                await connection.stream.aclose()


class _AnswerBody(httpx2.AsyncByteStream):
    """An answer's body as it arrives: ``length`` bytes, chunked (``length`` -1) or to the end of the
    connection (``None``); the connection goes back to the transport when read to the end and
    ``reusable``, and is closed otherwise."""

    def __init__(
        self,
        transport: Http11Transport,
        connection: _Connection,
        request: httpx2.Request,
        length: int | None,
        reusable: bool,
        seconds: float | None,
    ) -> None:
        self._transport = transport
        self._connection: _Connection | None = connection
        self._request = request
        self._length = length
        self._reusable = reusable
        self._timeout = seconds

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            raise httpx2.StreamClosed()
        try:
            if self._length == -1:
                parts = _chunked(connection, self._timeout)
            else:
                parts = _sized(connection, self._length, self._timeout)
            async for part in parts:
                yield part
        except _ServerClosedError:
            await self.aclose()
            raise httpx2.RemoteProtocolError(
                "the server closed the connection before the answer's end", request=self._request
            ) from None
        except BaseException as exc:
            await self.aclose()
            translated = _translated(exc, self._request)
            if translated is exc:
                raise
            raise translated from exc
        self._connection = None
        if self._reusable and self._length is not None:
            await self._transport.keep(connection)
        else:
            await connection.stream.aclose()

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:  # left before its end: what is still coming cannot be told apart
            await connection.stream.aclose()


async def _sized(connection: _Connection, length: int | None, seconds: float | None) -> AsyncIterator[bytes]:
    """``length`` bytes of the connection, or all it has until it ends (``None``)."""
    left = length
    while left is None or left > 0:
        if not connection.buffer:
            try:
                await connection.fill(seconds)
            except _ServerClosedError:
                if left is None:
                    return
                raise
        take = len(connection.buffer) if left is None else min(left, len(connection.buffer))
        part = bytes(connection.buffer[:take])
        del connection.buffer[:take]
        if left is not None:
            left -= take
        yield part


async def _chunked(connection: _Connection, seconds: float | None) -> AsyncIterator[bytes]:
    """The data of a chunked body, each chunk's as it arrives; the trailer read and dropped."""
    while True:
        size_line = await connection.line(seconds)
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise httpx2.RemoteProtocolError(f"a chunk's size cannot be read: {size_line[:40]!r}") from None
        if size < 0:
            raise httpx2.RemoteProtocolError(f"a chunk's size cannot be read: {size_line[:40]!r}")
        if size == 0:
            while await connection.line(seconds):
                pass  # trailer fields, up to the blank line
            return
        async for part in _sized(connection, size, seconds):
            yield part
        if await connection.line(seconds):
            raise httpx2.RemoteProtocolError("a chunk is longer than its size says")


async def _answer_head(
    connection: _Connection, seconds: float | None
) -> tuple[bytes, int, bytes, list[tuple[bytes, bytes]]]:
    """The HTTP version, status, reason and headers of the next answer on ``connection``."""
    status_line = await connection.line(seconds)
    version, _, rest = status_line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
        raise httpx2.RemoteProtocolError(f"not an HTTP/1.1 answer: {status_line[:60]!r}")
    headers: list[tuple[bytes, bytes]] = []
    size = len(status_line)
    while line := await connection.line(seconds):
        size += len(line)
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or size > MAX_HEAD_BYTES:
            raise httpx2.RemoteProtocolError(f"an answer's header cannot be read: {line[:60]!r}")
        headers.append((name, value.strip(b" \t")))
    return version, int(code), reason, headers


def _framing(
    request: httpx2.Request, status: int, headers: list[tuple[bytes, bytes]]
) -> tuple[int | None, bool]:
    """How the answer's body is delimited (its length, -1 for chunked, ``None`` for to the end of
    the connection) and whether the connection can be kept after it (RFC 9112, section 6.3)."""
    lengths: set[bytes] = set()
    codings: list[bytes] = []
    close = False
    for name, value in headers:
        key = name.lower()
        if key == b"content-length":
            lengths.update(v.strip() for v in value.split(b","))
        elif key == b"transfer-encoding":
            codings.extend(v.strip().lower() for v in value.split(b","))
        elif key == b"connection":
            close = close or any(v.strip().lower() == b"close" for v in value.split(b","))
    keep = not close and request.headers.get("connection", "").lower() != "close"
    if request.method == "HEAD" or status in _NO_BODY_STATUSES or 100 <= status < 200:
        return 0, keep
    if codings:
        if codings[-1] == b"chunked":
            return -1, keep
        return None, False
    if lengths:
        if len(lengths) != 1 or not (length := lengths.pop()).isdigit():
            raise httpx2.RemoteProtocolError("the answer's Content-Length cannot be read")
        return int(length), keep
    return None, False


def _request_head(request: httpx2.Request) -> bytes:
    """The request line and headers, refused where a header would break the framing."""
    target = request.url.raw_path
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), target)]
    for name, value in request.headers.raw:
        if any(c in name for c in b"\r\n\0: ") or any(c in value for c in b"\r\n\0"):
            raise httpx2.LocalProtocolError(f"the header {name[:40]!r} cannot be sent", request=request)
        lines.append(name + b": " + value)
    lines.append(b"\r\n")
    return b"\r\n".join(lines)


async def _request_body(request: httpx2.Request) -> bytes:
    """The request's body as it goes out: as it is, or chunked when the request says so."""
    parts = [part async for part in request.stream]  # type: ignore[union-attr]
    if request.headers.get("transfer-encoding", "").lower() != "chunked":
        return b"".join(parts)
    framed = [b"%x\r\n%s\r\n" % (len(part), part) for part in parts if part]
    return b"".join([*framed, b"0\r\n\r\n"])


def _origin(url: httpx2.URL) -> tuple[bytes, bytes, int]:
    scheme = url.raw_scheme
    return scheme, url.raw_host, url.port or (443 if scheme == b"https" else 80)


def _translated(exc: BaseException, request: httpx2.Request) -> BaseException:
    """httpx2's exception for what the connection raised (others as they are)."""
    for raised, translated in _HTTPCORE_ERRORS:
        if isinstance(exc, raised):
            return translated(str(exc), request=request)
    if isinstance(exc, httpx2.RequestError) and exc._request is None:
        exc.request = request
    return exc


def http11_client(*, timeout: float | None) -> httpx2.AsyncClient:
    """An httpx2 client on :class:`Http11Transport` (``timeout``, redirects followed), with the
    proxies the environment names (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``…) on httpx2's own
    transport, as httpx2 mounts them when it is given no transport of ours."""
    from httpx2._utils import get_environment_proxies

    mounts: dict[str, httpx2.AsyncBaseTransport | None] = {
        pattern: None if url is None else httpx2.AsyncHTTPTransport(proxy=url)
        for pattern, url in get_environment_proxies().items()
    }
    transport = Http11Transport()
    return httpx2.AsyncClient(transport=transport, mounts=mounts, timeout=timeout, follow_redirects=True)


__all__ = ["KEEP_IDLE_S", "Http11Transport", "http11_client"]
