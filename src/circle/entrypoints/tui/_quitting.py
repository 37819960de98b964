"""ctrl+c twice leaves Circle: how long the first one waits for the second, and what it says.

Light: the starting screen uses it before the session screen (``screens/main.py``) is loaded.
"""

from __future__ import annotations

QUIT_WINDOW_S = 2.0
"""Seconds within which a second ctrl+c leaves Circle, once one that had nothing to stop armed it."""
QUIT_HINT = ("Press ctrl+c again to leave Circle.", "ctrl+c again leaves")
"""What is said while ctrl+c is armed (the longest that fits): in the footer's line on the session
screen, under "Starting Circle…" while it starts; a toast there covered the input box."""

__all__ = ["QUIT_HINT", "QUIT_WINDOW_S"]
