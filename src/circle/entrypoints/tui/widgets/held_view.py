"""A scrolling view that keeps the line read in place while rows are drawn above it.

A stored tail goes in a slice at a time above the rows shown, and a long session's earlier
messages above the tail (slices.py, earlier.py). Each slice moves everything below it down by its
height once it is laid out; a view scrolled up keeps its distance from the top, so it would show
other lines, and a scroll asked for meanwhile (PageUp is applied after the next frame) would land
at a distance counted in the layout before. So while rows go in above, the view holds a row and
how far below its top the view begins: the row read, taken again after each scroll by the person,
and a deferred scroll goes to a row and an offset rather than to a distance from the top.
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from circle.entrypoints.tui.widgets.earlier import PIN_S
from circle.entrypoints.tui.widgets.paging import page_by

Mark = tuple[Widget, float]
"""A row, and how far below its top a line is."""


class HeldView(VerticalScroll):
    """Holds the row read while :attr:`drawing_above` or after :meth:`pin` (see the module)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.drawing_above = False
        """Rows are still to go in above the ones shown (a stored tail drawn in slices)."""
        self._pinned: Mark | None = None
        self._pinned_y = 0.0
        """The row read, and where the view was when it was taken."""
        self._pages_from_end = 0
        """PageUps pressed at the end, waiting for the frame to be drawn (:meth:`page_up`)."""

    @property
    def following(self) -> bool:
        """The view keeps to the end as output arrives (the person has not scrolled up)."""
        return not (self.is_anchored and self._anchor_released)

    def skips(self, row: Widget) -> bool:
        """A row never held (one that stays at the top whatever goes in below it)."""
        return False

    def mark_at(self, y: float) -> Mark | None:
        """The first row shown from ``y`` down, and how far ``y`` is below its top."""
        for row in self.children:
            region = row.virtual_region
            if region.bottom > y and region.height and not self.skips(row):
                return row, y - region.y
        return None

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """The rows laid out; with a row held, the view is put back on it in this same layout, so
        the frame drawn with a slice just laid out above shows the line read (moved back only
        once the new heights were known, each slice's first frame showed the rows a slice above)."""
        arranged = super().arrange(size, optimal)
        if self._pinned is None or (self.is_anchored and not self._anchor_released):
            return arranged
        row, below = self._pinned
        for placement in arranged.placements:
            if placement.widget is row:
                end = arranged.spatial_map.total_region.bottom - size.height
                y = max(0.0, min(placement.region.y + below, float(end)))
                self._pinned_y = y
                self.set_reactive(HeldView.scroll_y, y)
                self.set_reactive(HeldView.scroll_target_y, y)
                break
        return arranged

    def y_of(self, mark: Mark) -> float:
        """Where ``mark`` is now, kept within the view's scroll range."""
        row, below = mark
        return max(0.0, min(row.virtual_region.y + below, self.max_scroll_y))

    def pin(self) -> None:
        """Hold the row at the view's top where it is while rows are drawn above it."""
        if self.max_scroll_y > 0 and (mark := self.mark_at(self.scroll_y)):
            self._pinned, self._pinned_y = mark, self.scroll_y
            self.set_timer(PIN_S, self._unpin)

    def _unpin(self) -> None:
        if not self.drawing_above:
            self._pinned = None

    def drawn_above(self) -> None:
        """The rows above are all in: the row read is held a while more as they take their heights."""
        if self.drawing_above and self._pinned is not None:
            self.set_timer(PIN_S, self._unpin)
        self.drawing_above = False

    @property
    def held(self) -> bool:
        """A row is held in place."""
        return self._pinned is not None

    def unpin(self) -> None:
        """Hold no row (the rows were drawn anew)."""
        self._pinned = None

    def held_scrolled(self, new_value: float) -> None:
        """After a scroll: by the person while rows go in above, the row now read is held."""
        if self.following:
            self._pinned = None
        elif abs(new_value - self._pinned_y) >= 1 and (self._pinned is not None or self.drawing_above):
            self.pin()

    def held_resized(self) -> bool:
        """After the rows' heights changed: back to the row held, if one is (then True)."""
        if self._pinned is None:
            return False
        if self._pinned[0].parent is not self:  # taken away meanwhile
            self._pinned = None
            return False
        self._pinned_y = self.y_of(self._pinned)
        self.scroll_to(y=self._pinned_y, animate=False, immediate=True)
        return True

    def page_up(self) -> None:
        """PageUp. From the end it goes a page up from the end as laid out once the frame is drawn:
        a resumed tail's first frame lays its rows out before Textual moves the view to the end
        (it showed the tail's top for that frame), and a page counted from there landed on other
        rows. The view lets go of the end at once, so nothing takes it back there meanwhile."""
        if self._pages_from_end:
            self._pages_from_end += 1
        elif self.following:
            self._pages_from_end = 1
            self._anchored = True
            self.release_anchor()
            self.call_after_refresh(self._page_up_from_end)
        else:
            page_by(self, -1)

    def _page_up_from_end(self) -> None:
        pages, self._pages_from_end = self._pages_from_end, 0
        page = self.scrollable_content_region.height
        self.scroll_to(y=max(0, self.max_scroll_y - pages * page), animate=False)

    def scroll_to(self, x: float | None = None, y: float | None = None, **options: Any) -> None:
        """As Textual's; while rows go in above, a scroll applied after the next frame goes to the
        row at ``y`` now, wherever the rows drawn meanwhile have moved it."""
        held = self.drawing_above or self._pinned is not None
        if y is None or options.get("immediate") or not held or (mark := self.mark_at(y)) is None:
            super().scroll_to(x, y, **options)
            return
        if options.pop("release_anchor", True):
            self.release_anchor()
        base = super().scroll_to
        options.update(immediate=True, release_anchor=False)
        self.call_after_refresh(lambda: base(x, self.y_of(mark), **options))


__all__ = ["HeldView", "Mark"]
