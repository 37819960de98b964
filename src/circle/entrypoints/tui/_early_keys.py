"""Keys typed before the session screen is up: held, then given to its input box in order.

A terminal keeps what is typed while a program starts, until the program reads it. Circle reads
it in two places: the theme question (OSC 11, see ``_theme.py``) reads whatever was typed before
the terminal's answer, and Textual's driver reads the rest once the app runs, while "Starting
Circle…" shows and no input box exists yet. Either way the keys would reach no widget; the app
holds them here, shows what they wrote under "Starting Circle…" as they come (a key shows at once,
not when Circle is up), and gives the input box what they wrote once it is mounted. Screens that
ask a question first (setup, trust, the session picker) get their keys as usual.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual._xterm_parser import XTermParser  # Textual's own terminal parser, as its driver uses it
from textual.message import Message

HELD_KEYS = frozenset({"enter", "backspace", "ctrl+j", "shift+enter"})
"""Keys held besides printable ones: what writing and sending a message takes. Others (ctrl+c,
esc, arrows) act at once, as they would on the starting screen."""


@dataclass(frozen=True, slots=True)
class Typed:
    """What the held keys wrote: the messages sent with enter, and the text left in the box."""

    sent: tuple[str, ...] = ()
    text: str = ""


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
        self.held: list[events.Event] = [
            e for e in typed_events(typed) if isinstance(e, events.Event) and self._wanted(e)
        ]
        self.released = False

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

    def written(self) -> Typed:
        """What the keys held so far wrote (the starting screen shows it as it is typed)."""
        sent: list[str] = []
        text = ""
        for event in self.held:
            if isinstance(event, events.Paste):
                text += event.text
            elif not isinstance(event, events.Key):
                continue
            elif event.key in ("enter", "ctrl+j"):  # before the app took the terminal, the
                if text.strip():  # terminal itself turned enter into a newline (ICRNL)
                    sent.append(text)
                text = ""
            elif event.key == "backspace":
                text = text[:-1]
            elif event.key == "shift+enter":
                text += "\n"
            elif event.character is not None:
                text += event.character
        return Typed(tuple(sent), text)

    def shown(self) -> str:
        """The held keys as the starting screen shows them: each message sent, then the text."""
        typed = self.written()
        lines = [f"› {text}   (sent once Circle is up)" for text in typed.sent]
        return "\n".join([*lines, f"› {typed.text}▏"]) if lines or typed.text else ""

    @staticmethod
    def _wanted(event: events.Event) -> bool:
        if isinstance(event, events.Paste):
            return True
        return isinstance(event, events.Key) and (event.is_printable or event.key in HELD_KEYS)


__all__ = ["HELD_KEYS", "EarlyKeys", "Typed", "typed_events"]
