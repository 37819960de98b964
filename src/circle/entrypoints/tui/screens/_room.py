"""The rows a modal list may take over the session screen: those above its input box, so the box
and the list's border are never drawn over each other."""

from __future__ import annotations

from textual.app import App

STALE_BELOW = 5
"""The rows guessed for the input box and the footer while the screen below is not laid out at
the terminal's size (it is laid out again only when shown)."""


def room_above_input(app: App[object]) -> tuple[int, int]:
    """The top row a modal over the session screen starts at, and the rows it may take: those above
    the session's input box (the screen's own when no session screen is below), a row of the
    session kept in sight above and below where the terminal is tall enough."""
    height = app.size.height
    bottom = 0
    below = app.screen_stack[-2] if len(app.screen_stack) > 1 else None
    if below is not None and below.query("#conversation"):
        area = below.query_one("#conversation").region
        bottom = height - area.bottom if below.size == app.size and area.height else STALE_BELOW
    top = 1 if height - bottom >= 16 else 0
    return top, height - top - max(0, min(bottom + top, height - top - 6))


__all__ = ["room_above_input"]
