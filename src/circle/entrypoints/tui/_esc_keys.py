"""esc, then a key typed at once: read as esc and the key wherever esc does something.

A terminal without a keyboard protocol sends alt+f as ``ESC f`` (a meta prefix), so Textual's
parser reads an esc followed within its escape delay by a key as one alt key: ``ESC f`` becomes
ctrl+right (a word forward), ``ESC b`` ctrl+left, ``ESC x`` alt+x, and ``ESC /``, ``ESC space`` or
``ESC enter`` lose the esc altogether. A person who presses esc to stop a turn and types at once
would lose both. :class:`EscapeFirstParser` reads such a pair as esc, then the key, whenever
:func:`esc_acts` says esc does something now (a turn runs, a card, a picker, the find bar or the
completion list is open); otherwise (the input box alone) the meta prefix keeps its meaning, so
alt+f and alt+b still move a word. A terminal that reports keys unambiguously (the kitty keyboard
protocol) never sends the pair.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App

if TYPE_CHECKING:
    from circle.entrypoints.tui.screens.main import MainScreen

ESC = "\x1b"
INTRODUCERS = frozenset("[]OP_^X" + ESC)
"""What after ESC starts a terminal's sequence or report (CSI, OSC, SS3, DCS, APC, PM, SOS), not a key."""


class EscapeFirstParser(XTermParser):
    """Textual's parser, reading ``ESC`` and a key as esc and the key when ``esc_first()`` holds."""

    def __init__(self, esc_first: Callable[[], bool], *, debug: bool = False) -> None:
        super().__init__(debug)
        self.esc_first = esc_first

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if alt and self.esc_first():  # ESC and a key the parser gave up on as a sequence
            yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence)
            return
        pair = len(sequence) == 2 and sequence[0] == ESC and sequence[1] not in INTRODUCERS
        if pair and self.esc_first():  # read at once, before it can be taken as alt+key
            yield events.Key("escape", ESC)
            yield from super()._sequence_to_key_events(sequence[1])
            return
        yield from super()._sequence_to_key_events(sequence, alt)


def esc_acts(app: App[object]) -> bool:
    """esc does something now: a turn runs, or a card, a picker, a record, the transcript, the find
    bar or the completion list is open. Called from the driver's input thread, it only reads (and a
    read that races a change of screens counts as no)."""
    main = sys.modules.get("circle.entrypoints.tui.screens.main")
    if main is None:  # the session screen was never shown
        return False
    try:
        return _acts(app, main.MainScreen)
    except Exception:  # the app is starting or leaving, or its screens changed as it looked
        return False


def _acts(app: App[object], session: type[MainScreen]) -> bool:
    stack = app.screen_stack
    shown = [screen for screen in stack if isinstance(screen, session)]
    if not shown:
        return False
    screen = shown[-1]
    if stack[-1] is not screen:
        return True  # a picker, a record, the transcript or the tree over the session
    focused = screen.focused
    bars = sys.modules.get("circle.entrypoints.tui.widgets.find_bar")
    finding = bars is not None and focused is not None and isinstance(focused.parent, bars.FindBar)
    busy = screen.host.session.is_busy
    return busy or screen.card is not None or screen.completions.open or finding


__all__ = ["ESC", "EscapeFirstParser", "esc_acts"]
