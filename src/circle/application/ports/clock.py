"""Clock: wall time, monotonic time and sleeping."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...
