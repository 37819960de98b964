"""A program in a pseudo-terminal, read as a person would see it: for the interface benches.

Everything the program writes is counted, timestamped when it is read and fed to a pyte screen, so
a bench can ask "what does the screen show now" and "how many bytes went to the terminal". The
terminal's answers to the queries Textual sends (cursor position, background colour, DECRQM for
synchronized output) are given at once; ``sync`` says whether this terminal claims mode 2026.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pyte

SYNC_QUERY = b"\x1b[?2026$p"
SYNC_ON, SYNC_OFF = b"\x1b[?2026h", b"\x1b[?2026l"


class PtyScreen:
    """``argv`` running in a ``columns`` x ``rows`` pseudo-terminal, read through :meth:`pump`."""

    def __init__(
        self,
        argv: list[str],
        *,
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int] = (140, 45),
        sync: bool = True,
        background: bool = True,
    ) -> None:
        columns, rows = size
        self.sync = sync
        self.background = background
        """Whether this terminal answers OSC 11 (its background colour): tmux 3.3 does not."""
        self.start = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the program
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.bytes = 0
        self.frames = 0
        """Synchronized frames seen (``ESC[?2026h``)."""
        self.closed = False
        self.max_rss_kib = 0
        self.log: list[bytes] | None = None
        """When a list, every chunk the program wrote is kept in it."""

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def pump(self, timeout: float) -> float | None:
        """Read what the program wrote within ``timeout`` seconds; the read's time, or None."""
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        if not ready:
            return None
        try:
            chunk = os.read(self.fd, 1 << 20)
        except OSError:
            self.closed = True
            return None
        when = time.perf_counter()
        if not chunk:
            self.closed = True
            return None
        self.bytes += len(chunk)
        if self.log is not None:
            self.log.append(chunk)
        self.frames += chunk.count(SYNC_ON)
        if b"\x1b[6n" in chunk:
            os.write(self.fd, b"\x1b[1;1R")
        if b"\x1b]11;?" in chunk and self.background:
            os.write(self.fd, b"\x1b]11;rgb:0000/0000/0000\x07")
        if SYNC_QUERY in chunk and self.sync:
            os.write(self.fd, b"\x1b[?2026;2$y")
        self.stream.feed(chunk)
        return when

    def until(self, found: Callable[[str], bool], *, timeout: float = 30, what: str = "") -> float:
        """Pump until the screen shows what ``found`` looks for; the time of the read that showed it."""
        deadline = time.perf_counter() + timeout
        while not found(self.text()):
            if self.closed or time.perf_counter() > deadline:
                raise SystemExit(f"the screen never showed {what or found}:\n{self.text()}")
            self.pump(deadline - time.perf_counter())
        return time.perf_counter()

    def settle(self, quiet: float = 0.3, *, timeout: float = 10) -> None:
        """Pump until the program writes nothing for ``quiet`` seconds."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline and self.pump(quiet) is not None:
            pass

    def send(self, keys: bytes) -> float:
        os.write(self.fd, keys)
        return time.perf_counter()

    def key_latency(self, key: str, *, typed: str, timeout: float = 5) -> float:
        """Seconds from sending ``key`` until the screen shows ``typed`` (all typed so far, with it)."""
        sent = self.send(key.encode())
        deadline = sent + timeout
        while typed not in self.text():
            if self.closed or time.perf_counter() > deadline:
                raise SystemExit(f"{key!r} never showed on the screen:\n{self.text()}")
            when = self.pump(deadline - time.perf_counter())
            if when is not None and typed in self.text():
                return when - sent
        return time.perf_counter() - sent

    def close(self) -> int:
        """Stop the program; its peak resident set in KiB."""
        if self.pid:
            os.kill(self.pid, 9)
            _, _, usage = os.wait4(self.pid, 0)
            self.max_rss_kib = usage.ru_maxrss
            os.close(self.fd)
            self.pid = 0
        return self.max_rss_kib


def trial_env(home: Path, *, url: str, model: str) -> dict[str, str]:
    """The environment a bench runs ``circle`` in: this one without Circle's or the SDKs' own
    variables, a throwaway ``home``, the scripted endpoint at ``url`` and its ``model``."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))}
    return {
        **kept,
        "CIRCLE_HOME": str(home),
        "CIRCLE_BASE_URL": url,
        "CIRCLE_API_KEY": "k",
        "CIRCLE_MODEL": model,
        "CIRCLE_CATALOG_REFRESH": "0",
        "TERM": "xterm-256color",
        "CIRCLE_THEME": "dark",
    }
