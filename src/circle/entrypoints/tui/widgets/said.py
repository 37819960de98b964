"""What the person's own commands said (the welcome, /help's and /hotkeys' lists) stays where it was
when the session's conversation is drawn again (/undo, /redo, /tree): it belongs to no message, so the
rows drawn from the session's messages would leave it out.

Each such row knows how many of the session's messages were said before it (:attr:`Said.after`).
Before a redraw :func:`said_rows` notes them; after it, :func:`put_back` draws again each one the
redraw took away, above the rows of the first message said after it (at the end when the messages
after it are gone: the turns taken back), and above the line the command said (``Undone …``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.widget import Widget

from circle.entrypoints.tui.widgets.earlier import Earlier
from circle.entrypoints.tui.widgets.rows import Notice

if TYPE_CHECKING:
    from circle.entrypoints.tui.widgets.conversation import ConversationView


@runtime_checkable
class Said(Protocol):
    """A row the person's command said: kept through a redraw."""

    after: int | None
    """How many of the session's messages came before it (None: not kept)."""
    session: str | None
    """The session it was said in: a redraw of another (/new, /resume, /fork) does not keep it."""

    def again(self) -> Widget:
        """The same row, new (to be mounted in place of this one)."""
        ...


def said_rows(view: Widget, *, session: str) -> list[tuple[int, Said]]:
    """The rows of ``view`` said in ``session`` to keep through a redraw of it, in order, each with
    its :attr:`Said.after`."""
    return [
        (row.after, row)
        for row in view.children
        if isinstance(row, Said) and row.after is not None and row.session == session
    ]


def put_back(
    view: ConversationView, said: list[tuple[int, Said]], *, start: int, drawn: list[list[Widget]]
) -> None:
    """Draw again the ``said`` rows the redraw took away, each where it was: ``drawn`` are the
    rows of the session's messages from message ``start`` on, as the redraw drew them. A row that
    goes above a row of the tail still to be drawn (a slice above the rows on screen) goes in with
    that row's slice: mounted now, above the first row on screen, the slices went in above it."""
    mapped = {id(row) for rows in drawn for row in rows}
    placed: list[tuple[Widget, Widget | None]] = []  # each row again, above what (None: the end)
    for after, row in said:
        if isinstance(row, Widget) and row.parent is view:  # kept by the redraw where it was
            continue
        again = row.again()
        assert isinstance(again, Said)
        again.after, again.session = after, row.session
        placed.append((again, _before(view, after, start=start, drawn=drawn, mapped=mapped)))
    for index, (again, before) in enumerate(placed):
        if before is not None and view.slot_in(again, before=before):
            continue
        if index and placed[index - 1][1] is before:  # under the one put back above the same row
            view.mount(again, after=placed[index - 1][0])
        elif before is None:
            view.mount(again)
        else:
            view.mount(again, before=before)


def _before(
    view: ConversationView, after: int, *, start: int, drawn: list[list[Widget]], mapped: set[int]
) -> Widget | None:
    """The row ``after`` messages go above: the first of the messages after them (shown or still
    to be drawn above the rows shown), under the earlier messages not drawn yet (above them when
    ``after`` is 0); else the line said at the end (a notice that draws no message); None: the end."""
    children = list(view.children)
    earlier = next((row for row in children if isinstance(row, Earlier)), None)
    if after <= 0 and earlier is not None:
        return earlier
    for rows in drawn[max(0, after - start) :]:
        shown = next((row for row in rows if row.parent is view or view.goes_in_later(row)), None)
        if shown is not None:
            return shown
    trailing = None
    for row in reversed(children):
        if id(row) in mapped or not isinstance(row, Notice) or isinstance(row, Said):
            break
        trailing = row
    return trailing


__all__ = ["Said", "put_back", "said_rows"]
