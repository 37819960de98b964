"""The whole transcript (ctrl+o): every message, thinking block and tool call, and every tool's
output in full, on a screen of its own; esc or ctrl+o goes back to the input box."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
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
from circle.entrypoints.tui.widgets.stale_keys import TakesTyping
from circle.entrypoints.tui.widgets.tool_row import FILE_TOOLS, command_text, diff_text

TITLE = "Transcript, every output in full · esc or ctrl+o closes · pgup pgdn home end"


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
    marks = call_marks(messages)
    for index, message in enumerate(messages):
        _asides(text, asides, index)
        if message.role == "user":
            text.append("› ", style="bold")
            text.append(escape_for_display(message.text) + "\n\n", style="bold")
            continue
        for at, part in enumerate(message.parts):
            if isinstance(part, ThinkingPart) and part.text:
                text.append(escape_for_display(part.text) + "\n\n", style="italic dim")
            elif isinstance(part, TextPart) and part.text.strip() and message.role == "assistant":
                text.append(escape_for_display(part.text.strip()) + "\n\n")
            elif isinstance(part, ToolCallPart):
                text.append_text(_call(part, (diffs or {}).get((index, at)), marks.get((index, at))))
            elif isinstance(part, ToolResultPart):
                shown = escape_for_display(part.text.rstrip()) or "(no output)"
                text.append(shown + "\n\n", style="red" if part.is_error else "")
    _asides(text, asides, len(messages))
    text.rstrip()
    return text


def call_marks(messages: Sequence[Message]) -> dict[CallAt, Text]:
    """Each answered call's mark by its place, as its row in the conversation shows it: ``✓``
    done, ``✗`` failed, ``⏹`` stopped before it finished (a call with no result keeps ``●``). A
    result answers the latest call before it with its id (models reuse ids)."""
    marks: dict[CallAt, Text] = {}
    calls: dict[str, CallAt] = {}
    for index, message in enumerate(messages):
        for at, part in enumerate(message.parts):
            if isinstance(part, ToolCallPart):
                calls[part.id] = (index, at)
            elif isinstance(part, ToolResultPart) and (place := calls.pop(part.tool_call_id, None)):
                if was_interrupted(part):
                    marks[place] = Text("⏹ ", style="bold yellow")
                elif part.is_error:
                    marks[place] = Text("✗ ", style="bold red")
                else:
                    marks[place] = Text("✓ ", style="bold green")
    return marks


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
    """The transcript, at its end; it scrolls with the page keys, the arrows and the wheel."""

    CSS_PATH = Path(__file__).with_name("transcript.tcss")
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", "close", show=False),
        Binding("ctrl+o", "close", "close", show=False, priority=True),
    ]

    def __init__(
        self,
        messages: Sequence[Message],
        *,
        diffs: Mapping[CallAt, str] | None = None,
        asides: Sequence[tuple[int, Text]] = (),
    ) -> None:
        super().__init__()
        self.body = transcript_text(messages, diffs=diffs, asides=asides)
        self.text = self.body.plain
        self.scroll = VerticalScroll(id="transcript-body")

    def compose(self) -> ComposeResult:
        yield Static(TITLE, id="transcript-title", markup=False)
        with self.scroll:
            yield Static(self.body or Text("Nothing said yet.", style="dim"), id="transcript-text")

    def on_mount(self) -> None:
        self.scroll.focus()
        self.call_after_refresh(self.scroll.scroll_end, animate=False)

    def on_key(self, event: events.Key) -> None:
        """A printable key closes the transcript and goes into the input box below it."""
        below = next((s for s in reversed(self.app.screen_stack) if isinstance(s, TakesTyping)), None)
        if below is None or not below.take_typed(event):
            return
        if self.app.screen is self:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["CallAt", "TranscriptScreen", "call_diffs", "call_marks", "transcript_text"]
