"""Only what changed goes to the terminal: Textual's frames filtered against what the screen shows.

Textual redraws a whole widget when it scrolls, so a conversation that follows a streamed answer
rewrites every row of the view for each new line. :class:`ScreenDiff` keeps, per screen row, the
spans it last wrote; a span the screen already shows is left out, and a view whose rows moved up
is scrolled by the terminal itself (a scroll region and line feeds, VT100) before the rows that
are still new are written. Anything in a write it does not understand makes it forget the screen,
so the next frames are written whole: it can only leave things out that are surely there.
"""

from __future__ import annotations

import re
from collections import Counter

from rich.cells import cell_len

from circle.entrypoints.tui._sgr import styled_run

_MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
_STYLE = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x1b\x07]*(?:\x1b\\|\x07)")
_SGR_SPLIT = re.compile(r"(\x1b\[[0-9;:]*m)")
_FORGETS = ("\x1b[2J", "\x1b[?1049", "\x1bc", "\x1b[H", "\x1b[J")
SYNC = ("\x1b[?2026h", "\x1b[?2026l")
"""Synchronized output's start and end of a frame: they leave the cursor where it is."""
Span = tuple[int, int, str]
"""Where a span starts (column), how many cells it covers, and the text with its styles."""


class ScreenDiff:
    """What the terminal shows, span by span, and the frames written against it."""

    def __init__(self, columns: int = 0) -> None:
        self.rows: dict[int, list[Span]] = {}
        self.columns = columns
        """The terminal's width: a row is scrolled only when all of it is known."""
        self.cursor: tuple[int, int] | None = None
        """Where the last frame left the cursor (row, column), when nothing has moved it since."""
        self.style: str | None = None
        """The style (SGR codes since a reset) the last frame left the terminal in, if known: a
        frame's last style is not reset, the next frame goes on from it."""

    def forget(self, *, columns: int | None = None) -> None:
        """The screen is unknown (resized, cleared, written by something else)."""
        self.rows.clear()
        self.cursor = self.style = None
        if columns is not None:
            self.columns = columns

    def write(self, data: str) -> str:
        """What to send instead of ``data``: a frame with the spans already shown left out."""
        framed = _MOVE.match(data) is not None
        spans = self._parse(data) if framed else None
        if spans is None:
            if data in SYNC:
                return data
            out = "\x1b[0m" + data if self.style else data  # a frame's style is left on
            if framed or any(code in data for code in _FORGETS):
                self.forget()
            self.cursor = self.style = None
            return out
        plain = self._emit(spans, self.rows)
        scrolled = self._scrolled(spans)
        if scrolled is not None and len(scrolled[0]) < len(plain[0]):
            out, self.rows = scrolled
        else:
            out, self.rows = plain
        out, self.style = styled_run(self._moved(out, spans[-1]), style=self.style)
        return out

    def _moved(self, out: str, last: tuple[int, Span]) -> str:
        """``out``, or nothing when all it does is put the cursor back where it already is (a
        frame of a widget that redrew what it showed)."""
        y, (x, width, text) = last
        move = f"\x1b[{y + 1};{x + 1}H"
        if width or text or not out.endswith(move):
            self.cursor = None
            return out
        if out == move and self.cursor == (y, x):
            return ""
        self.cursor = (y, x)
        return out

    @staticmethod
    def _parse(data: str) -> list[tuple[int, Span]] | None:
        """The frame's spans as (row, span); the last one, the cursor's place, has no cells."""
        spans: list[tuple[int, Span]] = []
        pieces = _MOVE.split(data)
        if pieces[0]:
            return None
        for index in range(1, len(pieces), 3):
            y, x, text = int(pieces[index]) - 1, int(pieces[index + 1]) - 1, pieces[index + 2]
            if text.endswith("\n"):
                text = text[:-2] if text.endswith("\r\n") else text[:-1]
            plain = _STYLE.sub("", text)
            if "\x1b" in plain or "\n" in plain or "\r" in plain:
                return None
            spans.append((y, (x, cell_len(plain), text)))
        return spans

    @staticmethod
    def _emit(
        spans: list[tuple[int, Span]], known: dict[int, list[Span]]
    ) -> tuple[str, dict[int, list[Span]]]:
        rows = {y: list(row) for y, row in known.items()}
        out: list[str] = []
        for index, (y, (x, width, text)) in enumerate(spans):
            row = rows.setdefault(y, [])
            if width and (x, width, text) in row:
                continue
            if width or index == len(spans) - 1:
                shown = next((t for sx, sw, t in row if (sx, sw) == (x, width)), None)
                changed = _changed(y, x, shown, text) if shown is not None else None
                out.append(f"\x1b[{y + 1};{x + 1}H{text}" if changed is None else changed)
            if width:
                row[:] = [piece for span in row for piece in _outside(span, x, x + width)]
                row.append((x, width, text))
        return "".join(out), rows

    def _scrolled(self, spans: list[tuple[int, Span]]) -> tuple[str, dict[int, list[Span]]] | None:
        """The frame written after the terminal scrolls the longest run of rows it rewrites, if
        those rows moved up."""
        widest: dict[int, Span] = {}
        for y, span in spans:
            if span[1] > widest.get(y, (0, 0, ""))[1]:
                widest[y] = span
        block = _longest_run(sorted(widest))
        if block is None:
            return None
        top, bottom = block
        before = self.rows
        extra: list[tuple[int, Span]] = []
        for y in range(top, bottom + 1):  # spans Textual left alone must stay where they are
            written = self._at(spans, y)
            kept = [span for span in before.get(y, []) if not any(_overlap(span, s) for s in written)]
            if not _covers([*written, *kept], self.columns):
                return None
            extra += [(y, span) for span in kept]
        shift = self._shift(widest, top, bottom)
        if shift is None:
            return None
        shown = {y: list(row) for y, row in before.items()}
        for y in range(top, bottom + 1):  # the terminal moves rows up; those at the bottom blank
            shown[y] = list(before.get(y + shift, [])) if y + shift <= bottom else []
        body, rows = self._emit(extra + spans, shown)
        scroll = f"\x1b[0m\x1b[{top + 1};{bottom + 1}r\x1b[{bottom + 1};1H" + "\n" * shift + "\x1b[r"
        return scroll + body, rows

    @staticmethod
    def _at(spans: list[tuple[int, Span]], y: int) -> list[Span]:
        return [span for row, span in spans if row == y and span[1]]

    def _shift(self, new: dict[int, Span], top: int, bottom: int) -> int | None:
        """How many rows up the known rows moved to show ``new``: the move most rows agree on
        (rows that occur more than once, like blank ones, say nothing), if most rows match it."""
        where: dict[Span, int | None] = {}
        for y in range(top, bottom + 1):
            for span in self.rows.get(y, []):
                where[span] = None if span in where else y
        votes = Counter(
            found - y
            for y in range(top, bottom + 1)
            if (found := where.get(new[y])) is not None and found > y
        )
        if not votes:
            return None
        shift = votes.most_common(1)[0][0]
        rows = range(top, bottom + 1 - shift)
        matches = sum(1 for z in rows if new[z] in self.rows.get(z + shift, []))
        return shift if matches * 2 >= len(rows) else None


def _cells(text: str) -> list[tuple[str, str]] | None:
    """A span's cells as (style, character), or None when it is not one cell per character."""
    cells: list[tuple[str, str]] = []
    style = ""
    for part in _SGR_SPLIT.split(text):
        if not part:
            continue
        if _SGR_SPLIT.fullmatch(part):
            style = "" if part in ("\x1b[0m", "\x1b[m") else style + part
            continue
        if "\x1b" in part or (not part.isascii() and cell_len(part) != len(part)):
            return None  # a link's escape, or characters wider or narrower than one cell
        cells.extend((style, char) for char in part)
    return cells


def _changed(y: int, x: int, shown: str, text: str) -> str | None:
    """The writes that turn the span ``shown`` into ``text`` cell by cell (None: write it whole)."""
    old, new = _cells(shown), _cells(text)
    if old is None or new is None or len(old) != len(new):
        return None
    out: list[str] = []
    index = 0
    while index < len(new):
        if new[index] == old[index]:
            index += 1
            continue
        end = index
        while end < len(new) and (
            new[end] != old[end] or (end + 1 < len(new) and new[end + 1] != old[end + 1])
        ):
            end += 1
        out.append(f"\x1b[{y + 1};{x + index + 1}H" + _styled(new[index:end]))
        index = end
    return "".join(out)


def _styled(cells: list[tuple[str, str]]) -> str:
    out: list[str] = []
    style = None
    for cell_style, char in cells:
        if cell_style != style:
            out.append("\x1b[0m" + cell_style)
            style = cell_style
        out.append(char)
    out.append("\x1b[0m")
    return "".join(out)


def _outside(span: Span, start: int, end: int) -> list[Span]:
    """What stays of ``span`` once cells ``start`` to ``end`` are written over (nothing when its
    cells cannot be told apart)."""
    x, width, text = span
    if x + width <= start or x >= end:
        return [span]
    cells = _cells(text)
    if cells is None or len(cells) != width:
        return []
    kept: list[Span] = []
    if x < start:
        kept.append((x, start - x, _styled(cells[: start - x])))
    if x + width > end:
        kept.append((end, x + width - end, _styled(cells[end - x :])))
    return kept


def _longest_run(ys: list[int]) -> tuple[int, int] | None:
    """The longest run of consecutive rows (at least three), as (first, last)."""
    best: tuple[int, int] | None = None
    start = 0
    for index in range(1, len(ys) + 1):
        if index == len(ys) or ys[index] != ys[index - 1] + 1:
            first, last = ys[start], ys[index - 1]
            if last - first >= 2 and (best is None or last - first > best[1] - best[0]):
                best = (first, last)
            start = index
    return best


def _overlap(a: Span, b: Span) -> bool:
    return a[0] < b[0] + b[1] and b[0] < a[0] + a[1]


def _covers(spans: list[Span], columns: int) -> bool:
    """The spans together cover the row from its first column to its last."""
    edge = 0
    for x, width, _ in sorted(spans):
        if x > edge:
            return False
        edge = max(edge, x + width)
    return columns > 0 and edge >= columns


__all__ = ["ScreenDiff"]
