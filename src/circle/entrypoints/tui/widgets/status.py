"""The lines around the input box: the busy line, the plan box, the footer and the strip."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from circle.domain.display import escape_for_display
from circle.domain.todos import Todo

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
_MORE_LINES = re.compile(r"  \(\+\d+ more lines?\)$")
CANCEL_HINT = " · esc cancels"


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
    """What runs now (thinking, answering, a tool), the retry being waited on, and the keys."""

    def __init__(self) -> None:
        super().__init__("", id="busy")
        self.activity = ""
        self.retry = ""
        self.frame = 0
        self.display = False

    def on_mount(self) -> None:
        self.set_interval(0.1, self._tick)

    def show(self, activity: str, *, retry: str = "") -> None:
        self.activity, self.retry = activity, retry
        self.display = True
        self._draw()

    def hide(self) -> None:
        self.activity = self.retry = ""
        self.display = False

    def _tick(self) -> None:
        if self.display:
            self.frame = (self.frame + 1) % len(SPINNER)
            self._draw()

    def _draw(self) -> None:
        room = (self.content_size.width or 200) - 2 - len(CANCEL_HINT)
        text = Text(f"{SPINNER[self.frame]} ", style="bold magenta") + Text(fit(self.activity, room))
        if self.retry:
            text.append(f" · {escape_for_display(self.retry, newlines=False)}", style="yellow")
        text.append(CANCEL_HINT, style="dim")
        if self.activity.startswith("execute"):
            text.append(" · ctrl+b to background", style="dim")
        self.update(text)


class PlanBox(Static):
    """The todo list (write_todos) and whether plan mode is on."""

    def __init__(self) -> None:
        super().__init__("", id="plan-box")
        self.todos: tuple[Todo, ...] = ()
        self.plan_mode = False
        self.display = False

    def set(self, todos: Sequence[Todo] | None = None, *, plan_mode: bool | None = None) -> None:
        if todos is not None:
            self.todos = tuple(todos)
        if plan_mode is not None:
            self.plan_mode = plan_mode
        text = Text()
        if self.plan_mode:
            text.append("Plan mode: changes wait until you accept the plan\n", style="bold yellow")
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
        self.update(text)
        self.display = bool(self.todos or self.plan_mode)


@dataclass(frozen=True, slots=True)
class StripItem:
    kind: str
    """``subagent`` or ``job``."""
    id: str
    label: str


class Strip(Static, can_focus=True):
    """Running subagents and jobs under the footer; ↓ selects, enter opens the record."""

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

    def _draw(self) -> None:
        text = Text()
        for index, item in enumerate(self.items):
            chosen = self.has_focus and index == self.selected
            mark = "❯ " if chosen else "  "
            kind = "⚙ " if item.kind == "job" else "◆ "
            label = escape_for_display(item.label, newlines=False)
            text.append(f"{mark}{kind}{label}\n", style="reverse" if chosen else "")
        text.rstrip()
        self.update(text)

    def on_focus(self) -> None:
        self._draw()

    def on_blur(self) -> None:
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
    def __init__(self) -> None:
        super().__init__("", id="footer")


__all__ = ["BusyLine", "FooterLine", "PlanBox", "Strip", "StripItem", "fit"]
