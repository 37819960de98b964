"""Style codes written once: a frame's SGR sequences cut to those that change the terminal's style.

Textual styles each segment of a line on its own (``ESC[…m`` text ``ESC[0m``), so a line of three
segments in one style says that style three times, and the changed cells :class:`ScreenDiff`
writes are each reset and styled again. :func:`fewer_styles` keeps the style a frame asks for and
writes it only before the text it applies to, and only when it differs from the style the terminal
already has. Cursor moves (``ESC[row;colH``) do not touch the style, so they pass between; anything
else (text, line feeds, a scroll region, a link) gets the style asked for first.
"""

from __future__ import annotations

import re

_PIECES = re.compile(r"(\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H)")
_RESETS = ("\x1b[0m", "\x1b[m")


def fewer_styles(data: str) -> str:
    """``data`` with the SGR sequences that change nothing left out (the same screen, fewer bytes).

    The terminal's style before ``data`` is taken as unknown, and once ``data`` is written it has
    the style ``data`` leaves it in.
    """
    out: list[str] = []
    wanted = ""
    """The style asked for: the codes since the last reset, in order."""
    current: str | None = None
    """The style the terminal has (None: unknown, before the first text)."""
    styled = False
    for piece in _PIECES.split(data):
        if not piece:
            continue
        if piece.startswith("\x1b[") and piece.endswith("m"):
            wanted = "" if piece in _RESETS else wanted + piece
            styled = True
        elif piece.startswith("\x1b[") and piece.endswith("H"):
            out.append(piece)
        else:
            current = _restyle(out, current, wanted)
            out.append(piece)
    if styled:
        _restyle(out, current, wanted)
    return "".join(out)


def _restyle(out: list[str], current: str | None, wanted: str) -> str:
    """Append what turns the style ``current`` into ``wanted``; the style then."""
    if current == wanted:
        return wanted
    if current is not None and current and wanted.startswith(current):
        out.append(wanted[len(current) :])
    else:
        out.append("\x1b[0m" + wanted)
    return wanted


__all__ = ["fewer_styles"]
