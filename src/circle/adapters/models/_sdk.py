"""SDKs load on a thread: ``import anthropic`` takes seconds on a cold start, and a request made
from an event loop (the interface, RPC) must not stall it meanwhile.

Each protocol's ``stream`` awaits :func:`loaded` before its first ``import`` of the SDK; once the
modules are in ``sys.modules`` that import is a dictionary look-up.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


async def loaded(*names: str) -> None:
    """Import the modules ``names`` on a thread unless they are already imported."""
    missing = [name for name in names if name not in sys.modules]
    if missing:
        await asyncio.to_thread(preload, *missing)


async def loaded_with(*names: str, make: Callable[[], T]) -> T:
    """Import the modules ``names`` and call ``make`` (an SDK client: its TLS setup takes tens of
    milliseconds), both on a thread."""

    def load_and_make() -> T:
        preload(*names)
        return make()

    return await asyncio.to_thread(load_and_make)


def preload(*names: str) -> None:
    """Import the modules ``names`` now (call it on a thread)."""
    for name in names:
        importlib.import_module(name)


__all__ = ["loaded", "loaded_with", "preload"]
