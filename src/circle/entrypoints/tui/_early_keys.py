"""Keys typed before the session screen is up: held, then given to its input box in order.

A terminal keeps what is typed while a program starts, until the program reads it. Circle reads
it in two places: the theme question (OSC 11, see ``_theme.py``) reads whatever was typed before
the terminal's answer, and Textual's driver reads the rest once the app runs, while "Starting
Circle…" shows and no input box exists yet. Either way the keys would reach no widget; the app
holds them here, shows what they wrote under "Starting Circle…" as they come (a key shows at once,
not when Circle is up), and gives the input box what they wrote once it is mounted, with its cursor
where they left it: the arrows, home and end, delete and the box's ctrl keys edit as they would in
the box ("helo", ←, "l" writes "hello"). Screens that ask a question first (setup, trust, the
session picker) get their keys as usual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from textual import events
from textual._xterm_parser import XTermParser  # Textual's own terminal parser, as its driver uses it
from textual.message import Message

from circle.entrypoints.tui._pastes import expanded, label, line_breaks

EDIT_KEYS = frozenset(
    {"left", "right", "home", "end", "ctrl+a", "ctrl+e", "ctrl+left", "ctrl+right"}
    | {"backspace", "delete", "ctrl+u", "ctrl+k", "ctrl+w"}
)
"""Keys that move the cursor or delete, as the input box (a TextArea) binds them; worked out on
the text held (see :func:`edited`)."""
NEW_LINE_KEYS = frozenset({"ctrl+j", "shift+enter"})
"""Keys that start a new line in the box (as a trailing backslash and enter does)."""
HELD_KEYS = frozenset({"enter"}) | NEW_LINE_KEYS | EDIT_KEYS
"""Keys held besides printable ones: what writing, editing and sending a message takes. Others
(ctrl+c, esc, ↑ and ↓, which in the box would bring back an earlier message) act at once, as they
would on the starting screen. Enter is enter and ctrl+j ctrl+j: the interface has the terminal's
keys as typed from its start (``_keys_mode.py``), so no enter comes as ctrl+j."""
_WORD = re.compile(r"(?<=\W)(?=\w)|(?<=\w)(?=\W)")
"""Where a word begins or ends, as the input box (a TextArea) finds it."""


class Sent(NamedTuple):
    """A message sent with enter: ``text`` as the model gets it (pastes put back), ``typed`` as
    the box showed it (long pastes folded), which the person's row shows."""

    text: str
    typed: str


@dataclass(frozen=True, slots=True)
class Typed:
    """What the held keys wrote: the messages sent with enter, the text left in the box, and how
    many of its characters are after the cursor (0: it is at the end)."""

    sent: tuple[Sent, ...] = ()
    text: str = ""
    after: int = 0
    pastes: tuple[str, ...] = ()
    """The long pastes folded in :attr:`text`, as the box folds them: ``[pasted text #1, …]`` is
    the first (the box numbers its pastes from 1 too)."""

    @property
    def location(self) -> tuple[int, int]:
        """The cursor's row and column in :attr:`text` (the input box's location)."""
        before = self.text[: len(self.text) - self.after].split("\n")
        return len(before) - 1, len(before[-1])


def typed_events(typed: str) -> list[Message]:
    """The key and paste events in ``typed``, bytes the terminal had before the app started."""
    parser = XTermParser()
    found = list(parser.feed(typed)) if typed else []
    return found + list(parser.feed(""))


class EarlyKeys:
    """What was typed before the input box was there, in order.

    Args:
        typed: Text read from the terminal before the app started (the theme question's leftovers).
    """

    def __init__(self, typed: str = "") -> None:
        self.held: list[events.Event] = []
        self.released = False
        self._sent: list[Sent] = []
        """Messages sent with enter before the keys held now (see :meth:`clear`)."""
        self.interrupts = 0
        """ctrl+c pressed in ``typed`` with no text to let go of: the app acts on them as on a
        ctrl+c read once it runs (a second leaves)."""
        for event in typed_events(typed):
            if isinstance(event, events.Key) and event.key == "ctrl+c":
                if self.written().text:
                    self.clear()
                else:
                    self.interrupts += 1
            elif isinstance(event, events.Event) and self._wanted(event):
                self.held.append(event)

    def hold(self, event: events.Event) -> bool:
        """Keep ``event`` for the input box when it is typing (True), else leave it (False)."""
        if self.released or not self._wanted(event):
            return False
        self.held.append(event)
        return True

    def release(self) -> Typed:
        """What the held keys wrote, worked out here rather than replayed (a replayed backspace,
        a binding, would act after the keys behind it); from now on nothing is held."""
        typed = self.written()
        self.held, self.released = [], True
        return typed

    def clear(self) -> None:
        """ctrl+c: the text held is let go, as ctrl+c empties the box; what enter sent stays sent."""
        self._sent = list(self.written().sent)
        self.held = []

    def written(self) -> Typed:
        """What the keys held so far wrote (the starting screen shows it as it is typed)."""
        sent = list(self._sent)
        pastes: list[str] = []
        text, at = "", 0
        for event in self.held:
            written: str | None = None
            if isinstance(event, events.Paste):
                written = line_breaks(event.text)
                if (folded := label(len(pastes) + 1, written)) is not None:
                    pastes.append(written)
                    written = folded
            elif not isinstance(event, events.Key):
                continue
            elif event.key == "enter" and text[:at].endswith("\\") and at == _line_end(text, at):
                text, at = text[: at - 1] + "\n" + text[at:], at  # as in the box: a new line
            elif event.key == "enter":
                if text.strip():
                    sent.append(Sent(expanded(text, dict(enumerate(pastes, start=1))), text))
                text, at, pastes = "", 0, []
            elif event.key in EDIT_KEYS:
                text, at = edited(text, at, event.key)
            elif event.key in NEW_LINE_KEYS:
                written = "\n"
            elif event.character is not None:
                written = event.character
            if written is not None:
                text, at = text[:at] + written + text[at:], at + len(written)
        return Typed(tuple(sent), text, len(text) - at, tuple(pastes))

    def shown(self) -> str:
        """The held keys as the starting screen shows them: each message sent, then the text with
        the cursor where it is."""
        typed = self.written()
        lines = [f"› {sent.typed}   (sent once Circle is up)" for sent in typed.sent]
        at = len(typed.text) - typed.after
        line = f"› {typed.text[:at]}▏{typed.text[at:]}"
        return "\n".join([*lines, line]) if lines or typed.text else ""

    @staticmethod
    def _wanted(event: events.Event) -> bool:
        if isinstance(event, events.Paste):
            return True
        return isinstance(event, events.Key) and (event.is_printable or event.key in HELD_KEYS)


def edited(text: str, at: int, key: str) -> tuple[str, int]:
    """``text``, and the cursor at offset ``at`` in it, once ``key`` (one of :data:`EDIT_KEYS`)
    acted on them as it does in the input box, line by line (a wrapped line is not known here)."""
    start = text.rfind("\n", 0, at) + 1
    end = len(text) if (newline := text.find("\n", at)) < 0 else newline
    cut: tuple[int, int] | None = None  # what is deleted, and the cursor goes to its start
    if key == "left":
        at = max(at - 1, 0)
    elif key == "right":
        at = min(at + 1, len(text))
    elif key in ("home", "ctrl+a"):
        at = start
    elif key in ("end", "ctrl+e"):
        at = end
    elif key == "ctrl+left":
        at = _word_left(text, at, start)
    elif key == "ctrl+right":
        at = _word_right(text, at, end)
    elif key == "backspace":
        cut = (max(at - 1, 0), at)
    elif key == "delete":
        cut = (at, min(at + 1, len(text)))
    elif key == "ctrl+u":  # at a line's start it joins the line to the one above
        cut = (start if at > start else max(at - 1, 0), at)
    elif key == "ctrl+k":  # at a line's end it joins the next line to it
        cut = (at, end if at < end else min(at + 1, len(text)))
    elif key == "ctrl+w":
        cut = (_word_left(text, at, start), at)
    if cut is not None:
        text, at = text[: cut[0]] + text[cut[1] :], cut[0]
    return text, at


def _line_end(text: str, at: int) -> int:
    """Where the line the offset ``at`` is on ends."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _word_left(text: str, at: int, start: int) -> int:
    """Where ctrl+left goes from ``at`` (``start``: its line's): the start of the word before."""
    if at == start:
        return max(at - 1, 0)
    found = list(_WORD.finditer(text[start:at].rstrip()))
    return start + (found[-1].start() if found else 0)


def _word_right(text: str, at: int, end: int) -> int:
    """Where ctrl+right goes from ``at`` (``end``: its line's end): past the word after."""
    if at == end:
        return min(at + 1, len(text))
    rest = text[at:end]
    skipped = len(rest) - len(rest.lstrip())
    found = _WORD.search(rest.lstrip())
    return at + skipped + found.start() if found else end


__all__ = [
    "EDIT_KEYS",
    "HELD_KEYS",
    "NEW_LINE_KEYS",
    "EarlyKeys",
    "Sent",
    "Typed",
    "edited",
    "typed_events",
]
