"""Server-sent events as both model protocols send them: ``event:`` and ``data:`` lines."""

from __future__ import annotations


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
