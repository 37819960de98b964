"""The conversation: the person's messages, streamed answers, folded thinking and tool rows.

Events come down from the screen (:meth:`ConversationView.apply`); events it does not know are
ignored, so newer kinds of events never break an older view.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from weakref import WeakKeyDictionary

from textual import events
from textual import message as ui
from textual.containers import Vertical
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import AwaitMount, Widget
from textual.widgets import Collapsible, Markdown, Static

from circle.application.events import (
    BudgetWarned,
    CompactionEnded,
    CompactionStarted,
    ErrorReported,
    MessageEnded,
    MessageStarted,
    MessageUpdated,
    SubagentEvent,
    ToolExecutionEnded,
    ToolExecutionStarted,
    ToolExecutionUpdated,
    TurnEnded,
)
from circle.domain.messages import Message, StopReason
from circle.entrypoints.tui._format import compaction_line, tool_title
from circle.entrypoints.tui._preview import PreviewShown
from circle.entrypoints.tui.widgets.drawn import (
    CUT_SHORT,
    Drawing,
    Drawn,
    OneAtATime,
    drawn_before_mount,
    redraw_in_place,
    stored_rows,
)
from circle.entrypoints.tui.widgets.earlier import BATCH, Earlier, tail_size, tail_start
from circle.entrypoints.tui.widgets.held_view import HeldView
from circle.entrypoints.tui.widgets.person import UserRow, person_rows
from circle.entrypoints.tui.widgets.rows import Answer, Notice, Thinking, TurnLine
from circle.entrypoints.tui.widgets.said import Told, is_line
from circle.entrypoints.tui.widgets.shell_row import ShellRow
from circle.entrypoints.tui.widgets.slices import fill, first_slice, slices_above
from circle.entrypoints.tui.widgets.stale_keys import type_outside
from circle.entrypoints.tui.widgets.tool_row import FILE_TOOLS, ToolRow, command_text, diff_text

Differ = Callable[[str], Awaitable[str | None]]
"""A file call's real diff by its call id (from the file as it was when the call started)."""

HOLD_S = 1.0
"""Seconds at most the frames wait for a resumed tail's rows to be mounted whole."""

AT_ONCE = 300
"""Earlier messages ctrl+home and ctrl+f draw at once at most (ctrl+o's transcript has them all)."""

STEERED = "↳ the model reads this before its next step"
"""The hint right under a message steered into the running turn."""

_SAID_ELSEWHERE = (StopReason.ABORTED, StopReason.ERROR)
"""A streamed answer cut by these is told by the error line or the turn's end, not again here."""


async def _done(mounted: AwaitMount) -> None:
    await mounted


class ConversationView(HeldView):
    """The scrolling conversation, built from events or from a stored session's messages.

    It follows its end (anchored): rows added, rows that grow later (a streamed answer, a tool's
    output), a resize. Scrolling up lets go; scrolling back to the end, or :meth:`follow`, follows
    again. Let go above the end (a scroll up, tab to a row above), or with output arriving
    below, it posts :class:`UnseenChanged`: the marker says the end is below.
    """

    FOCUS_ON_CLICK = False
    """A click on what was said (to select it, or by chance) leaves the cursor in the input box:
    it took the focus, and ctrl+u and enter no longer reached the box. Tab still reaches the rows."""

    class UnseenChanged(ui.Message):
        """The view was let go above the end (``unseen``), output arrived below the part shown
        since (``arrived``), or the view is at the end again."""

        def __init__(self, unseen: bool, *, arrived: bool = False) -> None:
            super().__init__()
            self.unseen = unseen
            self.arrived = arrived

    class EarlierRead(ui.Message):
        """The messages a resumed session was opened without are read: they wait above the rows."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.answer: Answer | None = None
        self.thinking: Thinking | None = None
        self.tools: dict[str, ToolRow] = {}
        self.compacting: Notice | None = None
        self.differ: Differ | None = None
        self.unseen = False
        self.arrived = False
        """Output arrived below the part shown since the view was let go above the end."""
        self.steering: list[tuple[str, UserRow, Notice]] = []
        """The messages steered into the running turn that it has not read yet: each with its row
        and the hint under it."""
        self.earlier: Earlier | None = None
        """The first row while a resumed session's earlier messages wait to be drawn."""
        self._slices: list[list[Widget]] = []
        """A stored tail's rows still to draw above the ones shown, the nearest first (slices.py),
        or earlier messages' rows still to draw, in the order they go in."""
        self._down_to: Widget | None = None
        """While earlier messages go in from the top down (ctrl+home): the row they go above."""
        self._when_drawn: list[Callable[[], None]] = []
        """Called once the rows being drawn in slices are all in (see :meth:`draw_waiting`)."""
        self.drawn = Drawn()
        """The stored messages the rows draw, each with its rows (for /undo and /redo)."""
        self.slices_held = False
        """For tests: the slices wait for calls to :meth:`next_slice` rather than a frame each."""
        self._redraws = OneAtATime()
        self._home = False
        self._holding: asyncio.Task[None] | None = None
        """Holds the frames until a resumed tail's rows are mounted (see :meth:`_no_frame_until`)."""
        self.session_of: Callable[[], str] | None = None
        """The open session's id (set by the screen): the lines said are noted in :attr:`told`."""
        self.told: WeakKeyDictionary[Widget, Told] = WeakKeyDictionary()
        """Where each line shown live was said, to keep it through a redraw (see :mod:`.said`)."""
        self._seen: tuple[int, Message | None] = (0, None)
        """The session's messages the rows have shown so far (those not read counted), the last."""
        self._above: list[tuple[int, Widget]] = []
        """Lines said among the messages waiting above the rows, each with how many messages came
        before it: drawn with those messages (see :mod:`.said`)."""
        """ctrl+home came while earlier messages were still to be read or the tail drawn: it goes
        on once they are (unless the view was sent back to the end meanwhile)."""

    def follow(self) -> None:
        """Go to the end and follow it again (once the new layout is known)."""
        self._home = False
        self._set_unseen(False)
        self.call_after_refresh(self._anchor_if_taller)

    def on_key(self, event: events.Key) -> None:
        type_outside(self, event)

    def skips(self, row: Widget) -> bool:
        return row is self.earlier

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.unseen and self.following:
            self._set_unseen(False)
        elif not self.following and new_value < self.max_scroll_y:  # let go above the end: by a
            self._set_unseen(True)  # scroll, or tab to a row above (the marker says where it is)
        self.held_scrolled(new_value)
        if new_value <= 0 and self.earlier is not None:
            self._draw_earlier()

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        if self.held_resized():  # rows drawn above, growing as they draw: the place read stays
            return
        if not self.following:
            if new.height > old.height and self.max_scroll_y > self.scroll_y:
                self._set_unseen(True, arrived=True)
            return
        self._anchor_if_taller()

    def on_resize(self) -> None:
        if self.following:
            self._anchor_if_taller()

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """The rows laid out; an anchor let go once they all fit (Textual would scroll an anchored
        view to its last row unchecked: above the top, a blank line first, when it has grown to
        fit its rows, as under an approval card once the busy line goes)."""
        arranged = super().arrange(size, optimal)
        view = self.container_size.height - self.scrollbar_size_horizontal
        if self.is_anchored and not self._anchor_released and arranged.spatial_map.total_region.bottom < view:
            self.anchor(False)
            self.set_reactive(ConversationView.scroll_y, 0)
            self.set_reactive(ConversationView.scroll_target_y, 0)
        return arranged

    def _anchor_if_taller(self) -> None:
        """Anchored while the conversation is taller than the view; a shorter one stays at the top
        (an anchor would push it to the bottom). Not laid out yet, it is left as it is: arrange()
        lets go of an anchor once the rows fit (let go here, a resumed tail's first frames were
        laid out from its top)."""
        if not self.container_size.height:
            return
        taller = self.max_scroll_y > 0
        if taller and (not self.is_anchored or self._anchor_released):
            self.anchor()
        elif not taller and self.is_anchored:
            self.anchor(False)

    def _set_unseen(self, unseen: bool, *, arrived: bool = False) -> None:
        arrived = unseen and (arrived or (self.unseen and self.arrived))  # until back at the end
        if (unseen, arrived) != (self.unseen, self.arrived):
            self.unseen, self.arrived = unseen, arrived
            self.post_message(self.UnseenChanged(unseen, arrived=arrived))

    def add(self, widget: Static | Vertical | Markdown | Collapsible) -> None:
        if self.session_of is not None and is_line(widget):
            self.told[widget] = Told(self.session_of(), *self._seen)
        self.mount(widget)

    def _shown(self, messages: list[Message], *, unread: int) -> None:
        """The rows now show ``messages`` (after ``unread`` not read): lines said next follow them."""
        self._seen = (unread + len(messages), messages[-1] if messages else None)

    def notice(self, text: str, *, kind: str = "info") -> Notice:
        shown = Notice(text, kind=kind)
        self.add(shown)
        return shown

    def apply(self, event: object) -> None:
        """Show one agent event; kinds it does not know are ignored."""
        if isinstance(event, MessageStarted):
            if event.role == "user" and event.message is not None:
                self._person(event.message)
            elif event.role == "assistant":
                self.answer = self.thinking = None
        elif isinstance(event, MessageUpdated):
            self._delta(event.kind, event.delta)
        elif isinstance(event, MessageEnded):
            if event.checkpoint_id is not None:  # stored: the lines said next come after it
                self._seen = (self._seen[0] + 1, event.message)
            self._ended(event.message)
        elif isinstance(event, ToolExecutionStarted):
            row = ToolRow(event.tool_call_id, event.tool_name, event.args)
            self.tools[event.tool_call_id] = row
            self.add(row)
        elif isinstance(event, PreviewShown):  # the call's card shows this diff: so does its row
            if (pending := self.tools.get(event.tool_call_id)) is not None and pending.result is None:
                pending.show_diff(event.diff)
        elif isinstance(event, ToolExecutionUpdated):
            if (running := self.tools.get(event.tool_call_id)) is not None:
                running.live(event.partial)
        elif isinstance(event, ToolExecutionEnded):
            self._tool_ended(event)
        elif isinstance(event, SubagentEvent) and isinstance(inner := event.event, ToolExecutionStarted):
            parent = self.tools.get(event.parent_call_id or "")
            if parent is not None:
                parent.step(tool_title(inner.tool_name, inner.args))
        elif isinstance(event, ErrorReported):
            self.notice(f"error: {event.message}", kind="error")
        elif isinstance(event, BudgetWarned):
            self.notice(f"warning: {event.message}", kind="warning")
        elif isinstance(event, TurnEnded):
            self.settle()
        elif isinstance(event, CompactionStarted):
            self.compacting = self.notice(f"Compacting the conversation ({event.reason})…", kind="info")
        elif isinstance(event, CompactionEnded):
            line, kind = compaction_line(event)
            if self.compacting is not None:
                self.compacting.say(line, kind=kind)
            else:
                self.notice(line, kind=kind)
            self.compacting = None

    def steered(self, text: str, *, typed: str | None = None) -> None:
        """The person's message sent while the turn runs: shown now with its hint right under it,
        and not again when the model reads it."""
        row = UserRow(text if typed is None else typed, mark="↳")
        row.add_class("steered")  # no blank line between it and its hint
        self.add(row)
        self.steering.append((text, row, self.notice(STEERED, kind="info")))

    def take_back(self, texts: list[str]) -> None:
        """The steered messages ``texts`` were not read (the turn was stopped): their rows go, as
        they go back to the input box."""
        for text in texts:
            for waiting in self.steering:
                if waiting[0] == text:
                    self.steering.remove(waiting)
                    waiting[1].remove()
                    waiting[2].remove()
                    break

    def _person(self, message: Message) -> None:
        if message.shown is None:
            for waiting in self.steering:
                if waiting[0] == message.text:  # shown when it was sent; read now, so no hint
                    self.steering.remove(waiting)
                    waiting[1].remove_class("steered")
                    waiting[2].remove()
                    return
        for row in person_rows(message, live=True):
            self.add(row)

    def settle(self) -> None:
        """End every row the turn left open: calls that never finished, thinking that was cut."""
        for row in self.tools.values():
            row.stop()
        if self.thinking is not None:
            self.thinking.cut()
        self.answer = self.thinking = None

    def _tool_ended(self, event: ToolExecutionEnded) -> None:
        if (found := self.tools.get(event.tool_call_id)) is None:
            return
        if event.aborted:  # stopped by the person, not failed: the row says so
            found.stop()
            return
        found.end(event.shown or event.result, is_error=event.is_error)
        if event.diff is not None:  # the tool's own, from the file as it read it before the change
            found.show_diff(event.diff)
        elif found.tool_name in FILE_TOOLS and self.differ is not None and not event.is_error:
            self.run_worker(self._real_diff(found, self.differ), group="diffs")

    async def _real_diff(self, row: ToolRow, differ: Differ) -> None:
        if (diff := await differ(row.call_id)) is not None:
            row.show_diff(diff)

    def _delta(self, kind: str, delta: str) -> None:
        if kind == "text":
            if self.answer is None:
                if self.thinking is not None:  # the answer starts: the thinking is done
                    self.thinking.finish()
                self.answer = Answer()
                self.add(self.answer)
            self.answer.add(delta)
        elif kind == "thinking":
            if self.thinking is None:
                self.thinking = Thinking()
                self.add(self.thinking)
            self.thinking.add(delta)

    def _ended(self, message: Message) -> None:
        if message.role != "assistant":
            return
        if self.thinking is not None and message.stop_reason in CUT_SHORT:
            self.thinking.cut()
        elif self.thinking is not None:
            self.thinking.finish()
        if self.answer is not None:
            self.answer.finish(message.text)
        elif message.text.strip():
            answer = Answer()
            self.add(answer)
            answer.finish(message.text)
        if message.error and message.stop_reason not in _SAID_ELSEWHERE:
            self.notice(f"error: {message.error}", kind="error")
        self.answer = self.thinking = None

    def replay(self, messages: list[Message], *, unread: int = 0) -> AwaitMount:
        """Draw a stored conversation: what a resumed session said before. A long one draws its
        last turns; the earlier ones wait in :attr:`earlier` until the view reaches the top, with
        the ``unread`` ones before them (see :meth:`read_earlier`).
        Awaiting it waits for the rows to be mounted."""
        if self.earlier is not None:
            self.earlier.remove()
            self.earlier = None
        self._shown(messages, unread=unread)
        self._above = []
        start = tail_start(messages, keep=tail_size(self.app.size.height))
        drawing = self.draw(messages[start:])
        self.drawn.drew(start, drawing)
        rows = [row for _, made in drawing for row in made]
        split = first_slice(rows, height=self.app.size.height)
        self._slices = slices_above(rows[:split])
        self.drawing_above = bool(self._slices)
        rows = rows[split:]  # the rows on screen, drawn first; the others a slice a frame above them
        if fill(rows, height=self.app.size.height):  # its scrollbar in the first layout: laid out
            self.show_vertical_scrollbar = True  # without it first, each answer was drawn twice
        if start or unread:
            self.earlier = Earlier(messages[:start], unread=unread)
            rows.insert(0, self.earlier)
        if rows:  # at the end in the layout that first shows them (let go in arrange() if they
            self.anchor()  # fit): anchored only after it, that frame showed the tail's top
        mounted = self.mount_all(rows)  # in one batch: styled and laid out once, not once a row
        self._no_frame_until(mounted)
        self.settle()
        self._after_frame()
        return mounted

    def _no_frame_until(self, mounted: AwaitMount) -> None:
        """Draw no frame until ``mounted`` is done (:data:`HOLD_S` at most): the rows that hold
        others (a tool row: its title and output) mount those a turn of the loop later, and the
        frames before showed them blank, the answer below them alone (2 frames at 80x24)."""
        batch = self.app.batch_update()
        batch.__enter__()

        async def hold() -> None:
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(_done(mounted), HOLD_S)
            finally:
                batch.__exit__(None, None, None)

        self._holding = asyncio.create_task(hold())

    def _after_frame(self) -> None:
        if not self.slices_held:
            self.call_after_refresh(self.next_slice)

    def next_slice(self) -> None:
        """The next slice of the stored tail above the rows shown; after it, the earlier messages."""
        top = next((row for row in self.children if row is not self.earlier), None)
        if self.drawing_above and top is not None and not top.virtual_region.height:  # not laid out yet
            self._after_frame()
            return
        if not self._slices:
            self.drawn_above()
            if self._home:  # ctrl+home came while the tail was still being drawn
                self.home()
                return
            if self.earlier is not None and self.scroll_y <= 0:  # scrolled up to the top meanwhile
                self._draw_earlier()
            if self.earlier is not None:
                self._fill()
            return
        if top is None:  # the rows were taken away meanwhile
            self._slices, self._down_to = [], None
            self.drawn_above()
            return
        rows = self._slices.pop(0)
        down_to = self._down_to
        if down_to is not None:  # drawn from the top down, each slice above the rows drawn before
            if down_to.parent is not self:  # taken away meanwhile
                self._slices, self._down_to = [], None
                self.drawn_above()
                return
            self.mount_all(rows, before=down_to)
        else:
            if not self.following:  # scrolled up: the row at the view's top stays as they go in above
                self.pin()
            self.mount_all(rows, before=top)
        if not self._slices:
            self._down_to = None
        self._after_frame()

    def drawn_above(self) -> None:
        super().drawn_above()
        self._down_to = None
        self._drawn_now()

    def _drawn_now(self) -> None:
        """The rows drawn in slices are all in (or were taken away): what waited for them, after
        the frame that lays them out."""
        waiting, self._when_drawn = self._when_drawn, []
        for then in waiting:
            self.call_after_refresh(then)

    def goes_in_later(self, row: Widget) -> bool:
        """``row`` is one of the stored tail's rows still to be drawn above the ones shown."""
        return any(waiting is row for rows in self._slices for waiting in rows)

    def slot_in(self, row: Widget, *, before: Widget) -> bool:
        """``row`` goes in with the slice that holds ``before``, right above it (True), when
        ``before`` is still to be drawn: mounted now, it would stand below that slice's rows."""
        for rows in self._slices:
            for at, waiting in enumerate(rows):
                if waiting is before:
                    rows.insert(at, row)
                    return True
        return False

    async def redraw(self, messages: list[Message], *, unread: int = 0, line: Notice | None = None) -> None:
        """Draw ``messages`` instead of the rows shown (after /undo, /redo, /tree, /new), at the
        end from the first frame: the old rows go and the new tail comes in one batch, anchored
        (``unread`` as for :meth:`replay`), with ``line`` under them (what the command said). It
        runs to its end though the command is cancelled (the rows' account changes first)."""
        await self._redraws.run(lambda: self._redraw(messages, unread=unread, line=line))

    async def _redraw(self, messages: list[Message], *, unread: int, line: Notice | None) -> None:
        start = tail_start(messages, keep=tail_size(self.app.size.height))
        in_place = redraw_in_place(self, messages, start=start, unread=unread)
        if in_place is not None:  # the last turn taken back or brought back: only its rows
            await drawn_before_mount(in_place.added, like=in_place.kept)  # keys are drawn meanwhile
        with self.app.batch_update():
            self.unpin()
            self._set_unseen(False)
            self.anchor()  # let go in arrange() if the rows fit
            if in_place is not None:
                await in_place.apply()
                self._shown(messages, unread=unread)
                self.settle()
            else:
                await self.remove_children()
                self._slices, self.earlier, self.drawing_above, self._down_to = [], None, False, None
                self._drawn_now()
                self.tools.clear()
                await self.replay(messages, unread=unread)
            if line is not None:
                self.add(line)
        self.follow()

    def _fill(self) -> None:
        """Earlier messages drawn while the rows shown do not fill the view (it cannot scroll up)."""
        waiting = self.earlier is not None and self.earlier.waiting and not self._slices
        if waiting and self.max_scroll_y <= 0 and self.container_size.height > 0:
            self._draw_earlier()
            self.call_after_refresh(self._fill)

    def home(self) -> None:
        """ctrl+home: the start of the conversation. The earlier messages waiting above are drawn
        first (up to :data:`AT_ONCE`: more, and the transcript, ctrl+o, has them all), not a
        batch each time the view reaches the top: the first ctrl+home went to the top of the rows
        drawn so far, well after the session's start. They go in a slice a frame from the top
        down, the first at the top of the view: drawn at once, 300 messages held the keys typed
        meanwhile for a third of a second (more on a loaded machine)."""
        waiting = self.earlier is not None and (self.earlier.unread > 0 or bool(self._slices))
        self._home = waiting  # again once they are read, or the tail is drawn
        self.draw_waiting(top_first=True)
        self.unpin()
        self.call_after_refresh(self.scroll_home, animate=False)

    def draw_waiting(self, then: Callable[[], None] | None = None, *, top_first: bool = False) -> bool:
        """Draw the earlier messages waiting above the rows (up to :data:`AT_ONCE`) in slices, a
        frame apart: the nearest first, or the top one first with ``top_first``. True when some
        were; ``then`` is called once they are all in (ctrl+f finds its term in them again)."""
        if self.earlier is None or not self.earlier.waiting or self._slices:
            return False
        if then is not None:
            self._when_drawn.append(then)
        self._draw_earlier(AT_ONCE, pin=False, top_first=top_first)
        return True

    @property
    def all_drawn(self) -> bool:
        """No earlier message waits above the rows (nor is still to be read)."""
        return self.earlier is None and not self._slices

    def _draw_earlier(
        self, count: int = BATCH, *, pin: bool = True, sliced: bool = True, top_first: bool = False
    ) -> None:
        """Draw the last ``count`` messages waiting above the rows, over them: at once, or (when
        ``sliced``) in slices a frame apart, as the stored tail is, the nearest first, or the top
        one first with ``top_first`` (each slice then goes in under the one before)."""
        assert self.earlier is not None
        if self._slices:  # the tail is still being drawn: the earlier rows go above it after
            return
        drawing = self.draw(self.earlier.take(count))
        self.drawn.drew_above(drawing)
        rows = [row for _, made in drawing for row in made]
        for row in rows:
            if isinstance(row, ToolRow):
                row.stop()  # a call the batch never saw end
        rows = self._with_lines(drawing, first=self.drawn.start)
        if rows:
            if pin:
                self.pin()
            below = next((row for row in self.children if row is not self.earlier), None)
            cut = slices_above(rows) if sliced and below is not None else [rows]
            if top_first:
                cut.reverse()
                self._down_to = below
            self.mount_all(cut.pop(0), before=below)
            if cut:
                self._slices = cut
                self.drawing_above = True
                self._after_frame()
            else:
                self._down_to = None
                self._drawn_now()
        elif not self._slices:
            self._drawn_now()
        if not self.earlier.waiting and not self.earlier.unread:
            self.earlier.remove()
            self.earlier = None

    def wait_above(self, after: int, line: Widget) -> None:
        """``line``, said after ``after`` of the messages waiting above the rows, is drawn with them."""
        self._above.append((after, line))

    def _with_lines(self, drawing: Drawing, *, first: int) -> list[Widget]:
        """The rows of ``drawing`` (messages from ``first`` on), each line waiting above among them
        after the message it was said after (at the top when no message waits above any more)."""
        lines: dict[int, list[Widget]] = {}
        for after, line in self._above:
            lines.setdefault(after, []).append(line)
        last = first + len(drawing)
        top = self.earlier is None or not (self.earlier.waiting or self.earlier.unread)
        rows = [line for after in sorted(lines) if after <= first and top for line in lines[after]]
        for at, (_, made) in enumerate(drawing, start=first + 1):
            rows += [*made, *lines.get(at, ())]
        waits = [(after, line) for after, line in self._above if after > last or after <= first]
        self._above = [] if top else waits
        return rows

    def read_earlier(self, messages: list[Message]) -> None:
        """The session has read the messages it opened without: they wait above the rest."""
        if self.earlier is not None:
            self.earlier.read(messages)
            self.drawn.read_before(len(messages))
            self._above = [(after + len(messages), line) for after, line in self._above]
            self.post_message(self.EarlierRead())
            if self._home:  # ctrl+home came before they were read
                self.home()
                return
            if self.scroll_y <= 0 and not self.held:  # at the top, with nothing drawn above yet
                self._draw_earlier()
            self.call_after_refresh(self._fill)

    def draw(self, messages: list[Message]) -> Drawing:
        """Each of ``messages`` with the rows that draw it, not yet mounted."""
        return [(message, list(stored_rows([message], tools=self.tools))) for message in messages]


__all__ = [
    "Answer",
    "ConversationView",
    "Differ",
    "Notice",
    "ShellRow",
    "Thinking",
    "ToolRow",
    "TurnLine",
    "UserRow",
    "command_text",
    "diff_text",
]
