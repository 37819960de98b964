"""Standard input read a line at a time on a daemon thread, handed to the event loop.

Lines are split on LF only (U+2028 inside a JSON string is just a character) and decoded as UTF-8
(a bad byte becomes U+FFFD); a trailing CR is dropped. End of file, a hang-up or a read error ends
the input the same way. The thread is a daemon: an unfinished read never keeps Circle from leaving.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import BinaryIO


class StdinLines:
    def __init__(self, stream: BinaryIO | None) -> None:
        self._stream = stream
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False

    def start(self) -> StdinLines:
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, name="circle-stdin", daemon=True).start()
        return self

    async def next(self) -> str | None:
        """The next line, or None once the input has closed (or :meth:`close` was called)."""
        if self.closed:
            return None
        line = await self._queue.get()
        if line is None:
            self.closed = True
        return line

    def close(self) -> None:
        """End the input now: a waiting :meth:`next` returns None."""
        self._queue.put_nowait(None)

    def _read(self) -> None:
        loop = self._loop
        assert loop is not None
        try:
            while self._stream is not None:
                raw = self._stream.readline()
                if not raw:
                    break
                text = raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
                loop.call_soon_threadsafe(self._queue.put_nowait, text)
        except (OSError, ValueError):
            pass  # a hang-up or a closed descriptor ends the input like end of file
        finally:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody reads any more
                loop.call_soon_threadsafe(self._queue.put_nowait, None)


__all__ = ["StdinLines"]
