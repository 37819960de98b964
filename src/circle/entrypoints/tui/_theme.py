"""Dark or light, as the terminal is: asked of the terminal (OSC 11) before the app starts.

Asking reads the terminal's input, where keys typed while Circle starts wait too: those are kept
apart from the answer and handed to the app (see ``_early_keys.py``), never thrown away."""

from __future__ import annotations

import os
import re
import select
import sys
from collections.abc import Mapping

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


def ask_terminal(timeout_s: float = 0.15) -> tuple[bytes, bytes]:
    """The terminal's answer to ``OSC 11 ?`` (nothing when it does not answer in time), and the
    bytes typed before the app could read them. The input is not flushed."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return b"", b""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    read = b""
    try:
        tty.setraw(fd, termios.TCSANOW)  # not TCSAFLUSH: what was typed stays
        os.write(sys.stdout.fileno(), b"\x1b]11;?\x07")
        while select.select([fd], [], [], timeout_s)[0]:
            read += os.read(fd, 1024)
            if _WHOLE_REPLY.search(read):
                break
    except OSError:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)  # output drained; input kept
    return split_reply(read)


def terminal_theme(env: Mapping[str, str]) -> tuple[str, str]:
    """The theme (CIRCLE_THEME, COLORFGBG, else the terminal's answer) and the text typed before
    the app started, which belongs in its input box."""
    if (chosen := theme_from_env(env)) is not None:
        return chosen, ""
    reply, typed = ask_terminal()
    return theme_from_reply(reply) or DARK, typed.decode("utf-8", errors="replace")


__all__ = ["DARK", "LIGHT", "split_reply", "terminal_theme", "theme_from_env", "theme_from_reply"]
