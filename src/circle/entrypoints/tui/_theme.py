"""Dark or light, as the terminal is: asked of the terminal (OSC 11) before the app starts."""

from __future__ import annotations

import os
import re
import select
import sys
from collections.abc import Mapping

_REPLY = re.compile(rb"\]11;rgb:([0-9a-fA-F]+)/([0-9a-fA-F]+)/([0-9a-fA-F]+)")
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


def ask_terminal(timeout_s: float = 0.15) -> bytes:
    """The terminal's answer to ``OSC 11 ?``, or nothing when it does not answer in time."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return b""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    reply = b""
    try:
        tty.setraw(fd)
        os.write(sys.stdout.fileno(), b"\x1b]11;?\x07")
        while select.select([fd], [], [], timeout_s)[0]:
            reply += os.read(fd, 64)
            if reply.endswith((b"\x07", b"\x1b\\")):
                break
    except OSError:
        return b""
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    return reply


def terminal_theme(env: Mapping[str, str]) -> str:
    return theme_from_env(env) or theme_from_reply(ask_terminal()) or DARK


__all__ = ["DARK", "LIGHT", "terminal_theme", "theme_from_env", "theme_from_reply"]
