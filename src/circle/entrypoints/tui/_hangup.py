"""A terminal that went away: its window closed, tmux's server killed, an SSH connection dropped.

The kernel hangs the terminal up: Circle gets SIGHUP and SIGCONT, reads give end of file and
writes fail with EIO. Textual's Linux driver then kept Circle running for good, in three ways,
which :class:`~._driver.DiffingDriver` answers with what is here:

- Its output thread dies at the first failed write. Its queue (30 writes) fills, and the next
  write, or the close that puts the last item on it, waits forever, the event loop with it (so a
  SIGTERM went unanswered too). :class:`TerminalOutput` is the file that thread writes to: it
  drops what it is given once the terminal is gone, so the thread lives on and the queue drains.
- It takes every SIGCONT for a return from ctrl+z and starts application mode again, with a
  second output thread (which then died as above); the driver does that only after a suspend.
- Its input thread reads end of file, or EIO, over and over; the driver's stops there.

Either thread that finds the terminal gone calls :meth:`TerminalOutput.lose`, which tells the
driver once: it arms the bounded exit from that thread (``entrypoints/_exit_guard.py``), in case
the event loop is stuck, and the app gets :class:`TerminalClosed` and leaves as on SIGHUP.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TextIO

from textual.message import Message


class TerminalClosed(Message):
    """The terminal went away: leave as on SIGHUP."""


class TerminalOutput:
    """The terminal as the driver's output thread writes to it: writes fail quietly once it is gone.

    Args:
        file: The terminal (Textual writes to ``sys.__stderr__``).
        on_gone: Called once, on the thread that found the terminal gone.
    """

    def __init__(self, file: TextIO, *, on_gone: Callable[[], None]) -> None:
        self._file = file
        self._on_gone = on_gone
        self._lock = threading.Lock()
        self.gone = False

    def lose(self) -> None:
        """The terminal is gone (a failed write, end of file on input): say so, once."""
        with self._lock:
            if self.gone:
                return
            self.gone = True
        self._on_gone()

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._file.write(text)
            except (OSError, ValueError):  # EIO: hung up; ValueError: closed
                self.lose()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self.lose()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return True


__all__ = ["TerminalClosed", "TerminalOutput"]
