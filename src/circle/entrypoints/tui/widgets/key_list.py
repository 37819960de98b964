"""A notice that lists names and what they do (``/help``, ``/hotkeys``): a description too long
for the width goes on under its own first word, so the names stay a column of their own."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import RenderResult

from circle.domain.display import escape_for_display
from circle.entrypoints.tui.widgets.conversation import Notice

INDENT = 2
"""Columns before each name."""


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
        table = Table.grid(padding=(0, 1, 0, 0))
        table.add_column(width=INDENT + self.name_width, no_wrap=True)
        table.add_column(ratio=1, overflow="fold")
        for name, what in self.rows:
            table.add_row(Text(" " * INDENT + escape_for_display(name)), Text(escape_for_display(what)))
        parts: list[RenderableType] = [Text(escape_for_display(self.title)), table]
        return Group(*parts)


__all__ = ["KeyList"]
