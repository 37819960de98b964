"""The rows an answer is drawn with: its streamed Markdown, its folded thinking, the turn's end
line and Circle's own notices.

:class:`~circle.entrypoints.tui.widgets.conversation.ConversationView` puts them together.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.timer import Timer
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle

from circle.domain.display import escape_for_display
from circle.entrypoints.tui._format import fit_turn_line
from circle.entrypoints.tui.widgets.markdown import ChatMarkdown

DRAWS_PER_S = 15


class Notice(Static):
    """A line from Circle itself: errors, retries, compaction, budget, help."""

    def __init__(self, text: str, *, kind: str = "info") -> None:
        super().__init__(Text(escape_for_display(text)), classes=f"notice {kind}")
        self.kind = kind

    def say(self, text: str, *, kind: str = "info") -> None:
        """Show ``text`` instead: a line that told of work going on now tells how it ended."""
        self.remove_class(self.kind)
        self.kind = kind
        self.add_class(kind)
        self.update(Text(escape_for_display(text)))


class TurnLine(Static):
    """The line under a turn, kept on one line at any width: its least telling parts give way
    (see :func:`~circle.entrypoints.tui._format.fit_turn_line`), and come back when there is room."""

    def __init__(self, text: str) -> None:
        super().__init__(Text(text), classes="turn-line")
        self.text = text

    def on_resize(self, event: events.Resize) -> None:
        fitted = fit_turn_line(self.text, event.size.width) if event.size.width else self.text
        if fitted != str(self.content):
            self.update(Text(fitted))


class Answer(ChatMarkdown):
    """An answer as it streams: the text so far, drawn at most :data:`DRAWS_PER_S` times a second.

    Each draw parses the text again but draws only the blocks that changed (the last one, as a
    rule); the blocks above keep the lines they were drawn with.
    """

    def __init__(self) -> None:
        super().__init__("", classes="answer")
        self.text = ""
        self._timer: Timer | None = None

    @classmethod
    def stored(cls, text: str) -> Answer:
        """A whole answer from a stored session."""
        answer = cls()
        answer.text = text
        answer.show(text)
        return answer

    def on_mount(self) -> None:
        self.call_after_refresh(self._flush)  # mounted once the mount handlers have run

    def add(self, delta: str) -> None:
        self.text += delta
        if self._timer is None and self.is_mounted:
            self._timer = self.set_interval(1 / DRAWS_PER_S, self._flush)

    def finish(self, text: str) -> None:
        self.text = text
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._flush()

    def _flush(self) -> None:
        if self.is_mounted:
            self.show(self.text, growing=self._timer is not None)


class _Title(CollapsibleTitle):
    """A thinking block's title: a click opens or folds the block and the cursor stays where it
    was (the input box, as a rule), so enter, ctrl+u and the arrows still act on the box; tab
    reaches it for enter."""

    FOCUS_ON_CLICK = False


class Thinking(Collapsible):
    """Thinking, folded: a click (or enter once tab has reached its title) opens it."""

    def __init__(self, text: str = "") -> None:
        self.body = Static(Text(escape_for_display(text), style="italic"), classes="thinking-text")
        self.text = text
        self.done = False
        self.was_cut = False
        """The answer stopped (esc, an error, its length) while this thinking still streamed."""
        super().__init__(self.body, title="Thinking…", collapsed=True, classes="thinking")
        self._title = _Title(label="Thinking…", collapsed_symbol="▶", expanded_symbol="▼", collapsed=True)

    def add(self, delta: str) -> None:
        self.text += delta
        self.body.update(Text(escape_for_display(self.text), style="italic"))
        if self.done:  # more after the answer started: the count follows
            self.finish()

    def finish(self) -> None:
        self.done = True
        cut = ", cut" if self.was_cut else ""
        words = len(self.text.split())
        self.title = f"Thought ({words} word{'' if words == 1 else 's'}{cut})"

    def cut(self) -> None:
        """The answer stopped: thinking that had not given way to the answer says it was cut,
        folded or open as it was."""
        if not self.done:
            self.was_cut = True
            self.finish()


__all__ = ["DRAWS_PER_S", "Answer", "Notice", "Thinking", "TurnLine"]
