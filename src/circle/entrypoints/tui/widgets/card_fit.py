"""A card fitted to the frame it sits in: its scrolling body gets what the title, the notes, the
options and the keys leave, so the options stay in sight at any terminal size (80x24, 50x16)."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

FRAME_SHARE = 0.6
"""The share of the screen's height the frame may take (``#frame`` in main.tcss)."""
TIGHT_SHARE = 0.85
"""The share it may take on a short screen, where the options would not fit in the usual one."""
BODY_SHARE = 0.2
"""The most a card's body takes of the screen's height when there is room (``20vh``)."""
FRAME_BORDER = 2


def fit_card(card: Widget) -> None:
    """Size ``card``'s scrolling body to the rows its frame has left; on a short screen, drop the
    blank lines between its parts and let the frame grow, so the options still show."""
    if not card.is_mounted or not (height := card.screen.size.height):
        return
    scrolls = [child for child in card.children if isinstance(child, VerticalScroll)]
    if not scrolls:
        return
    fixed = sum(_rows(child) for child in card.children if child not in scrolls and child.display)
    room = int(height * FRAME_SHARE) - FRAME_BORDER - fixed
    tight = room < 3
    card.set_class(tight, "tight")
    frame = card.parent
    if isinstance(frame, Widget):
        frame.styles.max_height = f"{int(TIGHT_SHARE * 100)}%" if tight else None
    if tight:
        room = int(height * TIGHT_SHARE) - FRAME_BORDER - fixed
    share = max(min(room, int(height * BODY_SHARE)) if not tight else room, 1) // len(scrolls)
    for scroll in scrolls:
        if scroll.styles.max_height is None or scroll.styles.max_height.value != max(share, 1):
            scroll.styles.max_height = max(share, 1)


def _rows(widget: Widget) -> int:
    """The rows ``widget`` takes with its margins (as laid out last)."""
    margin = widget.styles.margin
    return widget.outer_size.height + margin.top + margin.bottom


__all__ = ["fit_card"]
