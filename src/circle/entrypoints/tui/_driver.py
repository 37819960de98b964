"""The terminal driver: Textual's own (Linux), with every frame filtered by :class:`ScreenDiff`.

Textual already wraps each frame in synchronized output (DEC mode 2026) when the terminal says,
through DECRQM, that it has it; this driver adds that only what changed is written.
``CIRCLE_SCREEN_DIFF=0`` writes Textual's frames as they are.
"""

from __future__ import annotations

from typing import Any

from textual.drivers.linux_driver import LinuxDriver

from circle.entrypoints.tui._screen_diff import ScreenDiff


class DiffingDriver(LinuxDriver):
    """Textual's Linux driver, writing each frame against what the screen shows."""

    def __init__(
        self, app: Any, *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.diff = ScreenDiff()

    def write(self, data: str) -> None:
        super().write(self.diff.write(data))


__all__ = ["DiffingDriver"]
