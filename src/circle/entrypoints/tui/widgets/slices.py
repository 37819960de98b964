"""A stored conversation's rows drawn in slices: those on screen first, then the ones above them.

Drawing a row's Markdown takes time (a 30-item list answer some 12 ms), and Textual lays out the
rows mounted together in one pass: a resumed tail or an /undo redraw of two dozen such answers held
the interface for half a second, and a key typed then showed late. So the rows go in slices: the
last ones, enough to fill the screen, in the first frame; then the rows above them a slice at a
time, each after the frame before it was drawn, so the keys typed meanwhile are handled and shown
between slices. The view follows its end throughout (rows added above an anchored view leave it
where it is).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.widget import Widget

from circle.entrypoints.tui.widgets.rows import Answer

SLICE_COST = 4_000
"""Characters of Markdown drawn per slice at most (about 25 ms), though always one row at least."""
ROW_COST = 200
"""What a row without Markdown counts for (a person's message, a tool row, a notice)."""


def _cost(row: Widget) -> int:
    return len(row.text) if isinstance(row, Answer) else ROW_COST


def _lines(row: Widget) -> int:
    """Lines ``row`` takes at least: an answer one for each line of its text (wrapping adds more)."""
    return row.text.count("\n") + 1 if isinstance(row, Answer) else 1


def first_slice(rows: Sequence[Widget], *, height: int) -> int:
    """Where the rows drawn first begin: the last ones, as many as fill ``height`` lines, and no
    fewer than one slice's worth."""
    lines = cost = 0
    start = len(rows)
    while start > 0 and (lines < height or cost < SLICE_COST):
        start -= 1
        lines, cost = lines + _lines(rows[start]), cost + _cost(rows[start])
    return start


def fill(rows: Sequence[Widget], *, height: int) -> bool:
    """``rows`` take ``height`` lines at least: laid out in a view that tall, they overflow it."""
    return sum(_lines(row) for row in rows) >= height


def slices_above(rows: Sequence[Widget]) -> list[list[Widget]]:
    """``rows`` cut into slices of :data:`SLICE_COST` at most, the last slice first (each is drawn
    above the one before it)."""
    cut: list[list[Widget]] = []
    end = len(rows)
    while end > 0:
        start, cost = end - 1, _cost(rows[end - 1])
        while start > 0 and cost + _cost(rows[start - 1]) <= SLICE_COST:
            start -= 1
            cost += _cost(rows[start])
        cut.append(list(rows[start:end]))
        end = start
    return cut


__all__ = ["ROW_COST", "SLICE_COST", "fill", "first_slice", "slices_above"]
