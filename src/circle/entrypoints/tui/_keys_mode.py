"""The terminal sends each key as it is typed from the moment the interface starts.

Until a program says otherwise, the terminal edits what is typed itself, a line at a time: it
echoes the keys, backspace and ctrl+u/ctrl+w act on its own line (backspace ate the last byte of an
arrow's code: 'hello', ←, backspace, 'X' wrote 'hello[X'), enter comes as ctrl+j, and ctrl+c ends
the program. Textual's driver turns that off, but only once Textual has loaded, some 0.15-0.3 s
after Circle starts, and a person who types as soon as they pressed enter on ``circle`` types into
that. So the interface turns it off first thing (:func:`take`), input only (what is written still
has its line breaks made), and the keys wait unedited for the app (``_early_keys.py``); those typed
ahead, before Circle ran, are read then (:func:`typed_ahead`). What the
terminal was is kept: Textual's driver puts it back when it stops or suspends (``_driver.py``), and
:func:`give_back` does once the interface has ended (or never started).
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from typing import Any

_before: list[Any] | None = None
"""The terminal's settings before :func:`take`."""
_ahead = bytearray()
"""What was typed before :func:`take`, read then (see :func:`typed_ahead`)."""


def take() -> bool:
    """Keys as typed, unechoed, from now on (when stdin is a terminal and this process is in its
    foreground: in the background, changing it would stop the process). True if taken."""
    global _before
    if _before is not None:
        return True
    if sys.platform == "win32":
        return False
    import termios

    try:
        fd = sys.stdin.fileno()
        if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            return False
        before = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[0] &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
        mode[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
        termios.tcsetattr(fd, termios.TCSANOW, mode)  # not TCSAFLUSH: what was typed stays
    except (OSError, ValueError, termios.error):
        return False
    _before = before
    _ahead.extend(_typed_ahead(fd))
    _mark_pastes(on=True)
    return True


PASTES_MARKED, PASTES_UNMARKED = b"\x1b[?2004h", b"\x1b[?2004l"
"""Bracketed paste on and off: a paste comes between ``ESC[200~`` and ``ESC[201~``."""


def _mark_pastes(*, on: bool) -> None:
    """Ask the terminal to mark pastes from now on (as Textual's driver does once it runs, some
    0.2-0.4 s later): unmarked, a paste of three lines came as typing, its line breaks as enter,
    and went as two messages, its last line left in the box. Written where Textual writes."""
    terminal = sys.__stderr__
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if terminal is not None and os.isatty(terminal.fileno()):
            os.write(terminal.fileno(), PASTES_MARKED if on else PASTES_UNMARKED)


def _typed_ahead(fd: int) -> bytes:
    """What the terminal's line editor already had: typed ahead, while the shell ran what came
    before ``circle``. It came through that editor, so enter in it is a line feed: made a carriage
    return, as enter is from now on (a line feed is ctrl+j, a new line in the input box)."""
    read = b""
    with contextlib.suppress(OSError):
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            read += chunk
    return read.replace(b"\n", b"\r")


def typed_ahead() -> str:
    """Once, the keys typed before :func:`take` (see :func:`_typed_ahead`), for the input box."""
    read = bytes(_ahead)
    _ahead.clear()
    return read.decode("utf-8", errors="replace")


def taken() -> bool:
    """Whether :func:`take` took the terminal (and :func:`give_back` has not given it back)."""
    return _before is not None


def before() -> list[Any] | None:
    """The terminal's settings before :func:`take` (None when it did not take it)."""
    return None if _before is None else list(_before)


def give_back() -> None:
    """The terminal as it was before :func:`take`, what is still to be read left in it."""
    global _before
    if _before is None:
        return
    saved, _before = _before, None
    _mark_pastes(on=False)  # as Textual's driver leaves it (a shell's readline asks again)
    import termios

    with contextlib.suppress(OSError, ValueError, termios.error):
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


__all__ = ["before", "give_back", "take", "taken", "typed_ahead"]
