"""A long resumed session draws its tail only: the earlier messages wait above, drawn on scroll-up.

Drawing every row of a 10,000-message session takes minutes and hundreds of MiB; a person sees
the last screens first. :class:`Earlier` is the conversation's first row while messages wait: it
says how many, and the conversation draws the next batch above the rows shown when the view
reaches the top (the place read stays where it was).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from circle.domain.messages import Message

TAIL = 60
"""Messages a resumed session draws at once at most: two or three screens of the last turns."""
BATCH = 100
"""Messages drawn above each time the view reaches the top."""
PIN_S = 5.0
"""Seconds at most the row read is held in place while the rows drawn above it take their heights
(a scroll by the person lets go sooner)."""


def tail_size(height: int) -> int:
    """Messages a resumed session draws first in a screen ``height`` lines tall: as many as fill it
    while the answers' Markdown is still being laid out (a person's message takes a line and the
    space after it), at most :data:`TAIL`. Fewer rows draw sooner."""
    return min(TAIL, height + 4)


def tail_start(messages: list[Message], *, keep: int) -> int:
    """Where the last ``keep`` messages begin, moved back to the person's message that opened the
    turn (a turn's calls and their results are drawn together); 0 when all fit."""
    start = len(messages) - keep
    if start <= 0:
        return 0
    while start > 0 and messages[start].role != "user":
        start -= 1
    return start


class Earlier(Static):
    """The first row while earlier messages wait: their count, and that scrolling up shows them."""

    def __init__(self, messages: list[Message], *, unread: int = 0) -> None:
        super().__init__(classes="notice info earlier")
        self.waiting = messages
        self.unread = unread
        """Messages before :attr:`waiting` the session has not read yet (it opened by its tail)."""
        self._say()

    def read(self, messages: list[Message]) -> None:
        """The unread messages have been read: ``messages`` wait above the others."""
        self.waiting, self.unread = [*messages, *self.waiting], 0
        self._say()

    def wait_for(self, messages: list[Message], *, unread: int) -> None:
        """``messages`` wait, and ``unread`` before them (the conversation drawn again)."""
        self.waiting, self.unread = messages, unread
        self._say()

    def take(self, count: int = BATCH) -> list[Message]:
        """The last ``count`` waiting messages (whole turns), no longer waiting."""
        start = tail_start(self.waiting, keep=count)
        taken, self.waiting = self.waiting[start:], self.waiting[:start]
        self._say()
        return taken

    def _say(self) -> None:
        count = len(self.waiting) + self.unread
        self.update(Text(f"↑ {count:,} earlier message{'' if count == 1 else 's'}: scroll up to show them"))


__all__ = ["BATCH", "PIN_S", "TAIL", "Earlier", "tail_size", "tail_start"]
