"""A tool call's row in the conversation: its title, then the command's output or the file change's
diff, folded to a few lines; a click (or enter on it) unfolds the whole output in place and folds it
again. While a command runs, its last lines show live."""

from __future__ import annotations

import re

from pydantic import JsonValue
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from circle.domain.display import command_lines, escape_for_display, more_lines
from circle.domain.messages import ToolResultPart, was_interrupted
from circle.domain.todos import MARKS, WRITE_TODOS
from circle.entrypoints.tui._format import (
    clip,
    clip_text,
    edit_preview,
    more_shown,
    terminal_text,
    tool_title,
)
from circle.entrypoints.tui.widgets.stale_keys import type_outside
from circle.entrypoints.tui.widgets.status import TODO_MARKS

OUTPUT_LINES = 12
COMMAND_LINES = OUTPUT_LINES
"""The lines of a long command a folded row shows (a pasted script), like its output's."""
DIFF_LINES = 40
LIVE_LINES = 5
"""The last lines of a running command's output shown in its row."""
FILE_TOOLS = frozenset({"write_file", "edit_file", "apply_patch", "delete"})
UNFOLD = "click or enter unfolds"
FOLD = "click or enter folds"
_STATUS = re.compile(r"\n(\[(?:exit code -?\d+|stopped after \d+ s: timed out)\])\Z")
"""The line the execute tool ends a command's result with: how it ended, not its output."""


def split_status(result: str) -> tuple[str, str | None]:
    """A command's result as its output and the line saying how it ended (None when it has none):
    a folded row counts and clips the output alone, and shows that line under the fold."""
    found = _STATUS.search(result)
    if found is None:
        return result, None
    return result[: found.start()], found.group(1)


def diff_text(diff: str, *, lines: int | None = DIFF_LINES) -> Text:
    """A unified diff coloured line by line (added green, removed red, hunks dim); ``lines``
    None shows it whole."""
    shown, more = clip(diff, lines) if lines is not None else (diff, 0)
    text = Text()
    for raw in shown.split("\n"):
        line = escape_for_display(raw.removesuffix("\r"))
        style = ""
        if line.startswith("+") and not line.startswith("+++"):
            style = "green"
        elif line.startswith("-") and not line.startswith("---"):
            style = "red"
        elif line.startswith(("@@", "***")):
            style = "cyan"
        text.append(line + "\n", style=style)
    if more:
        text.append(more_shown(more) + "\n", style="dim")
    text.rstrip()
    return text


def command_text(command: str, *, prompt: str = "$ ", lines: int | None = None, note: bool = True) -> Text:
    """The command, escaped: ``$`` and its first line, then its other lines, runs of blank lines
    folded into a marker that counts them.

    Args:
        command: The command as it was given.
        prompt: What goes before its first line.
        lines: Show at most this many lines, then ``… 28 more lines`` for the rest (a row's fold);
            None shows them all.
        note: Write ``(+N more lines)`` beside the first line of a command of several (a card
            or the transcript, where the lines may be scrolled out of sight); a row leaves it out.
    """
    text = Text()
    lead = " " * len(prompt)
    shown = command_lines(command)
    kept = shown if lines is None else shown[: max(1, lines)]
    for index, line in enumerate(kept):
        text.append(prompt if index == 0 else lead, style="bold")
        text.append(line.text, style="dim italic" if line.blank_lines else "bold")
        if index == 0 and note and (more := more_lines(command)):
            text.append(f"  {more}", style="dim")
        text.append("\n")
    if hidden := sum(max(1, line.blank_lines) for line in shown[len(kept) :]):
        text.append(lead + more_shown(hidden) + "\n", style="dim")
    text.rstrip()
    return text


def command_folds(command: str, lines: int) -> bool:
    """The command has more than ``lines`` lines to show: its row folds it."""
    return len(command_lines(command)) > lines


class Heading(Static):
    """A row's title after its mark (``● ``, ``✓ ``, ``✗ ``, ``⏹ ``): a title wider than the row
    wraps under its own start, never back under the mark."""

    def __init__(self, mark: Text, title: str) -> None:
        self._mark, self.title_text = mark, title
        self._width = 0
        """The columns it was laid out in (0 before its first layout: one line, as it comes)."""
        super().__init__(self._laid_out(), classes="tool-title")

    def mark(self, mark: Text) -> None:
        """Show how the call stands now: ``mark`` before the same title."""
        self._mark = mark
        self.update(self._laid_out())

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            laid_out = self._laid_out()
            if laid_out.plain != str(self.content):
                self.update(laid_out)

    def _laid_out(self) -> Text:
        text = self._mark + Text(self.title_text)
        indent = self._mark.cell_len
        if not self._width or text.cell_len <= self._width or self._width <= indent + 8:
            return text
        text = self._mark.copy()
        for index, line in enumerate(Text(self.title_text).wrap(self.app.console, self._width - indent)):
            line.rstrip()
            text.append(("\n" + " " * indent) if index else "")
            text.append_text(line)
        return text


class ToolRow(Vertical, can_focus=True):
    """One tool call: its title, then the command's output or the file change's diff."""

    FOCUS_ON_CLICK = False
    """A click unfolds it and the cursor stays in the input box (tab reaches it for enter)."""

    def __init__(self, call_id: str, name: str, args: dict[str, JsonValue]) -> None:
        super().__init__(classes="tool-row running")
        self.call_id, self.tool_name, self.args = call_id, name, args
        self.header = Heading(Text("● "), tool_title(name, args))
        self.body = Static("", classes="tool-body")
        self.diff: str | None = edit_preview(name, args, None) if name in FILE_TOOLS else None
        self.result: str | None = None
        self.is_error = False
        self.expanded = False
        self.folds = False
        """Its output is longer than the folded row shows (a click unfolds it)."""
        self._unfolded: tuple[tuple[str, str | None, bool], str] | None = None
        """What it ended with, and the plain text it shows unfolded (see :meth:`unfolded_text`)."""
        if self.diff:
            self.body.update(diff_text(self.diff))

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.body

    def show_diff(self, diff: str) -> None:
        """Show the change's real diff (from the file as it was before the call)."""
        self.diff = diff
        if self.result is None:
            self.body.update(diff_text(diff))
        else:
            self._draw_end()

    def step(self, text: str) -> None:
        """While a subagent runs this call: what it does now."""
        if self.result is None:
            self.body.update(Text(f"↳ {escape_for_display(text, newlines=False)}", style="dim"))

    def live(self, partial: str) -> None:
        """While the call runs: the last :data:`LIVE_LINES` lines of its output so far."""
        if self.result is not None or not partial:  # nothing written yet
            return
        lines = self._output(partial.rstrip("\n")).split("\n", allow_blank=True)
        text = self._command(expanded=self.expanded)
        if len(lines) > LIVE_LINES:
            above = len(lines) - LIVE_LINES
            text.append(f"… {above} line{'' if above == 1 else 's'} above\n", style="dim")
        last = Text("\n").join(lines[-LIVE_LINES:])
        last.stylize_before("dim")
        text.append_text(last)
        self.body.update(text)

    def _output(self, output: str) -> Text:
        """A command's output as a terminal shows it (colours, carriage returns); any other
        tool's, escaped."""
        if self.tool_name == "execute":
            return terminal_text(output)
        return Text(escape_for_display(output))

    def end(self, result: str, *, is_error: bool) -> None:
        self.result, self.is_error = result, is_error
        self.remove_class("running")
        self.add_class("error" if is_error else "done")
        mark = Text("✗ ", style="red") if is_error else Text("✓ ", style="green")
        self.header.mark(mark)
        self._draw_end()

    def stored_end(self, result: ToolResultPart) -> None:
        """End as ``result``, the call's stored result, says: a call that was stopped before it
        finished is drawn as it was when it stopped, its last lines of output with it."""
        if result.diff is not None:  # kept with the result: the file as it was is gone
            self.diff = result.diff
        if was_interrupted(result):
            self.live(result.shown or "")  # its output when it was stopped, as its row showed it
            self.stop()
        else:
            self.end(result.shown or result.text, is_error=result.is_error)

    def stop(self) -> None:
        """The turn ended (cancelled, failed) while this call ran: it did not finish."""
        if self.result is not None or self.has_class("stopped"):  # ended, or said so already
            return
        self.remove_class("running")
        self.add_class("stopped")
        self.header.mark(Text("⏹ ", style="yellow"))
        shown = self.body.content
        stopped = shown.copy() if isinstance(shown, Text) else Text(str(shown or ""))
        if not stopped.plain:
            stopped = self._command(expanded=self.expanded)
            stopped.rstrip()
        stopped.append(("\n" if stopped.plain else "") + "stopped before it finished", style="dim")
        self.body.update(stopped)

    def toggle(self) -> None:
        """Unfold the whole output in place, or fold it again (nothing when it all shows)."""
        if self.result is not None and self.folds:
            self.expanded = not self.expanded
            self._draw_end()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def on_key(self, event: events.Key) -> None:
        if type_outside(self, event):
            return
        if event.key == "enter" and self.folds:
            event.stop()
            self.toggle()

    def _command(self, *, expanded: bool) -> Text:
        """The command of an execute call, on its own lines, folded as its output is (empty for
        other tools)."""
        text = Text()
        if self.tool_name == "execute" and isinstance(command := self.args.get("command"), str):
            text.append_text(command_text(command, lines=None if expanded else COMMAND_LINES, note=False))
            text.append("\n")
        return text

    def _command_folds(self) -> bool:
        command = self.args.get("command")
        return (
            self.tool_name == "execute" and isinstance(command, str) and command_folds(command, COMMAND_LINES)
        )

    def _draw_end(self) -> None:
        text, self.folds = self._end_text(expanded=self.expanded)
        self.body.update(text)

    def unfolded_text(self, leaf: Static) -> str | None:
        """What ``leaf``, its body, shows once the row unfolds, as plain text (None while it runs,
        when all of it shows already, or for its title): the find bar looks for its term in it."""
        if leaf is not self.body or self.result is None or not self.folds or self.expanded:
            return None
        drawn = (self.result, self.diff, self.is_error)
        if self._unfolded is None or self._unfolded[0] != drawn:  # worked out once per ending
            self._unfolded = (drawn, self._end_text(expanded=True)[0].plain)
        return self._unfolded[1]

    def _end_text(self, *, expanded: bool) -> tuple[Text, bool]:
        """The ended call's body, folded or not, and whether it folds."""
        result, is_error = self.result or "", self.is_error
        if self.tool_name in FILE_TOOLS and self.diff is not None and not is_error:
            body = diff_text(self.diff, lines=None if expanded else DIFF_LINES)
            folds = len(self.diff.splitlines()) > DIFF_LINES
            body.append("\n" + escape_for_display(result.strip()), style="dim")
            return self._hinted(body, folds=folds, expanded=expanded), folds
        output, status = split_status(trimmed(result)) if self.tool_name == "execute" else (result, None)
        if self.tool_name == WRITE_TODOS and not is_error:
            output = todo_marks(output)
        whole = self._output(trimmed(output))
        shown, more = (whole, 0) if expanded else clip_text(whole, OUTPUT_LINES)
        folds = expanded or more > 0 or self._command_folds()
        text = self._command(expanded=expanded)
        style = "red" if is_error else ""
        if style:
            shown = shown.copy()
            shown.stylize_before(style)
        text.append_text(shown)
        if more:
            text.append("\n" + more_shown(more), style="dim")
        if status is not None:
            text.append("\n" + status, style=style)
        return self._hinted(text, folds=folds, expanded=expanded), folds

    @staticmethod
    def _hinted(text: Text, *, folds: bool, expanded: bool) -> Text:
        if folds:
            text.append(f"\n[{FOLD if expanded else UNFOLD}]", style="dim italic")
        return text


_BLANK_START = re.compile(r"\A(?:[ \t\r]*\n)+")


def trimmed(output: str) -> str:
    """``output`` without the blank lines it starts and the blank space it ends with: its first
    line keeps its indentation (``     1\tline 1`` stays in line with the lines under it)."""
    return _BLANK_START.sub("", output.rstrip())


_PERSON_MARKS = {f"{mark} ": f"{TODO_MARKS[status]} " for status, mark in MARKS.items()}


def todo_marks(result: str) -> str:
    """A write_todos result with the todo box's marks (``◐ first``) where the model reads ``[>] first``."""
    return "\n".join(_PERSON_MARKS.get(line[:4], line[:4]) + line[4:] for line in result.splitlines())


__all__ = [
    "COMMAND_LINES",
    "DIFF_LINES",
    "FILE_TOOLS",
    "LIVE_LINES",
    "OUTPUT_LINES",
    "Heading",
    "ToolRow",
    "command_folds",
    "command_text",
    "diff_text",
    "trimmed",
]
