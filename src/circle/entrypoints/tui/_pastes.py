"""Pastes as the input box takes them: line breaks made new lines, a long one folded to a label.

One rule for the box (``widgets/composer.py``) and for a paste made while Circle starts, before the
box is there (``_early_keys.py``): light, so the starting screen loads no widget for it.
"""

from __future__ import annotations

import re

from circle.domain import display

PASTE_LINES = 8
"""A paste of more lines is folded."""
PASTE_CHARS = 1500
"""A paste of more characters is folded."""
PASTED = re.compile(r"\[pasted text #(\d+), \d+ lines\]")
"""A folded paste's label in the box."""


def line_breaks(text: str) -> str:
    """``text`` with its carriage returns made new lines: a terminal sends a paste's line breaks as
    carriage returns (tmux's paste-buffer does)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def label(number: int, text: str) -> str | None:
    """The label paste ``number`` is folded to in the box, or None when ``text`` is short enough to
    go in as it is."""
    lines = display.count_lines(text)
    if lines > PASTE_LINES or len(text) > PASTE_CHARS:
        return f"[pasted text #{number}, {display.lines_said(lines)}]"
    return None


def expanded(text: str, pastes: dict[int, str]) -> str:
    """``text`` with each folded paste of ``pastes`` put back."""
    return PASTED.sub(lambda m: pastes.get(int(m.group(1)), m.group(0)), text)


__all__ = ["PASTED", "PASTE_CHARS", "PASTE_LINES", "expanded", "label", "line_breaks"]
