"""The whole transcript (ctrl+o): every message, thinking block and tool call, and every tool's
output in full, on a screen of its own; esc or ctrl+o goes back to the input box."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from circle.domain.display import escape_for_display
from circle.domain.messages import (
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    was_interrupted,
)
from circle.entrypoints.tui._format import edit_preview, tool_title
from circle.entrypoints.tui.widgets.paging import page_by
from circle.entrypoints.tui.widgets.stale_keys import TakesTyping
from circle.entrypoints.tui.widgets.tool_row import FILE_TOOLS, command_text, diff_text

TITLES = (
    "Transcript, every output in full · esc or ctrl+o closes · pgup pgdn home end",
    "Transcript, every output in full · esc or ctrl+o closes",
    "Transcript · esc or ctrl+o closes",
    "Transcript · esc closes",
)
"""The title line, the first that fits the width: how to leave is the last thing cut."""


def title_for(width: int) -> str:
    """The longest of :data:`TITLES` within ``width`` cells (the shortest when none is)."""
    return next((title for title in TITLES if cell_len(title) <= width), TITLES[-1])


SLICE_S = 0.015
"""About how long one slice of the transcript's building takes, a frame apart from the next."""

FRAME_S = 1 / 60
"""The pause between slices, for a frame to be drawn and keys read."""

CallAt = tuple[int, int]
"""A call's place: its message's index and the part's index in that message."""


def call_diffs(messages: Sequence[Message], rows: Sequence[tuple[str, str | None]]) -> dict[CallAt, str]:
    """The calls' real diffs by their place in ``messages``, from the rows (call id, diff) that
    draw them in order. A model may give calls of different turns one id (compaction keeps them
    too), so the rows and calls are paired from the end, as long as their ids agree."""
    calls = [
        ((index, at), part.id)
        for index, message in enumerate(messages)
        for at, part in enumerate(message.parts)
        if isinstance(part, ToolCallPart)
    ]
    diffs: dict[CallAt, str] = {}
    for (place, call_id), (row_id, diff) in zip(reversed(calls), reversed(rows), strict=False):
        if call_id != row_id:
            break
        if diff:
            diffs[place] = diff
    return diffs


def transcript_text(
    messages: Sequence[Message],
    *,
    diffs: Mapping[CallAt, str] | None = None,
    asides: Sequence[tuple[int, Text]] = (),
) -> Text:
    """``messages`` as one text: the person's messages, thinking, answers, calls and results;
    ``diffs``: a file call's real diff by its place (else the one its arguments make);
    ``asides``: what was shown but never sent (a ``!!`` command), after so many messages."""
    text = Text()
    calls = call_places(messages)
    for index in range(len(messages) + 1):
        text.append_text(segment(messages, index, diffs=diffs or {}, asides=asides, calls=calls))
    text.rstrip()
    return text


@dataclass(frozen=True, slots=True)
class CallPlaces:
    """Where each call was answered, and how it ended."""

    marks: dict[CallAt, Text]
    """Each answered call's mark by its place (see :func:`call_marks`)."""
    answered_by: dict[CallAt, CallAt]
    """The place of the call each result answers, by the result's place."""
    answered: frozenset[CallAt]
    """The places of the calls a result answers."""


def segment(
    messages: Sequence[Message],
    index: int,
    *,
    diffs: Mapping[CallAt, str],
    asides: Sequence[tuple[int, Text]],
    calls: CallPlaces,
) -> Text:
    """What the transcript shows for ``messages[index]``, the asides before it first (at
    ``len(messages)``: the asides after the last); it ends with a blank line, or with a line end
    where the next message goes on (a call not answered). An answered call shows where its result
    is, its header over its output, as the conversation's rows do (calls of one answer each over
    their own output, not all the headers first)."""
    text = Text()
    _asides(text, asides, index)
    if index >= len(messages):
        return text
    message = messages[index]
    if message.role == "user":
        text.append("› ", style="bold")
        text.append(escape_for_display(message.text) + "\n\n", style="bold")
        return text
    for at, part in enumerate(message.parts):
        if isinstance(part, ThinkingPart) and part.text:
            text.append(escape_for_display(part.text) + "\n\n", style="italic dim")
        elif isinstance(part, TextPart) and part.text.strip() and message.role == "assistant":
            text.append(escape_for_display(part.text.strip()) + "\n\n")
        elif isinstance(part, ToolCallPart) and (index, at) not in calls.answered:
            text.append_text(_call(part, diffs.get((index, at)), None))
        elif isinstance(part, ToolResultPart):
            if (place := calls.answered_by.get((index, at))) is not None:
                call = messages[place[0]].parts[place[1]]
                if isinstance(call, ToolCallPart):
                    text.append_text(_call(call, diffs.get(place), calls.marks.get(place)))
            shown = escape_for_display(part.text.rstrip()) or "(no output)"
            text.append(shown + "\n\n", style="red" if part.is_error else "")
    return text


def call_marks(messages: Sequence[Message]) -> dict[CallAt, Text]:
    """Each answered call's mark by its place, as its row in the conversation shows it: ``✓``
    done, ``✗`` failed, ``⏹`` stopped before it finished (a call with no result keeps ``●``). A
    result answers the latest call before it with its id (models reuse ids)."""
    return call_places(messages).marks


def call_places(messages: Sequence[Message]) -> CallPlaces:
    """Each result's call and each answered call's mark (see :func:`call_marks`)."""
    marks: dict[CallAt, Text] = {}
    answered_by: dict[CallAt, CallAt] = {}
    calls: dict[str, CallAt] = {}
    for index, message in enumerate(messages):
        for at, part in enumerate(message.parts):
            if isinstance(part, ToolCallPart):
                calls[part.id] = (index, at)
            elif isinstance(part, ToolResultPart) and (place := calls.pop(part.tool_call_id, None)):
                answered_by[(index, at)] = place
                if was_interrupted(part):
                    marks[place] = Text("⏹ ", style="bold yellow")
                elif part.is_error:
                    marks[place] = Text("✗ ", style="bold red")
                else:
                    marks[place] = Text("✓ ", style="bold green")
    return CallPlaces(marks, answered_by, frozenset(answered_by.values()))


def _asides(text: Text, asides: Sequence[tuple[int, Text]], index: int) -> None:
    for after, aside in asides:
        if after == index:
            text.append_text(aside)
            text.append("\n\n")


def _call(part: ToolCallPart, real: str | None, mark: Text | None) -> Text:
    args = part.parsed_arguments() or {}
    head = Text(tool_title(part.name, args), style="bold cyan")
    text = (mark or Text("● ", style="bold cyan")) + head + "\n"
    if part.name == "execute" and isinstance(command := args.get("command"), str):
        text.append_text(command_text(command))
        text.append("\n")
    elif part.name in FILE_TOOLS and (diff := real or edit_preview(part.name, args, None)):
        text.append_text(diff_text(diff, lines=None))
        text.append("\n")
    return text


class TranscriptScreen(Screen[None]):
    """The transcript, at its end; it scrolls with the page keys, the arrows and the wheel.

    It opens at once: its end, what fills the screen, is drawn first, and the messages before it
    go in above in slices of about :data:`SLICE_S` of work, a frame apart, so keys and resizes are
    answered meanwhile; a view scrolled up stays on the lines it shows as they go in."""

    CSS_PATH = Path(__file__).with_name("transcript.tcss")
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", "close", show=False),
        Binding("ctrl+o", "close", "close", show=False, priority=True),
        Binding("pageup", "page(-1)", "scroll up", show=False, priority=True),
        Binding("pagedown", "page(1)", "scroll down", show=False, priority=True),
        Binding("home", "edge(-1)", "top", show=False, priority=True),
        Binding("end", "edge(1)", "bottom", show=False, priority=True),
    ]

    def __init__(
        self,
        messages: Sequence[Message],
        *,
        diffs: Mapping[CallAt, str] | None = None,
        asides: Sequence[tuple[int, Text]] = (),
    ) -> None:
        super().__init__()
        self.messages, self.diffs, self.asides = messages, diffs or {}, asides
        self.calls = call_places(messages)
        self.scroll = VerticalScroll(id="transcript-body")
        self.blocks: list[Text] = []
        """The blocks drawn so far, in order (each a Static, a blank line apart)."""
        self.left = len(messages) + 1
        """The segments not yet drawn are those before this one."""
        self._open = Text()
        """The segments drawn last, waiting for the one before them to end with a blank line."""
        self.slices_held = False
        """For tests: the slices wait for calls to :meth:`next_slice` rather than a frame each."""
        self._settling = False
        """A slice went in above: the view is put back on the lines it showed after the frame."""

    @property
    def done(self) -> bool:
        """Every message is drawn, and the view is back on the lines it showed before the last."""
        return self.left == 0 and not self._open and not self._settling

    @property
    def text(self) -> str:
        """What the transcript shows so far, as plain text."""
        return "\n\n".join(block.plain for block in self.blocks)

    def compose(self) -> ComposeResult:
        yield Static(title_for(self.app.size.width - 2), id="transcript-title", markup=False)
        lines = 2 * max(self.app.size.height, 24)
        first = self._take(budget=SLICE_S, lines=lines, last=True)
        with self.scroll:
            if not first and self.done:
                yield Static(Text("Nothing said yet.", style="dim"), id="transcript-text")
            yield from first

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#transcript-title", Static).update(title_for(event.size.width - 2))

    def on_mount(self) -> None:
        self.scroll.focus()
        self.scroll.anchor()
        if not self.done:  # after the first frame is on the screen
            self.set_timer(FRAME_S, self._next_slice)

    def _take(self, *, budget: float, lines: int = 0, last: bool = False) -> list[Static]:
        """The blocks before those drawn, built for about ``budget`` seconds and until they have
        ``lines`` lines at least; the earliest first."""
        start = time.perf_counter()
        taken: list[Static] = []
        count = 0
        while self.left > 0 and (time.perf_counter() - start < budget or count < lines):
            self.left -= 1
            text = segment(self.messages, self.left, diffs=self.diffs, asides=self.asides, calls=self.calls)
            if not text.plain:
                continue
            if text.plain.endswith("\n\n") and self._open:  # the block after it is whole
                count += self._block(taken, last=last and not taken)
            self._open = text + self._open
        if self.left == 0 and self._open:
            count += self._block(taken, last=last and not taken)
        return taken

    def _block(self, taken: list[Static], *, last: bool) -> int:
        block, self._open = self._open, Text()
        if last:
            block.rstrip()
        else:
            block.right_crop(2)  # the blank line after it is the block's margin
        self.blocks.insert(0, block)
        # the last block by a class of its own: a :last-child rule restyled every block each
        # time a slice went in above them (an order rule, checked again on each mount before)
        taken.insert(0, Static(block, classes="block last" if last else "block"))
        return block.plain.count("\n") + 2

    async def _next_slice(self) -> None:
        if not self.slices_held:
            await self.next_slice()

    async def next_slice(self) -> None:
        """Draw the next blocks above those drawn; the next slice follows after a frame."""
        if not self.is_attached or self.done:
            return
        taken = self._take(budget=SLICE_S)
        if not taken:  # a block not whole yet: on with it at the next turn of the loop
            self.call_later(self._next_slice)
            return
        view = self.scroll
        mark = None
        if view.is_anchored and view._anchor_released:  # scrolled up: the lines read stay
            shown = (row for row in view.children if row.virtual_region.bottom > view.scroll_y)
            mark = next(((row, view.scroll_y - row.virtual_region.y) for row in shown), None)
        self._settling = True
        await view.mount_all(taken, before=0)
        self.call_after_refresh(self._held, mark)

    def _held(self, mark: tuple[Widget, float] | None) -> None:
        self._settling = False
        if mark is not None and self.is_attached:
            row, below = mark
            self.scroll.scroll_to(y=row.virtual_region.y + below, animate=False, immediate=True)
        self.set_timer(FRAME_S, self._next_slice)  # a frame, keys and resizes come in between

    def on_key(self, event: events.Key) -> None:
        """A printable key closes the transcript and goes into the input box below it."""
        below = next((s for s in reversed(self.app.screen_stack) if isinstance(s, TakesTyping)), None)
        if below is None or not below.take_typed(event):
            return
        if self.app.screen is self:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_page(self, pages: int) -> None:
        """PageUp/PageDown: a page each, however quickly they come (see widgets/paging.py)."""
        page_by(self.scroll, pages)

    def action_edge(self, where: int) -> None:
        """Home and End: the top or the end at once (Textual's own scrolled there in an animation
        of 1-3 s in a long transcript, the keys read meanwhile counted from where it was)."""
        if where < 0:
            self.scroll.scroll_home(animate=False, immediate=True)
        else:
            self.scroll.scroll_end(animate=False, immediate=True)


__all__ = [
    "SLICE_S",
    "TITLES",
    "CallAt",
    "CallPlaces",
    "TranscriptScreen",
    "call_diffs",
    "call_marks",
    "call_places",
    "segment",
    "title_for",
    "transcript_text",
]
