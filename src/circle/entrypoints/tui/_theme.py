"""Dark or light, as the terminal is: asked of the terminal (OSC 11) before Textual loads.

Asking reads the terminal's input, where keys typed while Circle starts wait too: those are kept
apart from the answer and handed to the app (see ``_early_keys.py``), never thrown away."""

from __future__ import annotations

import contextlib
import os
import re
import select
import sys
import time
from collections.abc import Mapping

from circle.entrypoints.tui import _keys_mode as keys_mode

_REPLY = re.compile(rb"\]11;rgb:([0-9a-fA-F]+)/([0-9a-fA-F]+)/([0-9a-fA-F]+)")
_WHOLE_REPLY = re.compile(rb"\x1b\]11;[^\x07\x1b]*(?:\x07|\x1b\\)")
DARK, LIGHT = "textual-dark", "textual-light"


def theme_from_reply(reply: bytes) -> str | None:
    """The theme for a terminal's answer to ``OSC 11 ?`` (its background colour)."""
    found = _REPLY.search(reply)
    if found is None:
        return None
    r, g, b = (int(part[:2].ljust(2, b"0"), 16) / 255 for part in found.groups())
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return LIGHT if luminance > 0.5 else DARK


def theme_from_env(env: Mapping[str, str]) -> str | None:
    """CIRCLE_THEME (dark or light), else COLORFGBG's background."""
    chosen = env.get("CIRCLE_THEME", "").strip().lower()
    if chosen in ("dark", "light"):
        return DARK if chosen == "dark" else LIGHT
    fgbg = env.get("COLORFGBG", "")
    if fgbg:
        background = fgbg.split(";")[-1]
        if background.isdigit():
            return LIGHT if int(background) in (7, 15) else DARK
    return None


def split_reply(read: bytes) -> tuple[bytes, bytes]:
    """What was read after asking ``OSC 11 ?``: (the terminal's answer, the keys typed around it)."""
    found = _WHOLE_REPLY.search(read)
    if found is None:
        return b"", read
    return found.group(), read[: found.start()] + read[found.end() :]


class TerminalQuestion:
    """``OSC 11 ?`` asked of the terminal when made, its answer read by :meth:`answer`.

    The interface asks before it loads Textual and reads the answer after, so the terminal answers
    while Textual loads; one that never answers (tmux 3.3) held the first frame 0.15 s when the
    question came after. It asks only once the interface has the keys as typed (``_keys_mode.py``):
    nothing echoes, and what is typed stays in the terminal's input, unedited.

    Args:
        env: CIRCLE_THEME or COLORFGBG there say the theme without asking.
        timeout_s: How long after asking an answer is waited for.
    """

    def __init__(self, env: Mapping[str, str], *, timeout_s: float = 0.15) -> None:
        self.theme = theme_from_env(env)
        self._asked = False
        self._deadline = time.monotonic() + timeout_s
        if self.theme is None and keys_mode.taken() and sys.stdout.isatty():
            with contextlib.suppress(OSError):
                os.write(sys.stdout.fileno(), b"\x1b]11;?\x07")
                self._asked = True

    def answer(self) -> tuple[str, str]:
        """The theme (CIRCLE_THEME, COLORFGBG, else the terminal's answer), and the text typed
        before the app started, which belongs in its input box. The input is not flushed."""
        if not self._asked:
            return self.theme or DARK, ""
        self._asked = False
        fd, read = sys.stdin.fileno(), b""
        try:
            while select.select([fd], [], [], max(0.0, self._deadline - time.monotonic()))[0]:
                chunk = os.read(fd, 1024)
                read += chunk
                if not chunk or _WHOLE_REPLY.search(read):
                    break
        except OSError:
            pass
        reply, typed = split_reply(read)
        return theme_from_reply(reply) or DARK, typed.decode("utf-8", errors="replace")


__all__ = [
    "DARK",
    "LIGHT",
    "TerminalQuestion",
    "split_reply",
    "theme_from_env",
    "theme_from_reply",
]
