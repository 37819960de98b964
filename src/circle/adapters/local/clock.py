"""SystemClock: the ``Clock`` port on the machine's clocks."""

from __future__ import annotations

import asyncio
import time


class SystemClock:
    """Wall time from ``time.time``, intervals from ``time.monotonic``, sleeping with ``asyncio``."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


__all__ = ["SystemClock"]
