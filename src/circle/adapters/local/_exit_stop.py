"""Background commands end with the program that started them, when it ends without stopping them.

A program (an embedding one, most often) may return without closing its agent, leaving jobs
running. Their shells go with it (asyncio kills them, and :mod:`._parent_death` has the kernel do
so), but what a shell started itself and never writes (``sleep 77``) would run on, reparented to
pid 1. So each job's process group is kept here while it runs, and at a normal exit every group
still kept is killed, as stopping the job would have done. A foreground command's group is kept too
while it runs, for a Circle that has to leave at once (:func:`stop_all`, from
``entrypoints/_exit_guard.py``, which exits without the ``atexit`` hooks).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal

_running: set[int] = set()
_registered = False


def track(pgid: int) -> None:
    """Kill process group ``pgid`` at exit unless :func:`forget` is called first."""
    global _registered
    if not _registered:
        atexit.register(stop_all)
        _registered = True
    _running.add(pgid)


def forget(pgid: int) -> None:
    """The job of group ``pgid`` was stopped or waited for: nothing to do at exit."""
    _running.discard(pgid)


def stop_all() -> None:
    """Kill every process group still kept (any thread; a group already gone is skipped)."""
    for pgid in sorted(set(_running)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    _running.clear()


__all__ = ["forget", "stop_all", "track"]
