"""The interface has the terminal's keys as typed from its start (_keys_mode.py), in a real pty.

Before, until Textual's driver took the terminal some 0.15-0.3 s in, the terminal's own line editor
had them: 'hello', ←, backspace, 'X' wrote 'hello[X' (backspace ate the arrow's last byte), enter
came as ctrl+j, ctrl+c ended Circle, and what was typed was echoed onto the screen; a paste,
not yet marked as one, came as typing, each line break an enter.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

CHILD = """
import os, sys, termios, time
from circle.entrypoints.tui import _keys_mode
fd = sys.stdin.fileno()
before = termios.tcgetattr(fd)
print("taken" if _keys_mode.take() else "not taken", flush=True)
time.sleep(0.4)  # the keys come meanwhile, as while Textual loads
got = os.read(fd, 1024)
print("read", repr(got), flush=True)
_keys_mode.give_back()
print("given back" if termios.tcgetattr(fd) == before else "not given back", flush=True)
"""


def _run_in_pty(code: str, typed: bytes, *, after: bytes = b"taken") -> str:
    """``code`` run by Python in a pty, ``typed`` written to it once it printed ``after``; all
    it wrote until it said 'given back'."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.execv(sys.executable, [sys.executable, "-c", code])
    out = b""
    try:
        deadline = time.monotonic() + 15
        while after not in out and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                out += os.read(fd, 1024)
        os.write(fd, typed)
        while b"given back" not in out and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 1024)
                except OSError:
                    break
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    return out.decode(errors="replace")


def test_keys_typed_while_circle_starts_reach_it_as_typed_unechoed() -> None:
    out = _run_in_pty(CHILD, b"hello\x1b[D\x7fX\r\x03")
    assert "taken" in out and "not taken" not in out
    assert "read b'hello\\x1b[D\\x7fX\\r\\x03'" in out  # no line editing, enter a CR, ctrl+c a key
    assert "given back" in out and "not given back" not in out
    assert "hello" not in out.split("read", 1)[0]  # not echoed
    marked, unmarked = out.find("\x1b[?2004h"), out.find("\x1b[?2004l")
    assert 0 <= marked < out.index("read") < unmarked < out.index("given back")  # pastes marked meanwhile


def test_nothing_is_taken_without_a_terminal() -> None:
    code = "from circle.entrypoints.tui import _keys_mode as k; print(k.take(), k.taken(), k.before())"
    done = subprocess.run(
        [sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert done.stdout.split() == ["False", "False", "None"]


AHEAD = """
import sys, time
from circle.entrypoints.tui import _keys_mode
print("ready", flush=True)
time.sleep(0.5)  # typed ahead meanwhile, through the terminal's line editor
_keys_mode.take()
print("ahead", repr(_keys_mode.typed_ahead()), repr(_keys_mode.typed_ahead()), flush=True)
_keys_mode.give_back()
print("given back", flush=True)
"""


def test_keys_typed_ahead_are_read_when_circle_takes_the_terminal_enter_as_enter() -> None:
    """Typed while the shell still ran what came before, enter came through the line editor as a
    line feed, which is now ctrl+j (a new line): it is made enter again, once."""
    said = _run_in_pty(AHEAD, b"typed ahead\rand a dra\x7fft", after=b"ready")
    assert "ahead 'typed ahead\\rand a drft' ''" in said  # its backspace acted: drft
