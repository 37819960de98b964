"""Keys typed in one burst with the key that moves the focus.

Textual queues each key at the widget focused when the key is read, and a key's bubbling to the
screen waits behind the keys queued after it. So a key that reached a widget the focus has since
left goes on to the widget focused now (:func:`pass_on`), and a row or the conversation (no text
of their own, nor the parts inside them the focus can reach) hand a printable key to the screen at
once (:func:`type_outside`; the screen is
:class:`TakesTyping`: it focuses the input box and types the key): no key is lost, and enter is
not taken by a row the cursor already left. The app does the same as it reads each key
(:func:`type_at_read`): a printable key read while the focus is on a part with no text goes into
the input box then, so the keys read behind it are forwarded to the box, in the order typed. A key
that reached a screen closed since (a record or picker left with esc, the keys typed behind it)
goes to the screen on top now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from textual import events
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea


@runtime_checkable
class TakesTyping(Protocol):
    """A screen that puts a printable key typed outside its input box into that box."""

    def take_typed(self, event: events.Key) -> bool:
        """Type ``event`` into the input box, focused at once; False when it is not printable or
        the box is not shown."""
        ...


@runtime_checkable
class ReadsKeys(Protocol):
    """A screen that sees each key as it is read, before the key goes to the focused widget."""

    def key_read(self, event: events.Key) -> bool:
        """True when the screen took ``event`` (it goes nowhere else)."""
        ...


def type_at_read(screen: Screen[object], event: events.Event) -> bool:
    """A printable key read while ``screen``'s focus is on no text field goes into its input box
    at once (the focus moves there before the next key is read); True when it went."""
    if not (isinstance(event, events.Key) and event.is_printable and event.character):
        return False
    if isinstance(screen.focused, (Input, TextArea)):
        return False
    return isinstance(screen, TakesTyping) and screen.take_typed(event)


def pass_on(widget: Widget, event: events.Key) -> bool:
    """Send a key that reached ``widget`` after the focus left it to the widget focused now (on
    the screen on top now, when ``widget``'s was closed); True when it was sent (and stopped
    here)."""
    if not widget.is_attached:
        return False
    top = widget.app.screen
    focused = top.focused
    if widget.screen is top and (focused is None or widget in focused.ancestors_with_self):
        return False  # focused here, or the key bubbles up from the focused widget inside
    event.stop()
    event.prevent_default()
    if widget.screen is not top and type_at_read(top, event):
        return True
    (focused or top).post_message(events.Key(event.key, event.character))
    return True


def type_outside(widget: Widget, event: events.Key) -> bool:
    """A key that reached ``widget``, which has no text of its own: passed on when the focus left
    it, else a printable key goes into the input box at once, also when it bubbled up from a
    focused part inside ``widget`` that takes no text (a folded thinking block's title): the keys
    queued behind it there would reach the screen after the focus moved, and be lost. True when it
    went elsewhere."""
    if pass_on(widget, event) or not widget.is_attached:
        return widget.is_attached
    screen = widget.screen
    focused = screen.focused
    if focused is None or isinstance(focused, (Input, TextArea)):
        return False
    return isinstance(screen, TakesTyping) and screen.take_typed(event)


__all__ = ["ReadsKeys", "TakesTyping", "pass_on", "type_at_read", "type_outside"]


CLOSING_HOLD_S = 1.0
"""Seconds at most the keys read behind an esc that closes a screen wait for it to go (a screen
that did not close after all gets them then)."""


@runtime_checkable
class ClosesOnEscape(Protocol):
    """A screen that esc closes (a picker, a page of text): the keys read behind the esc are for
    the screen below it, though the esc itself is still queued when they are read."""

    def closes_on_escape(self) -> bool:
        """Whether an esc read now closes the screen (the tree's label box takes it instead)."""
        ...


class ClosingScreens:
    """Marks a screen as closing when the esc that closes it is read, so the keys read behind it
    wait for it to go and reach the screen below, in the order typed."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._closing: tuple[Screen[object], float] | None = None

    def held(self, screen: Screen[object], event: events.Event) -> bool:
        """True when ``event`` (a key read with ``screen`` on top) is to wait for ``screen`` to go."""
        if not isinstance(event, events.Key):
            return False
        closing = self._closing
        if closing is not None:
            if closing[0] is screen and self._clock() - closing[1] < CLOSING_HOLD_S:
                return True
            self._closing = None
        if event.key == "escape" and isinstance(screen, ClosesOnEscape) and screen.closes_on_escape():
            self._closing = (screen, self._clock())
        return False
