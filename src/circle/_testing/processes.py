"""Whether a real process still runs, for tests that check what a stop or a cancel left behind."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def process_gone(pid: int, *, within: float = 3.0) -> bool:
    """Wait up to ``within`` seconds for ``pid`` to end; whether it did."""
    deadline = time.monotonic() + within
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def process_gone_async(pid: int, *, within: float = 3.0) -> bool:
    """:func:`process_gone` without blocking the event loop."""
    deadline = time.monotonic() + within
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


__all__ = ["process_alive", "process_gone", "process_gone_async"]
