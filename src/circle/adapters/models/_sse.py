"""Server-sent events as both model protocols send them: ``event:`` and ``data:`` lines; their JSON
data, and draining what follows the end of an answer.

Each adapter reads a body through one iteration, ``response.aiter_bytes()``, which it closes itself
(``contextlib.aclosing``) and which :func:`drain` reads on to the end: an iteration left behind
mid-body would be closed by the garbage collector through the event loop (a wake-up from the
finalizer and a task for each of httpx2's nested generators, every request)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

from circle.domain.errors import ProviderProtocolError

DRAIN_S = 0.1
"""How long to read on after an answer ended, so the connection can be reused."""


def parse_json(data: str | bytes) -> object:
    """Parsed JSON, or :class:`ProviderProtocolError` naming what came instead."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise ProviderProtocolError(f"the endpoint sent data that is not JSON: {data[:200]!r}") from None


async def drain(chunks: AsyncIterator[bytes]) -> None:
    """Read what follows the end of an answer for a moment, so the connection can be reused.

    Args:
        chunks: the body's iteration the answer was read from (``response.aiter_bytes()``), read on
            to its end, so that it and the iterations inside it finish instead of being left open.
    """
    import httpx2

    with contextlib.suppress(TimeoutError, httpx2.HTTPError, httpx2.StreamError):
        async with asyncio.timeout(DRAIN_S):
            async for _ in chunks:
                pass


class SSEDecoder:
    """Splits a server-sent-events body into ``(event, data)`` pairs; comments are dropped."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        *lines, self._buffer = (self._buffer + chunk).split(b"\n")
        return self._lines(lines)

    def close(self) -> list[tuple[str | None, str]]:
        """The events still pending when the body ends (a last event without its blank line)."""
        lines, self._buffer = [self._buffer, b""], b""
        return self._lines(lines)

    def _lines(self, lines: list[bytes]) -> list[tuple[str | None, str]]:
        events: list[tuple[str | None, str]] = []
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
            if not line:
                if self._data:
                    events.append((self._event, "\n".join(self._data)))
                self._event, self._data = None, []
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value.strip()
        return events


__all__ = ["SSEDecoder"]
