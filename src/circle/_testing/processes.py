"""Whether a real process still runs, for tests that check what a stop or a cancel left behind,
and waiting for a state a process is to reach (a file it writes) without guessing a delay."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
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


def wait_until(check: Callable[[], bool], *, within: float = 30.0) -> bool:
    """Poll ``check`` until it holds or ``within`` seconds pass; whether it held."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


async def wait_until_async(check: Callable[[], bool], *, within: float = 30.0) -> bool:
    """:func:`wait_until` without blocking the event loop."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def line_written(path: Path) -> bool:
    """Whether ``path`` holds at least one whole line (a shell's ``echo x > path`` finished)."""
    try:
        return path.read_text().endswith("\n")
    except (FileNotFoundError, UnicodeDecodeError):
        return False


__all__ = [
    "line_written",
    "process_alive",
    "process_gone",
    "process_gone_async",
    "wait_until",
    "wait_until_async",
]
