"""Style codes written once: a frame's SGR sequences cut to what changes the terminal's style.

Textual styles each segment of a line on its own (``ESC[…m`` text ``ESC[0m``), so a line of three
segments in one style says that style three times, and the changed cells :class:`ScreenDiff`
writes are each reset and styled again. :func:`fewer_styles` keeps the style a frame asks for and
writes it only before the text it applies to, and then only what differs from the style the
terminal already has (a new colour alone, a bold added; a reset when an attribute goes off).
Cursor moves (``ESC[row;colH``) do not touch the style, so they pass between; anything else (text,
line feeds, a scroll region, a link) gets the style asked for first. A long run of blanks in a
style where an erased cell looks the same is erased (ECH) rather than written."""

from __future__ import annotations

import re

_PIECES = re.compile(r"(\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H)")
_RESETS = ("\x1b[0m", "\x1b[m")
_CODES = re.compile(r"\x1b\[([0-9;:]*)m")
_BLANKS = re.compile(r" {6,}")
_BLANK_SAFE = {"", "0", "1", "2", "3", "22", "23", "39", "49"}
"""SGR parameters that do not show on a blank: bold, dim, italic, the default colours."""


def fewer_styles(data: str, *, style: str | None = None) -> str:
    """``data`` with the SGR sequences that change nothing left out (the same screen, fewer bytes).

    ``data`` starts in the plain style, as Textual's frames do; ``style``: the style the terminal
    has before it (None: unknown).
    """
    return styled_run(data, style=style)[0]


def styled_run(data: str, *, style: str | None = None) -> tuple[str, str | None]:
    """:func:`fewer_styles`, and the style the terminal has once it is written, which may not be
    the one ``data`` leaves (a style asked for after the last text is not written)."""
    out: list[str] = []
    wanted = ""
    """The style asked for: the codes since the last reset, in order (a frame starts plain)."""
    current = style
    """The style the terminal has (None: unknown, before the first text)."""
    pieces = [piece for piece in _PIECES.split(data) if piece]
    for index, piece in enumerate(pieces):
        if piece.startswith("\x1b[") and piece.endswith("m"):
            wanted = "" if piece in _RESETS else wanted + piece
        elif piece.startswith("\x1b[") and piece.endswith("H"):
            out.append(piece)
        else:
            current = _restyle(out, current, wanted)
            if "  " in piece and "\x1b" not in piece and _erases_alike(wanted):
                piece = _erased(piece, moved=_moves_next(pieces, index + 1))
            out.append(piece)
    return "".join(out), current


def _erased(text: str, *, moved: bool) -> str:
    """``text`` with its long runs of blanks erased (ECH, ``ESC[nX``) rather than written, the
    cursor moved past them (``ESC[nC``) unless the next write moves it anyway."""

    def erase(found: re.Match[str]) -> str:
        count = len(found[0])
        last = found.end() == len(text) and moved
        short = f"\x1b[{count}X" + ("" if last else f"\x1b[{count}C")
        return short if len(short) < count else found[0]

    return _BLANKS.sub(erase, text)


def _moves_next(pieces: list[str], start: int) -> bool:
    """The next thing written after ``pieces[:start]`` is a cursor move (or nothing)."""
    for piece in pieces[start:]:
        if piece.endswith("H") and piece.startswith("\x1b["):
            return True
        if not (piece.startswith("\x1b[") and piece.endswith("m")):
            return False
    return True


def _erases_alike(style: str) -> bool:
    """An erased cell looks like a blank written in ``style``: the terminal erases with the
    background colour (bce), and the style has nothing a blank would show (underline, reverse…)."""
    params = [p for codes in _CODES.findall(style) for p in codes.replace(":", ";").split(";")]
    index = 0
    while index < len(params):
        param = params[index]
        if param in ("38", "48"):
            index += 3 if params[index + 1 : index + 2] == ["5"] else 5
            continue
        if param not in _BLANK_SAFE:
            return False
        index += 1
    return True


def _restyle(out: list[str], current: str | None, wanted: str) -> str:
    """Append what turns the style ``current`` into ``wanted``; the style then."""
    if current == wanted:
        return wanted
    was, now = _state(current or ""), _state(wanted)
    if current is None or was is None or now is None or not now[0] >= was[0] or now == _PLAIN:
        out.append("\x1b[0m" + wanted)  # attributes to turn off, or codes not understood
    elif now != was:
        added = [code for code in _ORDER if code in now[0] - was[0]]
        colours = [now[1][k] or _DEFAULTS[k] for k in _DEFAULTS if now[1][k] != was[1][k]]
        out.append("\x1b[" + ";".join(added + colours) + "m")
    return wanted


def _state(codes: str) -> tuple[frozenset[str], dict[str, str]] | None:
    """What the SGR sequences ``codes`` set, after a reset: the attributes on and the colours
    (foreground, background, underline), or None for a parameter not understood."""
    flags: set[str] = set()
    colours = dict.fromkeys(_DEFAULTS, "")
    for found in _CODES.findall(codes):
        params = found.split(";")
        index = 0
        while index < len(params):
            param = params[index] or "0"
            if param == "0":
                flags.clear()
                colours = dict.fromkeys(_DEFAULTS, "")
            elif param in _ORDER:
                flags.add(param)
            elif param in _OFF:
                flags -= _OFF[param]
            elif param in ("38", "48", "58"):
                step = 3 if params[index + 1 : index + 2] == ["5"] else 5
                if (step == 5 and params[index + 1 : index + 2] != ["2"]) or index + step > len(params):
                    return None
                colours[param[0]] = ";".join(params[index : index + step])
                index += step
                continue
            elif param in ("39", "49", "59"):
                colours[param[0] if param != "59" else "5"] = ""
            elif len(param) == 2 and param[0] in "349" and param[1] in "01234567":
                colours["3" if param[0] in "39" else "4"] = param
            elif len(param) == 3 and param[:2] == "10" and param[2] in "01234567":
                colours["4"] = param
            else:
                return None
            index += 1
    return frozenset(flags), colours


_ORDER = ("1", "2", "3", "4", "5", "7", "8", "9", "21", "53")
"""Attributes a parameter turns on."""
_OFF = {"22": {"1", "2"}, "23": {"3"}, "24": {"4", "21"}, "25": {"5"}, "27": {"7"}, "28": {"8"}}
_OFF |= {"29": {"9"}, "55": {"53"}}
_DEFAULTS = {"3": "39", "4": "49", "5": "59"}
"""The colours by the first digit of their parameter, and what sets each back to the default."""
_PLAIN = (frozenset[str](), dict.fromkeys(_DEFAULTS, ""))


__all__ = ["fewer_styles", "styled_run"]
