"""The terminal driver: Textual's own (Linux), with every frame filtered by :class:`ScreenDiff`.

Textual asks the terminal (DECRQM ``ESC[?2026$p``) whether it has synchronized output and, when it
answers yes, wraps each frame in ``ESC[?2026h`` … ``ESC[?2026l``. tmux takes mode 2026 from the
programs in it since 3.6 but answers the question only from 3.7, so there it is trusted by version.
This driver adds that only what changed is written; ``CIRCLE_SCREEN_DIFF=0`` writes Textual's
frames as they are. It reads the terminal as Textual's does, with a parser that reads esc and a key
typed at once as esc and the key wherever esc does something (see ``_esc_keys.py``). A terminal
that goes away (EOF or EIO, a stray SIGCONT) ends Circle through it: see ``_hangup.py``.
"""

from __future__ import annotations

import os
import re
import selectors
import sys
from codecs import getincrementaldecoder
from collections.abc import Mapping
from typing import Any

from textual._parser import ParseError
from textual.drivers.linux_driver import LinuxDriver
from textual.messages import TerminalSupportsSynchronizedOutput

from circle.entrypoints._exit_guard import leave_within
from circle.entrypoints.tui import _keys_mode as keys_mode
from circle.entrypoints.tui._esc_keys import EscapeFirstParser, esc_acts
from circle.entrypoints.tui._hangup import TerminalClosed, TerminalOutput
from circle.entrypoints.tui._screen_diff import SYNC, ScreenDiff

TMUX_SYNC = (3, 6)
"""The first tmux that holds a program's frames between ``ESC[?2026h`` and ``ESC[?2026l``."""


def known_sync(env: Mapping[str, str]) -> bool:
    """The terminal has synchronized output though it may not say so when asked."""
    if env.get("TERM_PROGRAM") != "tmux":
        return False
    found = re.match(r"(\d+)\.(\d+)", env.get("TERM_PROGRAM_VERSION", ""))
    return found is not None and (int(found[1]), int(found[2])) >= TMUX_SYNC


class DiffingDriver(LinuxDriver):
    """Textual's Linux driver, writing each frame against what the screen shows."""

    def __init__(
        self, app: Any, *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.diff = ScreenDiff()
        self.diffing = os.environ.get("CIRCLE_SCREEN_DIFF", "1") != "0"
        self._held = False
        """A frame's synchronized-output start, written only with the frame if it changes anything."""
        assert sys.__stderr__ is not None, "the terminal Textual writes to"
        self.output = TerminalOutput(sys.__stderr__, on_gone=self._terminal_gone)
        """What Textual's output thread writes to; once the terminal is gone, nothing (``_hangup.py``)."""
        self._file = self.output  # type: ignore[assignment]  # Textual's thread takes any file
        self._suspended = False

    def _terminal_gone(self) -> None:
        leave_within()  # from this thread: the event loop may be the one stuck
        self._app.post_message(TerminalClosed())

    def suspend_application_mode(self) -> None:
        self._suspended = True
        super().suspend_application_mode()

    def resume_application_mode(self) -> None:
        if not self._suspended or self.output.gone:  # a SIGCONT with no ctrl+z before it: a hangup
            return
        self._suspended = False
        super().resume_application_mode()

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]  # not annotated in Textual
        if (before := keys_mode.before()) is not None:  # the terminal as it was before Circle took
            self.attrs_before = before  # its keys, put back when Textual stops or suspends
        if known_sync(os.environ):
            self._app.post_message(TerminalSupportsSynchronizedOutput())

    def write(self, data: str) -> None:
        if not self.diffing:
            super().write(data)
            return
        if data == SYNC[0]:
            self._held = True
            return
        if self._held and data == SYNC[1]:
            self._held = False  # the frame changed nothing: neither it nor its markers are written
            return
        out = self.diff.write(data)
        if out and self._held:
            out, self._held = SYNC[0] + out, False
        if out:
            super().write(out)

    def run_input_thread(self) -> None:
        """Textual's input loop (LinuxDriver.run_input_thread), reading with :class:`EscapeFirstParser`."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = EscapeFirstParser(lambda: esc_acts(self._app), debug=self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def read(ready: list[tuple[selectors.SelectorKey, int]], *, final: bool = False) -> None:
            for index, (_key, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    try:
                        got = os.read(self.fileno, 1024 * 4)
                    except OSError:  # EIO: the terminal hung up
                        got = b""
                    if not got:  # the terminal is gone (or stdin was a pipe that ended)
                        self.output.lose()
                        self.exit_event.set()
                        break
                    data = decode(got, final=final and index == len(ready) - 1)
                    if not data:  # a character's first bytes: the rest come next
                        break
                    for event in parser.feed(data):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                read(selector.select(0.1))
            selector.unregister(self.fileno)
            read(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass


__all__ = ["DiffingDriver", "known_sync"]
