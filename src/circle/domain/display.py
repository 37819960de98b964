"""Text shown to a person for a decision: nothing may hide in it.

:func:`escape_for_display` writes every character that would not show, or would move, reorder or
hide what follows, as an escape. :func:`command_lines` and :func:`one_line` build on it for a
command (or any tool call's argument): every line of it shown, runs of blank lines and of blanks
inside a line folded into a marker that says how many, so padding cannot push a second command out
of sight.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

_INVISIBLE = frozenset(
    (
        0x034F,
        0x061C,
        0x115F,
        0x1160,
        0x180E,
        0x200B,
        0x200C,
        0x200D,
        0x200E,
        0x200F,
        0x2028,
        0x2029,
        0x2060,
        0x3164,
        0xFEFF,
        0xFFA0,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
)
"""Shown as escapes though they are not format characters: line and paragraph separators, the
combining grapheme joiner and the blank Hangul fillers, besides the BiDi and zero-width ones."""

FOLD_BLANK_LINES = 2
"""This many blank lines in a row, or more, are shown as one marker line."""
FOLD_BLANKS = 16
"""More blanks than this in a row inside a line are shown as a marker."""
JOIN = " ⏎ "
"""Between the lines of a command shown on one line."""


def escape_for_display(text: str, *, newlines: bool = True) -> str:
    """Control characters, BiDi overrides and zero-width characters written as escapes, never raw.

    C0 and C1 controls (ESC and carriage return among them), DEL, BiDi embeddings, overrides and
    isolates (U+202A-202E, U+2066-2069), zero-width characters (U+200B-200F, U+2060, U+FEFF),
    line and paragraph separators (U+2028, U+2029) and every other format character become
    ``\\x1b``, ``\\u202e`` and the like. Tabs stay as they are.

    Args:
        text: What is to be shown.
        newlines: Keep line feeds, where several lines are shown on purpose; False writes them
            ``\\n`` too.
    """
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char == "\t" or (char == "\n" and newlines):
            out.append(char)
        elif char == "\n":
            out.append("\\n")
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code in _INVISIBLE or unicodedata.category(char) in ("Cf", "Co", "Cs"):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class ShownLine:
    """One line of a command as shown.

    Attributes:
        text: The line, escaped, with long runs of blanks folded (``⟨40 spaces⟩``); for a fold of
            blank lines, the marker itself (``⋯ 60 blank lines``).
        blank_lines: How many blank lines this marker stands for; 0 for a line of the command.
    """

    text: str
    blank_lines: int = 0


def _is_blank(char: str) -> bool:
    return char == "\t" or unicodedata.category(char) == "Zs"


def _fold_blanks(line: str) -> str:
    """The line with every run of more than :data:`FOLD_BLANKS` blanks written as a marker."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) > FOLD_BLANKS:
            kind = "spaces" if set(run) == {" "} else "blank characters"
            out.append(f" ⟨{len(run)} {kind}⟩ ")
        else:
            out.extend(run)
        run.clear()

    for char in line:
        if _is_blank(char):
            run.append(char)
            continue
        flush()
        out.append(char)
    flush()
    return escape_for_display("".join(out))


def split_lines(text: str) -> list[str]:
    """The command's lines: split at line feeds only (the shell's line breaks); one final line feed
    ends the last line rather than starting another."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def command_lines(text: str) -> tuple[ShownLine, ...]:
    """Every line of ``text`` to be shown, escaped, runs of blank lines folded into a marker.

    A blank line holds nothing but blanks; :data:`FOLD_BLANK_LINES` of them in a row or more
    become one :class:`ShownLine` that says how many there are.
    """
    shown: list[ShownLine] = []
    blanks = 0

    def flush() -> None:
        if blanks >= FOLD_BLANK_LINES:
            shown.append(ShownLine(f"⋯ {blanks} blank lines", blank_lines=blanks))
        else:
            shown.extend(ShownLine("") for _ in range(blanks))

    for line in split_lines(text):
        if all(_is_blank(char) for char in line):
            blanks += 1
            continue
        flush()
        blanks = 0
        shown.append(ShownLine(_fold_blanks(line)))
    flush()
    return tuple(shown)


def count_lines(text: str) -> int:
    """How many lines ``text`` has, as a person counts them: a final line feed ends the last line
    rather than starting another, and empty text has none."""
    return len(split_lines(text)) if text else 0


def lines_said(count: int) -> str:
    """``1 line``, ``201 lines``."""
    return f"{count} line{'' if count == 1 else 's'}"


def more_lines(text: str) -> str:
    """``(+60 more lines)`` for a command of 61 lines; empty for one of a single line."""
    more = len(split_lines(text)) - 1
    if more <= 0:
        return ""
    return f"(+{more} more line{'' if more == 1 else 's'})"


def one_line(text: str, limit: int = 100, *, count_lines: bool = False) -> str:
    """``text`` on one line: escaped, each line's blanks squeezed to one space, the lines that are
    not blank joined with `` ⏎ ``, cut to ``limit`` with ``…``.

    Args:
        text: A command, an argument, a title.
        limit: The longest the result may be (the line count included).
        count_lines: Add ``(+N more lines)`` when ``text`` has more than one line; it is never cut.
    """
    parts = [" ".join(escape_for_display(line).split()) for line in split_lines(text)]
    joined = JOIN.join(part for part in parts if part)
    suffix = f"  {more_lines(text)}" if count_lines and more_lines(text) else ""
    room = max(limit - len(suffix), 1)
    if len(joined) > room:
        joined = joined[: room - 1] + "…"
    return joined + suffix


__all__ = [
    "FOLD_BLANKS",
    "FOLD_BLANK_LINES",
    "JOIN",
    "ShownLine",
    "command_lines",
    "count_lines",
    "escape_for_display",
    "lines_said",
    "more_lines",
    "one_line",
    "split_lines",
]
