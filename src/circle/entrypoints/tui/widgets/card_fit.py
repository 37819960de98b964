"""A card fitted to the frame it sits in: its scrolling body gets what the title, the notes, the
options and the keys leave, so the options stay in sight at any terminal size (80x24, 50x16)."""

from __future__ import annotations

from weakref import WeakKeyDictionary

from textual.containers import VerticalScroll
from textual.widget import Widget

FRAME_SHARE = 0.6
"""The share of the screen's height the frame may take (``#frame`` in main.tcss)."""
TIGHT_SHARE = 0.85
"""The share it may take on a short screen, where the options would not fit in the usual one."""
BODY_SHARE = 0.2
"""The most a card's body takes of the screen's height when there is room (``20vh``)."""
FRAME_BORDER = 2
TIGHT_SCREEN = "card-tight"
"""The screen's class while its card is tight: the parts beside the frame that can wait (the plan
box) give their rows to the card (``main.tcss``)."""

_TIGHT_AT: WeakKeyDictionary[Widget, int] = WeakKeyDictionary()
"""The screen height each card was last fitted tight at."""
_ON_SCREEN: WeakKeyDictionary[Widget, Widget] = WeakKeyDictionary()
"""The screen each card was fitted on."""


def fit_card(card: Widget, height: int | None = None) -> None:
    """Size ``card``'s scrolling body to the rows its frame has left on a screen ``height`` rows
    high (the screen's, when not given); on a short screen, drop the blank lines between its parts
    and let the frame grow, so the options still show.

    Called on the card's resize, once laid out, and by its screen on a resize of the terminal,
    before the screen is laid out at the new height: fitted only after, the first frame at the new
    size drew the body as high as it was, and the options below it went out of sight until the
    next (0.1 to 0.2 s in tmux, 80x24 after 140x45 beside the plan box)."""
    if not card.is_attached:  # answered, and gone
        return
    height = card.screen.size.height if height is None else height
    if not height:
        return
    scrolls = [child for child in card.children if isinstance(child, VerticalScroll)]
    if not scrolls:
        return
    fixed = sum(_rows(child) for child in card.children if child not in scrolls and child.display)
    frame = card.parent
    if isinstance(frame, Widget):  # the input box above the card, with words typed at it
        fixed += sum(_rows(child) for child in frame.children if child is not card and child.display)
    left = _left_for(frame, height) if isinstance(frame, Widget) else height
    room = min(int(height * FRAME_SHARE), left) - FRAME_BORDER - fixed
    # once tight at this height it stays so: without the blank lines it would fit, and loosen again
    least = getattr(card, "least_body", 3)  # a plan: a few of its lines are not enough to judge it
    tight = room < least or (card.has_class("tight") and _TIGHT_AT.get(card) == height)
    _TIGHT_AT[card] = height
    card.set_class(tight, "tight")
    card.screen.set_class(tight, TIGHT_SCREEN)
    _ON_SCREEN[card] = card.screen
    if isinstance(frame, Widget):
        frame.styles.max_height = f"{int(TIGHT_SHARE * 100)}%" if tight else None
    if tight:
        room = min(int(height * TIGHT_SHARE), left) - FRAME_BORDER - fixed
    share = max(min(room, int(height * BODY_SHARE)) if not tight else room, 1) // len(scrolls)
    for scroll in scrolls:
        if scroll.styles.max_height is None or scroll.styles.max_height.value != max(share, 1):
            scroll.styles.max_height = max(share, 1)


def release(card: Widget) -> None:
    """``card`` goes: its screen is no longer tight for it (the plan box shows again)."""
    screen = _ON_SCREEN.pop(card, None)
    if screen is not None:
        screen.remove_class(TIGHT_SCREEN)


def _left_for(frame: Widget, height: int) -> int:
    """The rows the screen leaves ``frame``: its height less every other part of a fixed height
    beside it (the footer, the busy line, the plan box); a part that takes what is left (the
    conversation, ``1fr``) gives way."""
    parent = frame.parent
    if not isinstance(parent, Widget):
        return height
    taken = sum(
        _rows(part) for part in parent.children if part is not frame and part.display and not _gives_way(part)
    )
    return height - taken


def _gives_way(widget: Widget) -> bool:
    rule = widget.styles.height
    return rule is not None and rule.is_fraction


def _rows(widget: Widget) -> int:
    """The rows ``widget`` takes with its margins (as laid out last)."""
    margin = widget.styles.margin
    return widget.outer_size.height + margin.top + margin.bottom


__all__ = ["TIGHT_SCREEN", "fit_card", "release"]
