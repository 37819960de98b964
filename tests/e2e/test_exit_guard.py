"""A Circle told to stop ends within a bound, whatever its event loop is doing: a real process
whose loop is stuck on a lock gets SIGTERM; the command it started goes with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

_STUCK = textwrap.dedent(
    """
    import asyncio, subprocess, sys, threading
    from circle.adapters.local import _exit_stop
    from circle.entrypoints import _exit_guard

    async def main():
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        _exit_stop.track(child.pid)
        _exit_guard.on_stop_signals(lambda: None, signals=(signal.SIGTERM,))  # a quit that never ends
        print(child.pid, flush=True)
        held = threading.Lock()
        held.acquire()
        held.acquire()  # the loop waits here for good, as on a full queue nobody empties

    import signal
    asyncio.run(main())
    """
)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_a_stop_signal_ends_a_process_whose_loop_is_stuck_and_kills_its_command() -> None:
    process = subprocess.Popen([sys.executable, "-c", _STUCK], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    child = int(process.stdout.readline())
    try:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=10)  # the guard's 3 s, with room for a loaded machine
    finally:
        process.kill()
        if _running(child):
            os.killpg(child, signal.SIGKILL)
    assert code == 130
    deadline = time.monotonic() + 5
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child)
