"""PageUp and PageDown that each move a page, however quickly they come.

Textual's page scroll is applied after the next frame and counted from where the view is when the
key is read: keys read before that frame (a held PageUp, quick presses) were all counted from the
same place, so four went as far as one or two. Here the scroll is applied at once, and the next
key counts from there.
"""

from __future__ import annotations

from textual.widget import Widget


def page_by(view: Widget, pages: int) -> None:
    """Scroll ``view`` ``pages`` pages down (up when negative) now."""
    height = view.scrollable_content_region.height
    view.scroll_to(y=view.scroll_y + pages * height, animate=False, immediate=True)


__all__ = ["page_by"]
