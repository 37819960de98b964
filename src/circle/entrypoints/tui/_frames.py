"""When Textual draws a frame: up to 120 a second unless the person chose (``TEXTUAL_FPS``), and
a session screen's first frame as soon as it is laid out.

Textual draws a screen's changes on a timer of one frame period (1/60 s by default) that waits for
the next tick of its clock when something changed mid-period; at 120 frames a second that wait is
8.3 ms at most. Circle draws a streamed answer at its own pace (:data:`.widgets.rows.DRAWS_PER_S`)
and a frame is drawn only when something changed, so the higher cap costs nothing while idle.
Textual reads the variable once, when ``textual.constants`` is imported: it is set for that import
only, so the commands Circle runs do not inherit it.

A screen's clock starts when its first change is ready to draw, and its first tick comes a whole
period later: a resumed session's tail, laid out, waited that long before it showed, and the keys
typed at it waited with it. :func:`start_frame_clock` starts the clock when the screen mounts
instead, so by the time its rows are laid out the period has passed and the frame is drawn at once
(a tick while there is nothing to draw draws nothing).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not imported here: Textual must load after set_frame_rate
    from textual.screen import Screen

FRAMES_PER_S = 120
"""Textual's frame cap for the interface, unless ``TEXTUAL_FPS`` says otherwise."""

VARIABLE = "TEXTUAL_FPS"


def set_frame_rate() -> None:
    """Have Textual draw up to :data:`FRAMES_PER_S` frames a second; call it before Textual is
    imported (once it is, its rate is fixed, and this does nothing)."""
    if VARIABLE in os.environ or "textual.constants" in sys.modules:
        return
    os.environ[VARIABLE] = str(FRAMES_PER_S)
    try:
        import textual.constants  # noqa: F401  # reads it now, once
    finally:
        os.environ.pop(VARIABLE, None)


def start_frame_clock(screen: Screen[Any]) -> None:
    """Start ``screen``'s frame clock now (call it as the screen mounts): see the module."""
    screen._update_timer.resume()


__all__ = ["FRAMES_PER_S", "set_frame_rate", "start_frame_clock"]
