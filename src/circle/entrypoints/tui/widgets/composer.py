"""The input box: multi-line editing, large pastes folded, history, and completion of /commands
and @files."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events, work
from textual.dom import DOMNode
from textual.message import Message
from textual.widgets import Input, OptionList, TextArea
from textual.widgets.option_list import Option

from circle.entrypoints.tui import _mentions, _pastes, _slash
from circle.entrypoints.tui._history import InputHistory

TYPING_PAUSE_S = 1.2

Lister = Callable[[str], Awaitable[list[tuple[str, bool]]]]
"""Lists a folder (relative to the workspace, "" for it): (name, is a folder) pairs."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One completion: what replaces the text from ``start`` to the cursor."""

    label: str
    replacement: str
    start: int
    is_dir: bool = False


class CompletionList(OptionList):
    """The list above the input box; the composer drives it."""

    def __init__(self) -> None:
        super().__init__(id="completions")
        self.choices: list[Choice] = []

    def show(self, choices: list[Choice]) -> None:
        self.choices = choices
        self.clear_options()
        self.add_options([Option(Text(choice.label)) for choice in choices])
        self.highlighted = 0 if choices else None
        self.display = bool(choices)

    def hide(self) -> None:
        self.choices = []
        self.display = False

    @property
    def open(self) -> bool:
        return bool(self.display and self.choices)

    @property
    def current(self) -> Choice | None:
        if not self.open or self.highlighted is None:
            return None
        return self.choices[self.highlighted]


class Composer(TextArea):
    """Where the person writes. Enter sends; ctrl+j (or a trailing backslash) starts a new line."""

    class Submitted(Message):
        """The person sent ``text`` (pastes put back); ``typed`` is it as the box showed it."""

        def __init__(self, text: str, *, typed: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.typed = text if typed is None else typed

    class StripWanted(Message):
        """↓ on an empty input: the person wants the strip of subagents and jobs; ``enter``: the
        enter read right behind that ↓ (before the strip took the focus), to open its record."""

        def __init__(self, *, enter: bool = False) -> None:
            super().__init__()
            self.enter = enter

    class HistorySearchWanted(Message):
        """ctrl+r: search the history."""

    def __init__(
        self,
        *,
        history: InputHistory,
        completions: CompletionList,
        lister: Lister | None = None,
        clock: Callable[[], float],
    ) -> None:
        super().__init__(id="composer", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.prompts = history
        self.completions = completions
        self.lister = lister
        self.clock = clock
        self.pastes: dict[int, str] = {}
        self.last_typed = float("-inf")
        self._strip_asked = False
        """↓ on the empty box asked for the strip, and no key came here since."""
        self._completed_for = ""  # the text the completion list was made for
        self.beside_card = False
        """Shown above a card for the words typed at it: the focus stays on the card."""
        self.custom_commands: tuple[_slash.SlashCommand, ...] = ()
        """The custom commands the completion list offers after the built-in ones."""

    @property
    def typing(self) -> bool:
        """The person typed within the last moments and has text in the box."""
        return bool(self.text.strip()) and self.clock() - self.last_typed < TYPING_PAUSE_S

    @property
    def _draw_cursor(self) -> bool:
        """Shown above a card, with words in it, the box draws its cursor (steady) while the card
        keeps the focus: Textual draws it only in a focused box, so the person could not see where
        the editing keys (left, right, home, end) put their next word."""
        if self.beside_card and self.display and self.text:
            return True
        return bool(super()._draw_cursor)

    def set_text(self, text: str) -> None:
        self.text = text
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document[last])))

    def type_text(self, text: str) -> None:
        """Text typed while another widget had the focus, put in at the cursor."""
        self.last_typed = self.clock()
        self.insert(text)

    def expanded(self, text: str) -> str:
        """``text`` with every folded paste put back."""
        return _pastes.expanded(text, self.pastes)

    async def _on_key(self, event: events.Key) -> None:
        self.last_typed = self.clock()
        key = event.key
        if event.is_printable and not self.has_focus and self.display and self.screen is self.app.screen:
            self._take_focus_back()  # hidden behind a card, it leaves the focus on the card
        handled = True
        asked, self._strip_asked = self._strip_asked, False
        if key in ("enter", "tab") and self.completions.open and self.text != self._completed_for:
            self._complete()  # the list is for an earlier text: the change is still queued
        if key == "enter" and asked and not self.text:  # ↓ enter in one burst: for the strip
            self.post_message(self.StripWanted(enter=True))
        elif key == "enter":
            self._enter()
        elif key == "ctrl+j":
            self.insert("\n")
        elif key == "tab" and not self.completions.open and (fragment := self._mention_at_cursor()):
            self.completions.show(await self._mention_list(fragment))  # read before the list came
            self._accept()
        elif key == "tab" and self.completions.open:
            self._accept()
        elif key == "escape" and self.completions.open:
            self.completions.hide()
        elif key == "escape":  # the screen's esc (stop the turn) acts before the keys read behind it
            handled = await self._run_binding(key, self.screen)
        elif key == "ctrl+r":
            self.post_message(self.HistorySearchWanted())
        else:
            handled = False
        if not handled:
            handled = await self._run_binding(key)
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _take_focus_back(self) -> None:
        """A printable key queued here before the focus moved to a part with no text (the strip,
        selected by a ↓ read in the same burst) is typed here, and the focus comes back with it,
        so the enter typed next sends the text rather than acting on that part."""
        focused = self.screen.focused
        if self.beside_card:
            return
        if focused is None or not isinstance(focused, (Input, TextArea)):
            self.screen.set_focus(self)

    async def _run_binding(self, key: str, owner: DOMNode | None = None) -> bool:
        """Run the box's own binding of ``key`` (backspace, the arrows, ctrl+w), or ``owner``'s,
        now. Textual runs a widget's bindings once the key has bubbled back up to the app, after
        the keys behind it in the same burst were typed: backspace then q, read together, deleted
        the q; esc then a message stopped the turn after the message was sent, to the turn."""
        owner = owner or self
        for binding in owner._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, owner):
                return True
        return False

    async def _on_paste(self, event: events.Paste) -> None:
        self.last_typed = self.clock()
        self._put(_pastes.line_breaks(event.text))
        event.stop()
        event.prevent_default()

    def put_back(self, texts: list[str]) -> None:
        """Messages sent but never read (their turn was stopped) come back before what the box
        holds, one a line, a long one folded as a paste is."""
        if not texts:
            return
        held = self.text
        self.text = ""
        for number, text in enumerate(texts):
            if number:
                self.insert("\n")
            self._put(text)
        if held:
            self.insert("\n" + held)
        self.move_cursor(self.document.end)

    def _put(self, text: str) -> None:
        number = len(self.pastes) + 1
        if (folded := _pastes.label(number, text)) is not None:
            self.pastes[number] = text
        self.insert(text if folded is None else folded)

    def _enter(self) -> None:
        if self.completions.open:
            choice = self.completions.current
            self._accept()
            if choice is not None and (choice.is_dir or not self.text.startswith("/")):
                return
            command = _slash.BY_NAME.get(choice.label.split()[0][1:]) if choice is not None else None
            if command is not None and command.usage and not command.usage.startswith("["):
                return  # it needs an argument: let the person type it
        row, column = self.cursor_location
        line = self.document[row]
        if column == len(line) and line.endswith("\\"):
            self.replace("\n", (row, column - 1), (row, column))
            return
        text = self.text
        if not text.strip():
            return
        self.post_message(self.Submitted(self.expanded(text), typed=text))
        self.clear_all()  # now: a key read right behind Enter goes in the emptied box, and stays

    def clear_all(self) -> None:
        self.text = ""
        self.pastes.clear()
        self.completions.hide()

    def action_cursor_up(self, select: bool = False) -> None:
        if self.completions.open and not select:
            self.completions.action_cursor_up()
            return
        if not select and self.cursor_location[0] == 0:
            older = self.prompts.older(self.text)
            if older is not None:
                self.set_text(older)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self.completions.open and not select:
            self.completions.action_cursor_down()
            return
        if not select and self.cursor_location[0] == self.document.line_count - 1:
            newer = self.prompts.newer()
            if newer is not None:
                self.set_text(newer)
            elif not self.text:
                self.post_message(self.StripWanted())
                self._strip_asked = True
            return
        super().action_cursor_down(select)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._complete()

    def _complete(self) -> None:
        text = self._completed_for = self.text
        if text.startswith("/") and "\n" not in text and " " not in text:
            found = _slash.completions(text, self.custom_commands)
            exact = len(found) == 1 and found[0].name == text[1:]
            choices = [
                Choice(f"/{c.name} {c.usage}".strip() + f"  {c.summary}", f"/{c.name} ", 0) for c in found
            ]
            self.completions.show([] if exact else choices)
            return
        cursor = self._offset_at_cursor()
        fragment = _mentions.fragment_at(text, cursor)
        if fragment is None or self.lister is None:
            self.completions.hide()
            return
        self._mention_choices(fragment)

    def _mention_at_cursor(self) -> _mentions.Fragment | None:
        """The @path being typed at the cursor (None without one, or with no lister)."""
        if self.lister is None:
            return None
        return _mentions.fragment_at(self.text, self._offset_at_cursor())

    @work(exclusive=True, group="mentions")
    async def _mention_choices(self, fragment: _mentions.Fragment) -> None:
        self.completions.show(await self._mention_list(fragment))

    async def _mention_list(self, fragment: _mentions.Fragment) -> list[Choice]:
        assert self.lister is not None
        folder, prefix = _mentions.split_typed(fragment.typed)
        try:
            entries = await self.lister(folder)
        except OSError:
            entries = []
        choices = []
        for name, is_dir in sorted(entries, key=lambda e: (not e[1], e[0].lower())):
            if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
                continue
            path = folder + name + ("/" if is_dir else "")
            written = _mentions.written(path, quoted=fragment.quoted, is_dir=is_dir)
            replacement = written if is_dir else written + " "
            choices.append(Choice(path, replacement, fragment.start, is_dir=is_dir))
        return choices[:50]

    def _offset_at_cursor(self) -> int:
        row, column = self.cursor_location
        return sum(len(self.document[r]) + 1 for r in range(row)) + column

    def _accept(self) -> None:
        choice = self.completions.current
        self.completions.hide()
        if choice is None:
            return
        cursor = self._offset_at_cursor()
        text = self.text
        self.set_text(text[: choice.start] + choice.replacement + text[cursor:])
        if text[cursor:]:
            before = (text[: choice.start] + choice.replacement).split("\n")
            self.move_cursor((len(before) - 1, len(before[-1])))
        if choice.is_dir:
            self._complete()


__all__ = ["Choice", "CompletionList", "Composer", "Lister"]
