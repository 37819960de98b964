"""The cards in the input box's frame: approval, question and secret, each with its keys shown."""

from __future__ import annotations

import re

from rich.text import Text
from textual import _time, events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.ports.asker import Answer
from circle.domain.display import escape_for_display, one_line
from circle.entrypoints.tui._desk import DENIED, STOPPED, Pending, refused
from circle.entrypoints.tui.widgets.card_fit import fit_card, release
from circle.entrypoints.tui.widgets.card_keys import (
    APPROVAL_KEYS,
    SECRET_KEYS,
    KeysLine,
    keeping_scroll,
    paused_keys,
    question_keys,
    typed_answer_keys,
    typing_keys,
)
from circle.entrypoints.tui.widgets.conversation import command_text, diff_text
from circle.entrypoints.tui.widgets.markdown import ChatMarkdown
from circle.entrypoints.tui.widgets.paging import page_by
from circle.entrypoints.tui.widgets.stale_keys import TakesTyping, pass_on

READY_S = 0.5
"""Seconds a card is on screen before it takes a key. What is typed before that is not an answer:
"hello" and its enter, typed as an approval card came up, would answer it with the highlighted
option (Allow once); those keys go to the input box (as Firefox holds its install buttons for a
moment after showing them)."""
PREVIEW_LINES = 2_000
"""Lines of a change's diff the card shows, scrolled inside it (pgup pgdn); past them, ctrl+o's
transcript has the whole diff. Cut at 30, an overwrite of an 80-line file showed only lines it
took away, none of what the file would hold."""
PLAN_ROWS = 6
"""Rows a plan's card gives its plan before the card goes tight (the plan box gives way, the frame
grows): at 80x24 it had 3, which showed the plan's title and a blank line."""
SCROLL_KEYS = ("pageup", "pagedown")
BACKGROUND_NOTE = "It runs in the background as a job; /jobs shows its output."
SHORTCUTS = {"1": 0, "2": 1, "n": 2, "3": 2}
"""An approval card's keys for its options: numbers, as in Claude Code, and n to deny. A letter
that allows began many a word typed at the card: "a" ("and", "also", "actually") allowed every
later command of the kind without asking, and "y" typed slowly ("yes, but…", a key a second)
allowed the command before the rest of the word came. Denying by a letter fails safe."""


class Card(Vertical, can_focus=True):
    """A card: a title with its lamp, a body, numbered options and the keys."""

    class Answered(Message):
        """The card's answer; ``stop_turn``: the person also stopped the turn (esc on an approval)."""

        def __init__(self, pending: Pending, value: object, *, stop_turn: bool = False) -> None:
            super().__init__()
            self.pending = pending
            self.value = value
            self.stop_turn = stop_turn

    least_body = 3
    """Rows of its body below which the card goes tight (``card_fit``)."""
    esc_said = "esc"
    """What its keys line calls its esc while words typed show above it."""

    def __init__(
        self, pending: Pending, *, title: str, options: list[str], keys: str | tuple[str, ...]
    ) -> None:
        super().__init__(classes=f"card {pending.kind}-card")
        self.pending = pending
        self.title_text = title
        self.options = options
        self.keys = keys
        self.selected = 0
        self.option_lines = Static("", classes="card-options")
        self.answered = False
        """Answered: it goes, and the keys typed after the answer are the person's next words."""
        self.shown_at: float | None = None
        """When the card was first drawn on the screen, in the keys' seconds (None until then)."""
        self.beside_words = False
        """The input box above shows words typed: the keys line says so."""
        self.typing_words = False
        """They are being typed (the keys typed go there): the keys line says typing goes there."""
        self.keys_line = Static("", classes="card-keys")

    def body(self) -> ComposeResult:
        yield from ()

    def compose(self) -> ComposeResult:
        yield Static(Text("● ", style="yellow") + Text(self.title_text, style="bold"), classes="card-title")
        yield from self.body()
        yield self.option_lines
        yield self.keys_line

    def words_above(self, shown: bool, *, typing: bool = True) -> None:
        """The input box above the card shows words typed (``shown``), or no longer does: while
        they are being ``typing``, the keys line says where typing goes (enter sends it, the card
        waits); once the typing paused, what its keys do then (:meth:`paused_wordings`); else the
        card's keys."""
        typing = shown and (typing or self.paused_wordings() is None)
        if (shown, typing) != (self.beside_words, self.typing_words):
            self.beside_words, self.typing_words = shown, typing
            self._show_keys()

    def paused_wordings(self) -> tuple[str, ...] | None:
        """Its keys line once the typing of the words above it paused: its keys answer it again,
        enter sends the words. None for a card whose keys pick nothing: it keeps saying where
        typing goes."""
        return paused_keys(self.keys) if self.options else None

    @property
    def body_scrolls(self) -> bool:
        """Its body is longer than the rows it has: pgup and pgdn reach the rest."""
        return any(c.show_vertical_scrollbar for c in self.children if isinstance(c, VerticalScroll))

    def _show_keys(self) -> None:
        if not self.beside_words:
            said: str | tuple[str, ...] = self.keys
        else:
            said = typing_keys(self.esc_said)
            if not self.typing_words:
                said = self.paused_wordings() or said
        wordings = (said,) if isinstance(said, str) else said
        self.keys_line.update(KeysLine(keeping_scroll(wordings) if self.body_scrolls else wordings))

    def on_mount(self) -> None:
        self._draw()
        self._show_keys()
        self.call_after_refresh(self._drawn)
        for scroll in self.children:  # a body that comes to scroll (or no longer does) says so
            if isinstance(scroll, VerticalScroll):
                self.watch(scroll, "show_vertical_scrollbar", self._scrolls, init=False)

    def _scrolls(self, _: bool) -> None:
        self._show_keys()

    def _drawn(self) -> None:
        if self.shown_at is None:
            self.shown_at = _time.get_time()

    def ready(self, at: float) -> bool:
        """Whether a key read at ``at`` (its ``time``) is the card's: the card had been on the
        screen ``READY_S`` by then."""
        return self.shown_at is not None and at - self.shown_at >= READY_S

    def on_resize(self) -> None:
        """The body scrolls in what the frame leaves, so the options always show."""
        self.call_after_refresh(fit_card, self)

    def on_unmount(self) -> None:
        release(self)

    def _draw(self) -> None:
        text = Text()
        for index, option in enumerate(self.options):
            pointer = "❯ " if index == self.selected else "  "
            text.append(
                f"{pointer}{index + 1}. {option}\n", style="bold reverse" if index == self.selected else ""
            )
        text.rstrip()
        self.option_lines.update(text)
        self.option_lines.display = bool(self.options)  # the secret's: its blank rows hid the keys

    def binds(self, key: str) -> bool:
        """Whether a printable ``key`` picks an option here (its own box takes the rest)."""
        return False

    def shortcut(self, key: str) -> bool:
        """Act on ``key``, a key :meth:`binds`, read a moment ago; True when it acted."""
        return False

    def move(self, step: int) -> None:
        if self.options:
            self.selected = (self.selected + step) % len(self.options)
            self._draw()

    def finish(self, value: object, *, stop_turn: bool = False) -> None:
        if not self.answered:
            self.answered = True
            self.post_message(self.Answered(self.pending, value, stop_turn=stop_turn))

    async def on_event(self, event: events.Event) -> None:
        """A key read after the answer (typed at once after it: esc then a letter) goes into the
        input box, not to this card, which is going."""
        if isinstance(event, events.Key) and self.answered:
            screen = self.screen
            if isinstance(screen, TakesTyping) and screen.take_typed(event):
                return
            if pass_on(self, event):  # an enter behind those words: the box has the focus now
                return
        await super().on_event(event)


def without_file_lines(diff: str) -> str:
    """``diff`` without the ``--- a/…`` and ``+++ b/…`` lines before each file's first hunk: the
    card's title names the file, and on a short screen those lines took the rows of the change."""
    lines = diff.split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        pair = lines[index : index + 3]
        if (
            len(pair) == 3
            and pair[0].startswith("--- ")
            and pair[1].startswith("+++ ")
            and pair[2].startswith("@@")
        ):
            index += 2
            continue
        kept.append(lines[index])
        index += 1
    return "\n".join(kept)


_SAVED = re.compile(r"\A(?P<ask>[^\n]+?) \(saved to (?P<path>[^\n]+)\)\n\n(?P<rest>.+)\Z", re.DOTALL)
"""A question whose first line names where what follows was saved (plan_exit's)."""


def _heading(question: str) -> tuple[str, str, str] | None:
    """A question that begins "Accept this plan? (saved to …)" and a blank line: its first line
    (the card's title), where it was saved (a line above the rest) and the rest. That line, wrapped, and
    the blank one took three of the rows the plan had at 80x24."""
    found = _SAVED.match(question)
    if found is None:
        return None
    return found["ask"], found["path"], found["rest"]


def _background(request: ApprovalRequest) -> bool:
    """The command is to run as a background job (execute with ``background``, read as the tool's
    arguments read it: a true value, 1, or "true", "yes", "on" and the like)."""
    value = request.arguments.get("background")
    if isinstance(value, str):
        return value.strip().lower() in ("1", "on", "t", "true", "y", "yes")
    return value is True or value == 1


class ApprovalCard(Card):
    """Allow once, allow for this session, or deny: the command, or the file and its diff."""

    CHOICES = ("Allow once", "Allow for this session", "Deny")
    esc_said = "esc stop"
    DEFAULT_CSS = """
    ApprovalCard .card-command, ApprovalCard .card-summary {
        height: auto;
        max-height: 20vh;
        min-height: 1;
    }
    """

    def __init__(self, pending: Pending) -> None:
        request = pending.approval
        assert request is not None
        if request.kind == "execute":
            title = "Run this command in the background?" if _background(request) else "Run this command?"
        elif request.kind == "edit":
            title = f"Allow this change? {one_line(request.subject or request.summary)}"
        else:
            title = f"Allow {one_line(request.tool_name)}?"
        super().__init__(
            pending,
            title=title,
            options=list(self.CHOICES),
            keys=APPROVAL_KEYS,
        )

    def body(self) -> ComposeResult:
        """The whole command (or summary), escaped, in a scroll of its own so the options stay in
        sight however long it is."""
        request = self.pending.approval
        assert request is not None
        if request.kind == "execute":
            with VerticalScroll(classes="card-command"):
                yield Static(command_text(request.summary), classes="card-command-text")
        elif self.pending.preview:
            with VerticalScroll(classes="card-diff"):
                yield Static(diff_text(without_file_lines(self.pending.preview), lines=PREVIEW_LINES))
        else:
            with VerticalScroll(classes="card-summary"):
                yield Static(Text(escape_for_display(request.summary)), classes="card-summary-text")
        if request.kind == "execute" and _background(request):
            yield Static(Text(BACKGROUND_NOTE, style="yellow"), classes="card-note")
        if request.outside_workspace:
            yield Static(Text("It writes outside the workspace.", style="yellow"), classes="card-note")
        if request.ask_reason and not request.by_mode:  # the status line shows the mode
            why = escape_for_display(request.ask_reason, newlines=False)
            yield Static(Text(f"It asks because {why}.", style="yellow"), classes="card-note")

    def choose(self, index: int) -> None:
        if index == 0:
            self.finish(ApprovalDecision(allowed=True))
        elif index == 1:
            self.finish(ApprovalDecision(allowed=True, remember=True))
        else:
            self.finish(refused(DENIED))

    def binds(self, key: str) -> bool:
        return key in SHORTCUTS

    def shortcut(self, key: str) -> bool:
        if key not in SHORTCUTS or self.answered:
            return False
        self.choose(SHORTCUTS[key])
        return True

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            self.finish(refused(STOPPED), stop_turn=True)
        elif event.key in SHORTCUTS:
            self.choose(SHORTCUTS[event.key])
        elif event.key == "enter":
            self.choose(self.selected)
        elif event.key in ("up", "down"):
            self.move(-1 if event.key == "up" else 1)
        elif event.key in SCROLL_KEYS:
            for scroll in self.query(VerticalScroll):
                page_by(scroll, -1 if event.key == "pageup" else 1)  # each key a page, however quick
        else:
            return
        event.stop()
        event.prevent_default()


class QuestionCard(Card):
    """The model's questions, one after another: pick an option (space marks several when
    allowed) or type an answer; esc dismisses them all."""

    esc_said = "esc dismisses"
    DEFAULT_CSS = """
    QuestionCard .card-note {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, pending: Pending) -> None:
        self.index = 0
        self.answers: list[Answer] = []
        self.marked: set[int] = set()
        self.question_text = ChatMarkdown(classes="card-question")
        self.saved = Static("", classes="card-note")
        self.typed = Input(
            placeholder="or type an answer, then enter", id="question-input", select_on_focus=False
        )
        super().__init__(pending, title="", options=[], keys="")
        self._load()

    def _load(self) -> None:
        question = self.pending.questions[self.index]
        count = len(self.pending.questions)
        self.title_text = "A question" if count == 1 else f"Question {self.index + 1} of {count}"
        heading = _heading(question.question)
        self.least_body = PLAN_ROWS if heading is not None else 3
        if heading is not None:
            self.title_text = heading[0] if count == 1 else f"{self.title_text}: {heading[0]}"
        self.options = list(question.options)
        self.selected = 0
        self.marked = set()
        self.keys = question_keys(options=bool(self.options), several=question.multiple)
        self.question_text.show(question.question if heading is None else heading[2])
        self.saved.update(Text(f"saved to {heading[1]}" if heading else "", style="dim"))
        self.saved.display = heading is not None
        self.typed.value = ""

    def body(self) -> ComposeResult:
        with VerticalScroll(classes="card-question-scroll"):
            yield self.saved  # scrolls away with the plan's first page
            yield self.question_text
        yield self.typed

    def _draw(self) -> None:
        text = Text()
        multiple = self.pending.questions[self.index].multiple
        for index, option in enumerate(self.options):
            pointer = "❯ " if index == self.selected else "  "
            box = ("[x] " if index in self.marked else "[ ] ") if multiple else ""
            style = "bold reverse" if index == self.selected else ""
            text.append(f"{pointer}{index + 1}. {box}{option}\n", style=style)
        text.rstrip()
        self.option_lines.update(text)
        self.option_lines.display = bool(self.options)
        for child in self.query(".card-title"):
            if isinstance(child, Static):
                child.update(Text("● ", style="yellow") + Text(self.title_text, style="bold"))
        self._show_keys()

    def on_mount(self) -> None:
        super().on_mount()
        if not self.options:
            self.typed.focus()

    def paused_wordings(self) -> tuple[str, ...] | None:
        """With no options, what is typed answers it (its field takes the keys once the typing of
        the words above paused): its line says so, not where typing goes."""
        return super().paused_wordings() if self.options else typed_answer_keys(self.esc_said)

    def _next(self, answer: Answer) -> None:
        self.answers.append(answer)
        if len(self.answers) == len(self.pending.questions):
            self.finish(self.answers)
            return
        self.index += 1
        self._load()
        self._draw()
        if not self.options:
            self.typed.focus()
        else:
            self.focus()

    def _pick(self) -> None:
        typed = self.typed.value.strip()
        if self.pending.questions[self.index].multiple and self.options:
            chosen = tuple(self.options[i] for i in sorted(self.marked)) or (
                (self.options[self.selected],) if not typed else ()
            )
        elif self.options and not typed:
            chosen = (self.options[self.selected],)
        else:
            chosen = ()
        if not chosen and not typed:
            return
        self._next(Answer(chosen=chosen, text=typed))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._pick()

    def on_key(self, event: events.Key) -> None:
        key = event.key
        typing = self.typed.has_focus and self.typed.value
        if key == "escape":
            self.finish(None)
        elif key == "enter":
            self._pick()
        elif key in ("up", "down") and self.options:
            self.move(-1 if key == "up" else 1)
            self.focus()
        elif key in SCROLL_KEYS:  # a long question (a plan) scrolls in its own box
            scroll = self.query_one(".card-question-scroll", VerticalScroll)
            page_by(scroll, -1 if key == "pageup" else 1)
        elif key == "space" and not typing and self.pending.questions[self.index].multiple:
            self.marked ^= {self.selected}
            self._draw()
        elif not typing and key.isdigit() and 0 < int(key) <= len(self.options):
            self.selected = int(key) - 1
            if self.pending.questions[self.index].multiple:
                self.marked ^= {self.selected}
                self._draw()
            else:
                self._pick()
        else:
            if event.is_printable:  # not the input's (it takes its own), though the focus may have
                self.typed.focus()  # moved there since the key was sent here: typed fast, it was lost
                self.typed.insert_text_at_cursor(event.character or "")
                event.stop()
            return
        event.stop()
        event.prevent_default()


class SecretCard(Card):
    """A secret's value, masked as it is typed; enter saves it, esc does not."""

    esc_said = "esc cancels"

    def __init__(self, pending: Pending) -> None:
        request = pending.secret
        assert request is not None
        super().__init__(
            pending,
            title=f"The value of the secret {request.name}",
            options=[],
            keys=SECRET_KEYS,
        )
        self.value = Input(password=True, placeholder="value (hidden)", id="secret-input")

    def body(self) -> ComposeResult:
        request = self.pending.secret
        assert request is not None
        if request.why:
            yield Static(Text(request.why), classes="card-summary")
        yield self.value

    def on_mount(self) -> None:
        super().on_mount()
        self.value.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value:
            self.finish(event.value)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.finish(None)


def card_for(pending: Pending) -> Card:
    if pending.kind == "approval":
        return ApprovalCard(pending)
    if pending.kind == "question":
        return QuestionCard(pending)
    return SecretCard(pending)


__all__ = ["ApprovalCard", "Card", "QuestionCard", "SecretCard", "card_for"]
