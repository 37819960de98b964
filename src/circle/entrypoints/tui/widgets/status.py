"""The lines around the input box: the busy line, the plan box, the footer and the strip."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from circle.application.events import MessageEnded, MessageUpdated, RetryScheduled, TurnStarted
from circle.application.guards import CHARS_PER_TOKEN
from circle.domain.display import escape_for_display
from circle.domain.messages import StopReason
from circle.domain.retry import retry_countdown
from circle.domain.todos import Todo
from circle.entrypoints.tui._format import duration, tokens

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPIN_PER_S = 5
"""The spinner's steps a second: each costs a write of its glyph to the terminal."""
TICK_S = 0.1
"""How often the busy line looks whether what it shows changed (the spinner, the seconds)."""
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
_MORE_LINES = re.compile(r"  \(\+\d+ more lines?\)$")
CANCEL_HINT = " · esc cancels"
BACKGROUND_HINT = " · ctrl+b to background"
_CUT_SHORT = (StopReason.ABORTED, StopReason.ERROR)
"""An answer stopped as it streamed: the endpoint's count, if any came, was not its last."""
ACTIVITY_LEAST = 20
"""The columns kept for what runs before the time and tokens give way on a narrow line."""


WAITING = "Waiting…"
"""What the busy line says while a failed request waits to be sent again."""


def fit(text: str, width: int) -> str:
    """``text`` on one line of ``width`` columns, escaped; when it is cut, a closing
    ``(+N more lines)`` stays."""
    text = escape_for_display(text, newlines=False)
    if len(text) <= width:
        return text
    found = _MORE_LINES.search(text)
    suffix = found.group() if found else ""
    room = max(width - len(suffix) - 1, 1)
    return text[:room] + "…" + suffix


class BusyLine(Static):
    """What runs now (thinking, answering, a tool), for how long, the tokens so far, the retry
    being waited on (counting down), and the keys: ``⠋ Answering… · 12s · ↓ 1.2k tokens · esc
    cancels``."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("", id="busy")
        self.clock = clock
        self.activity = ""
        self.shorter: tuple[str, ...] = ()
        """Shorter wordings of :attr:`activity`, longest first, for a narrow line."""
        self.retry = ""
        self.frame = 0
        self.display = False
        self.started: float | None = None
        self.tokens_done = 0
        """Output tokens of the answers this turn finished (as the endpoint counted them)."""
        self.streamed = 0
        """Characters streamed since the last finished answer (about four a token)."""
        self._retry: tuple[RetryScheduled, float] | None = None
        self._shown: Text | None = None
        self._step = 0
        self.card_up = False
        """An approval card is up: the command it asks about is not running, so ctrl+b (which
        moves a running one to the background) is not offered."""

    def on_mount(self) -> None:
        self.set_interval(TICK_S, self._tick)

    def on_resize(self) -> None:
        if self.display:
            self._draw()  # fitted to the new width now, not at the spinner's next step

    def show(self, activity: str, *, retry: str = "", shorter: Sequence[str] = ()) -> None:
        """Say what runs now; a retry being waited on ends once something else happens.

        ``shorter`` wordings of it, longest first, stand in for it on a line too narrow for it
        (before it is cut). Saying again what already shows draws nothing: the tick redraws the
        time and tokens, so an answer's every delta does not cost a frame of its own."""
        if self.started is None:
            self.started = self.clock()
        said = (activity, retry, tuple(shorter))
        same = self.display and self._retry is None and said == (self.activity, self.retry, self.shorter)
        self.activity, self.retry, self.shorter = said
        self._retry = None
        self.display = True
        if not same:
            self._draw()

    def card_shown(self, up: bool) -> None:
        """An approval card went up (``up``) or away: the line drawn again with or without ctrl+b."""
        if up != self.card_up:
            self.card_up = up
            if self.display:
                self._draw()

    def hide(self) -> None:
        self.activity = self.retry = ""
        self.shorter = ()
        self._retry = None
        self.started = None
        self.tokens_done = self.streamed = 0
        self.display = False
        self._shown = None

    def count(self, event: object) -> None:
        """Keep the tokens so far, and the retry's countdown, from one agent event."""
        if isinstance(event, TurnStarted):
            self.started = self.clock()
            self.tokens_done = self.streamed = 0
        elif isinstance(event, MessageUpdated) and event.kind in ("text", "thinking", "toolcall"):
            self.streamed += len(event.delta)
        elif isinstance(event, MessageEnded) and event.message.role == "assistant":
            usage = event.message.usage
            counted = usage.output if usage is not None else 0
            unfinished = not counted or event.message.stop_reason in _CUT_SHORT  # its count never came
            guessed = max(self.streamed // CHARS_PER_TOKEN - counted, 0) if unfinished else 0
            self.tokens_done += counted + guessed
            self.streamed = 0
        elif isinstance(event, RetryScheduled):
            self.show(WAITING)  # for the retry, which says why; nothing thinks meanwhile
            self._retry = (event, self.clock() + event.delay_ms / 1000)
            self._draw()

    @property
    def tokens(self) -> int:
        """Output tokens so far this turn: counted ones, plus an estimate of what streams now."""
        return self.tokens_done + self.streamed // CHARS_PER_TOKEN

    def _tick(self) -> None:
        """Step the spinner at :data:`SPIN_PER_S` and draw with it the time, the tokens and a
        retry's countdown, so a second and the tokens cost no frames of their own; a draw that
        changes nothing writes nothing to the terminal."""
        step = int(self.clock() * SPIN_PER_S)
        if self.display and step != self._step:
            self._step, self.frame = step, step % len(SPINNER)
            self._draw()

    def _draw(self) -> None:
        if self._retry is not None:
            event, until = self._retry
            self.retry = retry_countdown(event.kind, event.attempt, event.max_attempts, until - self.clock())
        parts = []
        if self.started is not None and (seconds := self.clock() - self.started) >= 1:
            parts.append(f" · {elapsed(seconds)}")
        if self.tokens:
            parts.append(f" · ↓ {tokens(self.tokens)} tokens")
        width = (self.content_size.width or 200) - 2 - len(CANCEL_HINT)
        width -= len(f" · {self.retry}") if self.retry else 0
        hint = BACKGROUND_HINT if self.activity.startswith("execute") and not self.card_up else ""
        if width - len(hint) - len("".join(parts)) >= len(self.activity):
            width -= len(hint)  # the key's hint shows when what runs fits whole beside it
        else:
            hint = ""
        least = min(len(self.activity), ACTIVITY_LEAST)
        while parts and len(self._worded(width - len("".join(parts)))) < least:
            parts.pop()  # a narrow line keeps what runs: the tokens go first, then the time
        said = "".join(parts)
        room = width - len(said)
        text = Text(f"{SPINNER[self.frame]} ", style="bold magenta") + Text(self._worded(room))
        text.append(said, style="dim")
        if self.retry:
            text.append(f" · {escape_for_display(self.retry, newlines=False)}", style="yellow")
        text.append(CANCEL_HINT + hint, style="dim")
        if text != self._shown:
            self._shown = text
            self.update(text)

    def _worded(self, room: int) -> str:
        """What runs, in the longest of its wordings that fits ``room`` columns (escaped), else
        the shortest cut with ``…``."""
        *longer, shortest = (self.activity, *self.shorter)
        for said in longer:
            if len(shown := escape_for_display(said, newlines=False)) <= room:
                return shown
        return fit(shortest, room)


def elapsed(seconds: float) -> str:
    """``12s``, ``1m 5s``, ``1h 2m``: how long a turn has run, in whole seconds."""
    return f"{int(seconds)}s" if seconds < 60 else duration(seconds)


class PlanBox(Static):
    """The todo list (write_todos). Whether plan mode is on the footer says, and the line the
    switch (shift+tab, plan_enter) left in the conversation: not this box as well."""

    def __init__(self) -> None:
        super().__init__("", id="plan-box")
        self.todos: tuple[Todo, ...] = ()
        self.plan_mode = False
        self.display = False
        self._text = Text()

    def set(self, todos: Sequence[Todo] | None = None, *, plan_mode: bool | None = None) -> None:
        """Show ``todos`` (``plan_mode``: whether plan mode is on, kept, not shown); the same again
        changes nothing (an update lays the whole screen out again: /undo's frame in a long
        session, once more)."""
        if todos is not None:
            self.todos = tuple(todos)
        if plan_mode is not None:
            self.plan_mode = plan_mode
        text = Text()
        if self.todos:
            done = sum(1 for t in self.todos if t.status == "completed")
            text.append(f"Todos {done}/{len(self.todos)}\n", style="bold")
            for todo in self.todos:
                style = (
                    "dim strike"
                    if todo.status == "completed"
                    else "bold"
                    if todo.status == "in_progress"
                    else ""
                )
                text.append(f"{TODO_MARKS[todo.status]} {escape_for_display(todo.content)}\n", style=style)
        text.rstrip()
        if text != self._text:
            self._text = text
            self.update(text)
        self.display = bool(self.todos)


@dataclass(frozen=True, slots=True)
class StripItem:
    kind: str
    """``subagent`` or ``job``."""
    id: str
    label: str


class Strip(Static, can_focus=True):
    """Running subagents and jobs under the footer, one line each, cut to the width with ``…``;
    ↓ selects, enter opens the record."""

    class Opened(Message):
        def __init__(self, item: StripItem) -> None:
            super().__init__()
            self.item = item

    class Left(Message):
        """↑ from the first item: back to the input box."""

    def __init__(self) -> None:
        super().__init__("", id="strip")
        self.items: list[StripItem] = []
        self.selected = 0
        self.display = False

    def set_items(self, items: list[StripItem]) -> None:
        if items == self.items:
            return
        self.items = items
        self.selected = min(self.selected, max(0, len(items) - 1))
        self.display = bool(items)
        self._draw()

    def on_resize(self) -> None:
        if self.items:
            self._draw()  # cut to the new width

    def _draw(self) -> None:
        text = Text()
        room = max((self.content_size.width or 200) - len("❯ ⚙ "), 1)
        for index, item in enumerate(self.items):
            chosen = self.has_focus and index == self.selected
            mark = "❯ " if chosen else "  "
            kind = "⚙ " if item.kind == "job" else "◆ "
            text.append(f"{mark}{kind}{fit(item.label, room)}\n", style="reverse" if chosen else "")
        text.rstrip()
        self.update(text)

    def watch_has_focus(self, _has_focus: bool) -> None:
        """Drawn once the focus moved (on_focus runs before Textual sets ``has_focus``)."""
        super().watch_has_focus(_has_focus)
        self._draw()

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and self.items:
            self.selected = min(self.selected + 1, len(self.items) - 1)
        elif event.key == "up":
            if self.selected == 0:
                self.post_message(self.Left())
            else:
                self.selected -= 1
        elif event.key == "enter" and self.items:
            self.post_message(self.Opened(self.items[self.selected]))
        elif event.key == "escape":
            self.post_message(self.Left())
        else:
            return
        event.stop()
        event.prevent_default()
        self._draw()


class FooterLine(Static):
    """The model, thinking, context, tokens, cost and mode, fitted to the width again on resize."""

    def __init__(self) -> None:
        super().__init__("", id="footer")
        self.line: Callable[..., str] | None = None
        self._said = ""

    def show(self, line: Callable[..., str]) -> None:
        """Show ``line(width=…)``: the footer's words for a given width (None: unlimited)."""
        self.line = line
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        """The line drawn again when its words changed (each agent event and command asks)."""
        if self.line is not None and (said := self.line(width=self.content_size.width or None)) != self._said:
            self._said = said
            self.update(said)


__all__ = ["BusyLine", "FooterLine", "PlanBox", "Strip", "StripItem", "fit"]
