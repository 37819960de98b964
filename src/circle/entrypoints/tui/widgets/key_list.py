"""A notice that lists names and what they do (``/help``, ``/hotkeys``): a description too long
for the width goes on under its own first word, so the names stay a column of their own. The
column is as wide as the names need, up to a third of the width: a longer name has a line of its
own, its description under it in the column; where the descriptions would get too few columns,
each goes under its name, indented."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group
from rich.console import RenderResult as RichResult
from rich.table import Table
from rich.text import Text
from textual.app import RenderResult

from circle.domain.display import escape_for_display
from circle.entrypoints.tui.widgets.conversation import Notice

INDENT = 2
"""Columns before each name."""
MIN_WHAT = 28
"""The fewest columns a description gets beside the names; fewer, and it goes under its name."""
UNDER = 4
"""Columns before a description under its name."""


class KeyList(Notice):
    """``title`` over ``rows`` of (name, what it does), each description wrapped with a hanging
    indent. Its ``content`` stays the plain text, as the other notices', for finding and copying.

    Args:
        title: the line above the list (``Keys:``).
        rows: each name and what it does.
    """

    after: int | None = None
    """Kept through a redraw after so many messages (see :mod:`.said`); None: not kept."""
    session: str | None = None
    """The session it was said in."""

    def __init__(self, title: str, rows: Sequence[tuple[str, str]]) -> None:
        self.title = title
        self.rows = tuple(rows)
        width = max((len(name) for name, _ in self.rows), default=0) + 2
        plain = "\n".join([title, *(f"{' ' * INDENT}{name:<{width}} {what}" for name, what in self.rows)])
        super().__init__(plain)
        self.name_width = width

    def again(self) -> KeyList:
        return KeyList(self.title, self.rows)

    def render(self) -> RenderResult:
        return Group(Text(escape_for_display(self.title)), _Rows(self.rows))


class _Rows:
    """The rows laid out at the width they are drawn in (measured and drawn again at each)."""

    def __init__(self, rows: tuple[tuple[str, str], ...]) -> None:
        self.rows = [(escape_for_display(name), escape_for_display(what)) for name, what in rows]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RichResult:
        width = options.max_width
        lengths = sorted(cell_len(name) for name, _ in self.rows)
        fits = [length for length in lengths if length <= max(12, width // 3)]
        column = max(fits or lengths[:1] or [0])
        if width - INDENT - column - 1 < MIN_WHAT:  # too narrow beside the names: under them
            for name, what in self.rows:
                yield Text(" " * INDENT + name)
                under = _grid(INDENT + UNDER - 1)
                under.add_row("", Text(what))
                yield under
            return
        table = _grid(INDENT + column)
        for name, what in self.rows:
            if cell_len(name) > column:  # a line of its own, its description under it in the column
                if table.row_count:
                    yield table
                yield Text(" " * INDENT + name)
                table = _grid(INDENT + column)
                table.add_row("", Text(what))
            else:
                table.add_row(Text(" " * INDENT + name), Text(what))
        if table.row_count:
            yield table


def _grid(names: int) -> Table:
    """Two columns: ``names`` wide for the names, the rest for what they do (wrapped)."""
    table = Table.grid(padding=(0, 1, 0, 0))
    table.add_column(width=names, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    return table


__all__ = ["KeyList"]
