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

from rich.cells import cell_len

_MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")
_STYLE = re.compile(r"\x1b\[[0-9;:]*m|\x1b\]8;[^\x1b\x07]*(?:\x1b\\|\x07)")
_FORGETS = ("\x1b[2J", "\x1b[?1049", "\x1bc", "\x1b[H", "\x1b[J")
Span = tuple[int, int, str]
"""Where a span starts (column), how many cells it covers, and the text with its styles."""


class ScreenDiff:
    """What the terminal shows, span by span, and the frames written against it."""

    def __init__(self, columns: int = 0) -> None:
        self.rows: dict[int, list[Span]] = {}
        self.columns = columns
        """The terminal's width: a row is scrolled only when all of it is known."""

    def forget(self, *, columns: int | None = None) -> None:
        """The screen is unknown (resized, cleared, written by something else)."""
        self.rows.clear()
        if columns is not None:
            self.columns = columns

    def write(self, data: str) -> str:
        """What to send instead of ``data``: a frame with the spans already shown left out."""
        if not _MOVE.match(data):
            if any(code in data for code in _FORGETS):
                self.forget()
            return data
        spans = self._parse(data)
        if spans is None:
            self.forget()
            return data
        plain = self._emit(spans, self.rows)
        scrolled = self._scrolled(spans)
        if scrolled is not None and len(scrolled[0]) < len(plain[0]):
            out, self.rows = scrolled
            return out
        out, self.rows = plain
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
                out.append(f"\x1b[{y + 1};{x + 1}H{text}")
            if width:
                row[:] = [s for s in row if s[0] + s[1] <= x or s[0] >= x + width]
                row.append((x, width, text))
        return "".join(out), rows

    def _scrolled(self, spans: list[tuple[int, Span]]) -> tuple[str, dict[int, list[Span]]] | None:
        """The frame written after the terminal scrolls the rows it covers, if they moved up."""
        ys = sorted({y for y, span in spans if span[1]})
        if len(ys) < 3 or ys[-1] - ys[0] + 1 != len(ys):
            return None
        top, bottom = ys[0], ys[-1]
        new = {y: span for y, span in spans if span[1]}
        shift = self._shift(new, top, bottom)
        if shift is None:
            return None
        shown = {y: list(row) for y, row in self.rows.items()}
        for y in range(top, bottom + 1):  # the terminal moves rows up; those at the bottom blank
            source = y + shift
            shown[y] = list(self.rows.get(source, [])) if source <= bottom else []
        before = self.rows
        extra: list[tuple[int, Span]] = []
        for y in range(top, bottom + 1):  # spans Textual left alone stay where they were
            for span in before.get(y, []):
                covered = any(s[0] < span[0] + span[1] and span[0] < s[0] + s[1] for s in self._at(spans, y))
                if not covered:
                    extra.append((y, span))
        body, rows = self._emit(extra + spans, shown)
        scroll = f"\x1b[0m\x1b[{top + 1};{bottom + 1}r\x1b[{bottom + 1};1H" + "\n" * shift + "\x1b[r"
        return scroll + body, rows

    @staticmethod
    def _at(spans: list[tuple[int, Span]], y: int) -> list[Span]:
        return [span for row, span in spans if row == y and span[1]]

    def _shift(self, new: dict[int, Span], top: int, bottom: int) -> int | None:
        """How many rows up the known rows moved to show ``new``, if most rows match that way."""
        if any(not self._full(y) for y in range(top, bottom + 1)):
            return None
        where = {span: y for y in range(top, bottom + 1) for span in self.rows.get(y, [])}
        for y in range(top, bottom + 1):
            found = where.get(new[y]) if y in new else None
            if found is not None and found > y:
                shift = found - y
                matches = sum(1 for z in range(top, bottom + 1 - shift) if new.get(z) in self.rows[z + shift])
                if matches * 2 >= bottom - top + 1 - shift:
                    return shift
                return None
        return None

    def _full(self, y: int) -> bool:
        """Row ``y`` is known from its first column on, with no gaps."""
        edge = 0
        for x, width, _ in sorted(self.rows.get(y, [])):
            if x != edge:
                return False
            edge = x + width
        return self.columns > 0 and edge >= self.columns


__all__ = ["ScreenDiff"]
