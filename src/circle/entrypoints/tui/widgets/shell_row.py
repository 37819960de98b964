"""A command the person ran with ``!`` (its output goes to the model) or ``!!`` (only shown): the
command, its output folded to :data:`SHELL_LINES` lines, and how it ended. A click, or enter once
tab has reached it, unfolds the whole output in place and folds it again."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static

from circle.entrypoints.tui._format import clip_text, more_shown, terminal_text
from circle.entrypoints.tui.widgets.stale_keys import type_outside
from circle.entrypoints.tui.widgets.tool_row import (
    COMMAND_LINES,
    FOLD,
    OUTPUT_LINES,
    UNFOLD,
    command_folds,
    command_text,
)

SHELL_LINES = OUTPUT_LINES * 2


class ShellRow(Static, can_focus=True):
    """The person's command and its output (:data:`SHELL_LINES` lines until unfolded)."""

    FOCUS_ON_CLICK = False
    """A click unfolds it and the cursor stays in the input box (tab reaches it for enter)."""

    def __init__(
        self,
        command: str,
        output: str,
        *,
        code: int | None,
        sent: bool,
        said: str | None = None,
        after: int = 0,
    ) -> None:
        self.command, self.output, self.code, self.sent = command, output.rstrip(), code, sent
        self.after = after
        """How many messages the conversation had when it ran (where the transcript puts it)."""
        self.said = said or ("goes to the model with your next message" if sent else "not sent to the model")
        self.expanded = False
        self.folds = False
        super().__init__(self._text(), classes="shell-row")

    @property
    def prompt(self) -> str:
        return "! " if self.sent else "!! "

    def toggle(self) -> None:
        """Unfold the whole output in place, or fold it again (nothing when it all shows)."""
        if self.folds:
            self.expanded = not self.expanded
            self.update(self._text())

    def unfolded_text(self, leaf: Static) -> str | None:
        """What the row shows once unfolded, as plain text (None when that shows already): the
        find bar looks for its term in it (it looked only in the lines shown folded)."""
        if leaf is not self or not self.folds or self.expanded:
            return None
        self.expanded = True
        try:
            return self._text().plain
        finally:
            self.expanded = False

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def on_key(self, event: events.Key) -> None:
        if type_outside(self, event):
            return
        if event.key == "enter" and self.folds:
            event.stop()
            self.toggle()

    def whole(self) -> Text:
        """The command and all of its output, as the transcript shows it."""
        text = command_text(self.command, prompt=self.prompt)
        text.append("\n")
        text.append_text(terminal_text(self.output) if self.output else Text("(no output)"))
        return text

    def _text(self) -> Text:
        whole = terminal_text(self.output)
        shown, more = (whole, 0) if self.expanded else clip_text(whole, SHELL_LINES)
        self.folds = self.expanded or more > 0 or command_folds(self.command, COMMAND_LINES)
        lines = None if self.expanded else COMMAND_LINES
        text = command_text(self.command, prompt=self.prompt, lines=lines, note=False)
        text.append("\n")
        text.append_text(shown)
        if more:
            text.append("\n" + more_shown(more), style="dim")
        status = f"exit code {self.code}" if self.code is not None else "stopped"
        text.append(f"\n[{status}; {self.said}]", style="dim")
        if self.folds:
            text.append(f"\n[{FOLD if self.expanded else UNFOLD}]", style="dim italic")
        return text


__all__ = ["SHELL_LINES", "ShellRow"]
