"""What the person's own commands said (the welcome, /help's and /hotkeys' lists) stays where it was
when the session's conversation is drawn again (/undo, /redo, /tree): it belongs to no message, so the
rows drawn from the session's messages would leave it out.

Each such row knows how many of the session's messages were said before it (:attr:`Said.after`).
Before a redraw :func:`said_rows` notes them; after it, :func:`put_back` draws again each one the
redraw took away, above the rows of the first message said after it (at the end when the messages
after it are gone: the turns taken back), and above the line the command said (``Undone …``).

The lines the view shows live and no stored message draws (the line under each turn, Circle's
notices: a mode or thinking level switched, an earlier ``Undone …``) stay too: the view notes
where each was said (:class:`Told`, by :meth:`~.conversation.ConversationView.add`), and a redraw
of the same session keeps those said before the messages it took away, where they were (the
in-place /undo kept the ones between the rows it kept and took away the rest: both ways now show
the same). A line said after a message no longer there (the turn taken back, another branch)
goes with it; one said among the messages that wait above a long session's tail is drawn with
them, when the view is scrolled up to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual.widget import Widget

from circle.domain.messages import Message
from circle.entrypoints.tui.widgets.earlier import Earlier
from circle.entrypoints.tui.widgets.rows import Notice, TurnLine

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


@dataclass(frozen=True, slots=True)
class Told:
    """Where a line was said: in ``session``, after ``after`` of its messages (those a resumed
    session has not read yet counted), the last of them ``last`` (None: before the first)."""

    session: str
    after: int
    last: Message | None


def is_line(row: Widget) -> bool:
    """A line the view shows live that no stored message draws: kept where it was (see above)."""
    return isinstance(row, (Notice, TurnLine)) and not isinstance(row, Said)


def said_rows(
    view: ConversationView, *, session: str, messages: Sequence[Message] = (), unread: int = 0
) -> list[tuple[int, Said | Widget]]:
    """The rows of ``view`` said in ``session`` to keep through a redraw of it (to ``messages``,
    after ``unread`` messages not read), in order, each with how many of ``messages`` came before
    it: the :attr:`Said.after` of the person's commands' rows, and the lines said after messages
    that are still there."""
    kept: list[tuple[int, Said | Widget]] = []
    for row in view.children:
        if isinstance(row, Said):
            if row.after is not None and row.session == session:
                kept.append((row.after, row))
        elif (told := view.told.get(row)) is not None and told.session == session:
            after = told.after - unread
            if _still_after(told, messages, after, unread=unread):
                kept.append((after, row))
    return kept


def _still_after(told: Told, messages: Sequence[Message], after: int, *, unread: int) -> bool:
    """The message a line was said after is still the one before it: ``after`` of ``messages``."""
    if not 0 <= after <= len(messages):
        return False
    if after == 0:
        return told.last is None and not unread
    found = messages[after - 1]
    return found is told.last or found == told.last


def _again(view: ConversationView, row: Said | Widget, after: int) -> Widget:
    """``row`` new, to be mounted in its place, knowing where it was said."""
    if isinstance(row, Said):
        again = row.again()
        assert isinstance(again, Said)
        again.after, again.session = after, row.session
        return again
    line: Notice | TurnLine
    if isinstance(row, TurnLine):
        line = TurnLine(row.text)
    else:
        assert isinstance(row, Notice)
        line = Notice("", kind=row.kind)
        line.update(row.content)
    line.add_class(*row.classes)
    if (told := view.told.get(row)) is not None:
        view.told[line] = told
    return line


def put_back(
    view: ConversationView, said: list[tuple[int, Said | Widget]], *, start: int, drawn: list[list[Widget]]
) -> None:
    """Draw again the ``said`` rows the redraw took away, each where it was: ``drawn`` are the
    rows of the session's messages from message ``start`` on, as the redraw drew them. A row that
    goes above a row of the tail still to be drawn (a slice above the rows on screen) goes in with
    that row's slice: mounted now, above the first row on screen, the slices went in above it.
    A line said among the messages above ``start`` (waiting above the rows drawn) waits with them,
    to be drawn where it was when they are (:meth:`~.conversation.ConversationView.wait_above`)."""
    mapped = {id(row) for rows in drawn for row in rows}
    placed: list[tuple[Widget, Widget | None]] = []  # each row again, above what (None: the end)
    for after, row in said:
        if not isinstance(row, Said) and after < start:  # its messages wait above the tail
            if row.parent is view:  # above the tail's top, which the redraw moved down
                row.remove()
            view.wait_above(after, _again(view, row, after))
            continue
        if isinstance(row, Widget) and row.parent is view:  # kept by the redraw where it was
            continue
        again = _again(view, row, after)
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


__all__ = ["Said", "Told", "is_line", "put_back", "said_rows"]
