"""Which stored messages the conversation's rows draw, so /undo and /redo change only the last turn.

/undo takes back the last turn's messages and /redo brings them back; the messages before them are
the same. Drawing the whole conversation again for that (two dozen Markdown answers, each some
12 ms) held the interface for a seventh of a second. :class:`Drawn` keeps, for the run of stored
messages the rows draw, each message's rows; :func:`redraw_in_place` then takes away the rows of
the messages gone and draws those added (and moves the tail's top to where a full redraw would
begin it), or says it cannot (other messages, rows still going in above) and the caller draws all.
The answers it adds are drawn on a thread before they are mounted (:func:`drawn_before_mount`):
drawing a 30-item list answer in the frame that lays them out held the keys typed for 40 ms more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from circle.domain.messages import Message, StopReason, TextPart, ThinkingPart, ToolCallPart, ToolResultPart
from circle.entrypoints.tui._format import STOPPED_LINE
from circle.entrypoints.tui.widgets.person import person_rows
from circle.entrypoints.tui.widgets.rows import Answer, Notice, Thinking, TurnLine
from circle.entrypoints.tui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from circle.entrypoints.tui.widgets.conversation import ConversationView

Drawing = list[tuple[Message, list[Widget]]]
"""Messages, each with the rows that draw it (none for a call's result: it shows in its call's row)."""


@dataclass
class Drawn:
    """The run of stored messages the rows draw: from :attr:`start` in the session's messages."""

    start: int = 0
    rows: Drawing = field(default_factory=list)

    def drew(self, start: int, drawing: Drawing) -> None:
        """The rows now draw ``drawing``, from message ``start`` on (a replay)."""
        self.start, self.rows = start, list(drawing)

    def drew_above(self, drawing: Drawing) -> None:
        """Earlier messages drawn above the others."""
        self.start, self.rows = self.start - len(drawing), [*drawing, *self.rows]

    def read_before(self, count: int) -> None:
        """The session read ``count`` messages before all it had: they come first in its list."""
        self.start += count


def _same(drawn: Drawing, messages: list[Message]) -> int:
    """How many of the messages drawn come first in ``messages``."""
    count = 0
    for (message, _), other in zip(drawn, messages, strict=False):
        if message is not other and message != other:
            break
        count += 1
    return count


@dataclass(frozen=True)
class InPlace:
    """What :func:`redraw_in_place` changes: the rows it adds (not mounted yet), those it keeps,
    and what mounts the added ones and takes away the others (awaiting it waits for both)."""

    added: list[Widget]
    kept: list[Widget]
    apply: Callable[[], Awaitable[None]]


def redraw_in_place(
    view: ConversationView, messages: list[Message], *, start: int, unread: int
) -> InPlace | None:
    """Make the rows draw ``messages[start:]`` (a full redraw's tail) by taking away and adding
    rows only; None when it cannot. The view's account of its rows is changed at once; the rows
    themselves when :attr:`InPlace.apply` is awaited.

    It can when the rows go in no longer, the first message beyond ``start`` or drawn is drawn
    and all drawn messages before the end are still ``messages``' own.
    """
    drawn = view.drawn
    if view.drawing_above or (view.earlier is not None) != bool(start or unread) or not drawn.rows:
        return None
    if drawn.start > len(messages) or start >= drawn.start + len(drawn.rows):
        return None
    same = _same(drawn.rows, messages[drawn.start :])
    end = drawn.start + same
    if same < len(drawn.rows) and end < len(messages):  # a message other than one drawn before
        return None
    kept = [row for _, rows in drawn.rows[:same] for row in rows]
    if not kept or start - drawn.start >= same:
        return None
    after = _after(view.children, kept[-1], drawn)
    if end < len(messages) and not all(isinstance(row, Notice) for row in after):
        return None  # rows shown live since: only a full redraw knows their messages
    gone = [*after, *(row for _, rows in drawn.rows[same:] for row in rows)]
    top: Drawing = []
    if start < drawn.start:
        top = view.draw(messages[start : drawn.start])
    else:
        gone += [row for _, rows in drawn.rows[: start - drawn.start] for row in rows]
    added = view.draw(messages[end:])
    drawn.rows = [*top, *drawn.rows[max(0, start - drawn.start) : same], *added]
    drawn.start = start
    if view.earlier is not None:
        view.earlier.wait_for(messages[:start], unread=unread)
    for call, row in list(view.tools.items()):
        if row in gone:
            del view.tools[call]
    upper = [row for _, rows in top for row in rows]
    lower = [row for _, rows in added for row in rows]

    async def apply() -> None:
        removed = view.remove_children(gone)
        above = view.mount_all(upper, before=kept[0]) if upper else None
        below = view.mount_all(lower, after=kept[-1]) if lower else None
        for waited in (removed, above, below):
            if waited is not None:
                await waited

    return InPlace([*upper, *lower], kept, apply)


class OneAtATime:
    """Redraws run one after the other, each to its end though what awaits it is cancelled (a
    slash command's worker is when another command starts)."""

    def __init__(self) -> None:
        self._under_way: asyncio.Future[None] | None = None

    async def run(self, redraw: Callable[[], Coroutine[Any, Any, None]]) -> None:
        while (under_way := self._under_way) is not None:
            await asyncio.wait([under_way])
        task = asyncio.ensure_future(redraw())
        self._under_way = task
        task.add_done_callback(self._ended)
        await asyncio.shield(task)

    def _ended(self, task: asyncio.Future[None]) -> None:
        if self._under_way is task:
            self._under_way = None


_drawer: list[ThreadPoolExecutor] = []


async def drawn_before_mount(rows: Sequence[Widget], *, like: Sequence[Widget]) -> None:
    """The answers among ``rows`` (not mounted) drawn on a thread of their own at the width and in
    the styles of the last answer drawn among ``like``: their first layout then draws nothing, and
    the event loop handles the keys typed meanwhile. Nothing is drawn when no answer of ``like``
    has been drawn yet (the layout draws them as before)."""
    answers = [row for row in rows if isinstance(row, Answer) and not row.is_attached]
    drawn = (row.drawn_at for row in reversed(like) if isinstance(row, Answer))
    at = next((got for got in drawn if got is not None), None)
    if not answers or at is None:
        return
    width, styles = at

    def draw() -> None:
        for answer in answers:
            answer.draw_before_mount(width, styles)

    if not _drawer:  # its own thread: the default pool may be busy with files or a snapshot
        _drawer.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="circle-draw"))
    await asyncio.get_running_loop().run_in_executor(_drawer[0], draw)


def _after(children: Sequence[Widget], last: Widget, drawn: Drawn) -> list[Widget]:
    """The rows after ``last`` that draw no message (lines said, rows shown live)."""
    mapped = {id(row) for _, rows in drawn.rows for row in rows}
    rows = list(children)
    at = rows.index(last) if last in rows else len(rows)
    return [row for row in rows[at + 1 :] if id(row) not in mapped]


Row = Static | Vertical | Markdown | Collapsible
"""A row of the conversation."""

CUT_SHORT = frozenset(
    {StopReason.ABORTED, StopReason.ERROR, StopReason.MAX_TOKENS, StopReason.INCOMPLETE, StopReason.FILTERED}
)
"""The ends of an answer that cut short whatever still streamed (its thinking says it was cut)."""


def _said_until(message: Message) -> int:
    """The index of ``message``'s last part that ended its thinking (text or a tool call); -1."""
    return max(
        (
            at
            for at, part in enumerate(message.parts)
            if isinstance(part, ToolCallPart) or (isinstance(part, TextPart) and part.text.strip())
        ),
        default=-1,
    )


def stored_rows(messages: list[Message], *, tools: dict[str, ToolRow]) -> list[Row]:
    """The rows that draw stored ``messages``, not yet mounted; each call's row goes in ``tools``."""
    rows: list[Row] = []
    add = rows.append
    for message in messages:
        if message.role == "user":
            rows.extend(person_rows(message, live=False))
            continue
        cut_after = _said_until(message) if message.stop_reason in CUT_SHORT else len(message.parts)
        for at, part in enumerate(message.parts):
            if isinstance(part, ThinkingPart) and part.text:
                block = Thinking(part.text)
                if at > cut_after:  # the answer stopped while this still streamed: as the live view
                    block.cut()
                else:
                    block.finish()
                add(block)
            elif isinstance(part, TextPart) and part.text.strip() and message.role == "assistant":
                add(Answer.stored(part.text))
            elif isinstance(part, ToolCallPart):
                row = ToolRow(part.id, part.name, part.parsed_arguments() or {})
                tools[part.id] = row
                add(row)
            elif isinstance(part, ToolResultPart) and (done := tools.get(part.tool_call_id)):
                done.stored_end(part)
        if message.role == "assistant" and message.stop_reason is StopReason.ABORTED:
            add(TurnLine(STOPPED_LINE))  # stopped while it streamed: marked as the live view did
    return rows


__all__ = [
    "CUT_SHORT",
    "Drawing",
    "Drawn",
    "InPlace",
    "OneAtATime",
    "drawn_before_mount",
    "redraw_in_place",
    "stored_rows",
]
