"""ctrl+c twice leaves Circle: how long the first one waits for the second, and what it says.

Light: the starting screen uses it before the session screen (``screens/main.py``) is loaded.
"""

from __future__ import annotations

QUIT_WINDOW_S = 2.0
"""Seconds within which a second ctrl+c leaves Circle, once one that had nothing to stop armed it."""
QUIT_HINT = ("Press ctrl+c again to leave Circle.", "ctrl+c again leaves")
"""What is said while ctrl+c is armed (the longest that fits): in the footer's line on the session
screen, under "Starting Circle…" while it starts; a toast there covered the input box."""


def quit_hints(jobs: int) -> tuple[str, ...]:
    """What is said while ctrl+c is armed, longest first: with ``jobs`` background jobs running,
    that leaving stops them (it did, saying so only once Circle had left)."""
    if not jobs:
        return QUIT_HINT
    some = f"{jobs} background job{'' if jobs == 1 else 's'}"
    return (
        f"Press ctrl+c again to leave Circle and stop {some}.",
        f"ctrl+c again leaves, stops {some}",
        QUIT_HINT[-1],
    )


__all__ = ["QUIT_HINT", "QUIT_WINDOW_S", "quit_hints"]
