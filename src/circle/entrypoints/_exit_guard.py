"""Leaving for sure: a Circle told to stop (SIGTERM, SIGHUP, its terminal gone) ends within seconds.

The graceful way out stops the running turn as esc would, stops the jobs and closes the stores.
Should it not finish (something it waits for never answers, the event loop is stuck), the time
:func:`leave_within` was given ends the process anyway: the commands and jobs still running are
killed with their process groups, the stores' write-ahead logs are synced, and the process exits.
Nothing committed is lost that way (a commit is in the WAL before it returns, see
``adapters/storage/_wal_sync.py``); a tool call cut off is marked interrupted when the session
is next opened, as after SIGKILL.

:func:`on_stop_signals` sets Python's own signal handlers rather than the event loop's: those run
on the main thread between two bytecodes even while the loop waits on a lock, so the exit is
armed whatever the loop is doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

GRACE_S = 3.0
"""How long the graceful way out may take (stopping a command takes up to 0.2 s, a job up to 1 s)."""

INTERRUPTED = 130
"""The exit code of a Circle stopped from outside (see DECISIONS.md, "Command line")."""

_timer: threading.Timer | None = None
_timer_lock = threading.Lock()


def leave_within(seconds: float = GRACE_S, *, code: int = INTERRUPTED) -> None:
    """End the process ``seconds`` from now, with ``code``, unless it has ended by then.

    Safe from any thread and from a signal handler; only the first call counts."""
    global _timer
    if not _timer_lock.acquire(timeout=1):
        return
    try:
        if _timer is None:
            _timer = threading.Timer(seconds, hard_exit, args=(code,))
            _timer.name, _timer.daemon = "circle-exit-guard", True
            _timer.start()
    finally:
        _timer_lock.release()


def hard_exit(code: int) -> NoReturn:
    """Kill the process groups of the commands and jobs still running, sync the stores, exit now.

    Modules never loaded have nothing to stop or sync: nothing is imported here (another thread
    may hold an import lock forever)."""
    stops = sys.modules.get("circle.adapters.local._exit_stop")
    if stops is not None:
        with contextlib.suppress(Exception):
            stops.stop_all()
    syncs = sys.modules.get("circle.adapters.storage._wal_sync")
    if syncs is not None:
        with contextlib.suppress(Exception):
            syncs.sync_all()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def on_stop_signals(
    stop: Callable[[], object], *, signals: tuple[signal.Signals, ...], code: int = INTERRUPTED
) -> Callable[[], None]:
    """At each of ``signals``: arm :func:`leave_within` and call ``stop`` on the running loop.

    Returns what puts the handlers found before back."""
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: FrameType | None) -> None:
        leave_within(code=code)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the guard ends it
            loop.call_soon_threadsafe(stop)

    previous = {sig: signal.signal(sig, handler) for sig in signals}

    def restore() -> None:
        for sig, before in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, before)

    return restore


__all__ = ["GRACE_S", "INTERRUPTED", "hard_exit", "leave_within", "on_stop_signals"]
