"""ctrl+f: find in the conversation. A bar over the input box; every match is highlighted where it
shows, the current one more strongly and scrolled into view; enter goes to the next match,
shift+enter (or ↑) to the previous one, esc closes the bar and gives the focus back. The view
goes to the match's own line, in its middle (in an answer taller than the view too).

Matching is by plain text, case-insensitive, in every leaf text widget of the conversation (the
person's rows, notices, tool rows, the blocks of a Markdown answer). A widget's own content is
put back when the bar closes, unless the widget drew something new meanwhile (a streamed answer
keeps what it drew).

A folded row (a tool's long output, see :class:`Folding`) is searched as it is unfolded: going to
a match in what the fold hides unfolds the row. A new term folds again the rows the finder
unfolded; closing the bar leaves them open, the view on the match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.dom import DOMNode
from textual.geometry import Offset, Region
from textual.screen import Screen
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Input, Static

from circle.entrypoints.tui.widgets.stale_keys import pass_on

MATCH_STYLE = "black on #d7af5f"
CURRENT_STYLE = "bold black on #ff8700"
KEYS = "enter next · shift+enter/↑ previous · esc close"
SHORTER_KEYS = ("enter next · ↑ previous · esc close", "enter · ↑ · esc", "esc")
"""The keys line where the whole one would squeeze the query field, longest first (none at all
where even the last would)."""
PLACEHOLDERS = ("find in the conversation", "find")
"""The empty field's hint, the longest that fits whole (at 80 columns it read 'find in the')."""
FIELD_ROOM = 20
"""The columns the query field keeps (its padding in them) before the keys line shows."""
PARTLY = " in what is drawn · ctrl+o: all"
"""After the count, when earlier messages are not drawn (a long resumed session)."""
PARTLY_SHORT = " · ctrl+o: all"


@runtime_checkable
class Folding(Protocol):
    """A row that folds some of what it shows (a tool row): the finder looks in all of it."""

    expanded: bool
    """It is unfolded."""

    def unfolded_text(self, leaf: Static) -> str | None:
        """What ``leaf`` (the row or a part of it) shows once the row unfolds, as plain text;
        None when it shows that already (or is not the part that folds)."""
        ...

    def toggle(self) -> None:
        """Unfold the row (or fold it again)."""
        ...


@dataclass(frozen=True, slots=True)
class Match:
    widget: Static
    start: int
    end: int
    fold: Folding | None = None
    """The row to unfold to show it: ``start`` and ``end`` are in the unfolded text."""


def _same_start(one: str, other: str) -> int:
    """How many characters ``one`` and ``other`` start with alike."""
    differ = (index for index, (a, b) in enumerate(zip(one, other, strict=False)) if a != b)
    return next(differ, min(len(one), len(other)))


def _folding(widget: Static) -> Folding | None:
    for holder in (widget, widget.parent):
        if isinstance(holder, Folding):
            return holder
    return None


@dataclass(slots=True)
class _Kept:
    own: VisualType
    """The content the widget was given."""
    base: Content
    """What it drew, unhighlighted."""
    shown: Content
    """What the finder put in its place."""


class Finder:
    """Finds a term in the text widgets under ``root`` and highlights the matches."""

    def __init__(self, root: Widget) -> None:
        self.root = root
        self.matches: list[Match] = []
        self.current = -1
        self._kept: dict[Static, _Kept] = {}
        self._same: dict[Static, int] = {}
        """A folded widget's text up to where the fold starts: its matches there show folded too."""
        self._unfolded: list[Folding] = []
        """The rows the finder unfolded for the current term."""

    def _leaves(self) -> list[Static]:
        return [w for w in self.root.query(Static) if not w.children and w.display]

    def search(self, term: str) -> None:
        """Find ``term`` anew; the current match is the first one from the top of the view."""
        self.clear()
        if not term:
            return
        pattern = re.compile(re.escape(term), re.IGNORECASE)
        for widget in self._leaves():
            visual = widget.visual
            if isinstance(visual, Content):
                self.matches += self._found(pattern, widget, visual.plain)
        if self.matches:
            top = self.root.region.y
            below = (i for i, m in enumerate(self.matches) if m.widget.region.y >= top)
            self.current = next(below, len(self.matches) - 1)
            self._draw()

    def _found(self, pattern: re.Pattern[str], widget: Static, shown: str) -> list[Match]:
        """The matches in ``widget``: in its unfolded text when that has more (the fold hides
        some; a term in the fold's own words, ``… 48 more lines``, is found where it shows)."""
        seen = [Match(widget, m.start(), m.end()) for m in pattern.finditer(shown)]
        row = _folding(widget)
        unfolded = row.unfolded_text(widget) if row is not None else None
        if row is not None and unfolded is not None:
            found = [Match(widget, m.start(), m.end(), row) for m in pattern.finditer(unfolded)]
            if len(found) > len(seen):
                self._same[widget] = _same_start(shown, unfolded)
                return found
        return seen

    def _unfold(self, row: Folding) -> None:
        """Unfold ``row`` to show a match: its matches are in the text it shows now."""
        row.toggle()
        self._unfolded.append(row)
        for widget in {m.widget for m in self.matches if m.fold is row}:
            self._kept.pop(widget, None)  # the row drew itself anew
            self._same.pop(widget, None)
        self.matches = [replace(m, fold=None) if m.fold is row else m for m in self.matches]

    def step(self, by: int) -> None:
        """To the next match (``by`` 1) or the previous one (-1), round the ends."""
        if self.matches:
            self.current = (self.current + by) % len(self.matches)
            self._draw()

    def _draw(self) -> None:
        current = self.matches[self.current]
        unfolding = current.fold is not None
        if current.fold is not None:
            self._unfold(current.fold)
            current = self.matches[self.current]
        by_widget: dict[Static, list[int]] = {}
        for index, match in enumerate(self.matches):
            if match.fold is None or match.end <= self._same.get(match.widget, 0):  # shows folded
                by_widget.setdefault(match.widget, []).append(index)
        for widget, indexes in by_widget.items():
            kept = self._kept.get(widget)
            base = kept.base if kept is not None else widget.visual
            if not isinstance(base, Content):
                continue
            shown = base
            for index in indexes:
                match = self.matches[index]
                style = CURRENT_STYLE if index == self.current else MATCH_STYLE
                shown = shown.stylize(style, match.start, match.end)
            own = kept.own if kept is not None else widget.content
            self._kept[widget] = _Kept(own, base, shown)
            widget.update(shown, layout=False)
        line = line_of(current.widget, current.start)
        if unfolding:  # its new lines are laid out first
            current.widget.call_after_refresh(scroll_to_line, current.widget, line)
        else:
            scroll_to_line(current.widget, line)

    def clear(self, *, fold_back: bool = True) -> None:
        """Put every widget's own content back (unless it drew something new since), and fold
        again the rows unfolded to show a match (``fold_back``: the bar leaves them open)."""
        for widget, kept in self._kept.items():
            if widget.is_attached and widget.content is kept.shown:
                widget.update(kept.own, layout=False)
        if fold_back:
            for row in self._unfolded:
                if row.expanded:
                    row.toggle()
        self._kept, self._same, self._unfolded = {}, {}, []
        self.matches = []
        self.current = -1

    @property
    def count_line(self) -> str:
        if not self.matches:
            return "no match"
        return f"{self.current + 1} of {len(self.matches)}"


def line_of(widget: Static, at: int) -> int:
    """The line of ``widget`` (0 its first) that shows the character at ``at`` of its text: an
    answer's lines are drawn within its width; another widget's text wraps at its width."""
    visual = widget.visual
    plain = visual.plain if isinstance(visual, Content) else ""
    width = max(1, widget.content_region.width)
    before = plain[:at].split("\n")
    return sum(max(1, -(-cell_len(line) // width)) for line in before[:-1]) + cell_len(before[-1]) // width


def scroll_to_line(widget: Widget, line: int) -> None:
    """Scroll the containers of ``widget`` (as Textual's ``scroll_to_widget`` does) so that its
    ``line`` shows, in the middle of the view: the top of a block taller than the view is not
    where its match is."""
    inner = widget.virtual_region
    region = Region(inner.x, inner.y + widget.gutter.top + line, inner.width, 1)
    while isinstance(widget.parent, Widget) and region:
        container = widget.parent
        offset = Offset(0, 0)
        if widget.styles.dock == "none":
            offset = container.scroll_to_region(region, animate=False, center=True, immediate=True)
        region = (
            region.translate(-offset)
            .translate(container.styles.margin.top_left)
            .translate(container.styles.border.spacing.top_left)
            .translate(container.virtual_region_with_margin.offset)
            .grow(container.styles.margin)
            .intersection(container.virtual_region_with_margin)
        )
        widget = container


class Rest(Protocol):
    """The part of a conversation not drawn yet (see :class:`FindBar`)."""

    def draw_waiting(self, then: Callable[[], None] | None = None) -> bool:
        """Draw some of what waits (True when some was), and call ``then`` once it is drawn."""
        ...

    @property
    def all_drawn(self) -> bool: ...


class _Field(Input):
    """The bar's input; a key read after esc closed the bar goes on to where the focus went."""

    async def _on_key(self, event: events.Key) -> None:
        if pass_on(self, event):
            return
        bar = self.parent
        if isinstance(bar, FindBar) and event.key == "escape":  # esc then a key: see _esc_keys.py
            event.stop()  # closed here, before the keys queued after esc are read
            event.prevent_default()
            bar.action_close()
            return
        if await self._run_binding(event.key, bar):
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _run_binding(self, key: str, bar: DOMNode | None) -> bool:
        """Run the field's binding of ``key`` (backspace, the arrows, ctrl+w), or the bar's (↑,
        ↓), now: Textual runs them once the key has bubbled back up to the app, after the keys
        behind it in the same burst were typed (backspace ×3 then '108', read together, typed
        '108' and then deleted it)."""
        for owner in (self, bar) if bar is not None else (self,):
            for binding in owner._bindings.key_to_bindings.get(key, ()):
                if not binding.priority and await self.app.run_action(binding.action, owner):
                    return True
        return False


class FindBar(Horizontal):
    """The bar; hidden until :meth:`open`."""

    DEFAULT_CSS = """
    FindBar {
        display: none;
        height: 1;
        margin: 0 1;
        background: $boost;
    }
    FindBar #find-input {
        width: 1fr;
        height: 1;
        border: none;
        padding: 0 1;
    }
    FindBar #find-count {
        width: auto;
        min-width: 10;
        padding: 0 1;
        color: $accent;
    }
    FindBar #find-keys {
        width: auto;
        color: $text-muted;
    }
    """

    BINDINGS = [  # noqa: RUF012
        Binding("escape", "close", "close", show=False),
        Binding("shift+enter", "step(-1)", "previous", show=False),
        Binding("up", "step(-1)", "previous", show=False),
        Binding("down", "step(1)", "next", show=False),
    ]

    def __init__(self, root: Widget, *, rest: Rest | None = None) -> None:
        super().__init__(id="find-bar")
        self.finder = Finder(root)
        self.rest = rest
        """Draws what ``root`` has not drawn yet (a resumed session's earlier messages), and tells
        whether all is drawn: a search covers what is drawn."""
        self.field = _Field(placeholder=PLACEHOLDERS[0], id="find-input")
        self.count = Static("", id="find-count", markup=False)
        self.keys = Static(KEYS, id="find-keys", markup=False)
        self._back_to: Widget | None = None

    def compose(self) -> ComposeResult:
        yield self.field
        yield self.count
        yield self.keys

    def on_resize(self) -> None:
        self._show_count()

    def _show_count(self) -> None:
        """The count (and a note when not all is drawn), then the longest keys line that leaves
        the query field :data:`FIELD_ROOM` columns: at narrow widths the keys give way first."""
        width = self.size.width or 200
        count = self.finder.count_line if self.field.value else ""
        if count and self.rest is not None and not self.rest.all_drawn:
            wide = cell_len(count + PARTLY) + 2 + FIELD_ROOM + cell_len(SHORTER_KEYS[-1]) <= width
            count += PARTLY if wide else PARTLY_SHORT
        self.count.update(count)
        room = width - FIELD_ROOM - max(10, cell_len(count) + 2)
        keys = next((form for form in (KEYS, *SHORTER_KEYS) if cell_len(form) <= room), "")
        if str(self.keys.content) != keys:
            self.keys.update(keys)
        self.keys.display = bool(keys)
        field = width - (cell_len(keys) if keys else 0) - max(10, cell_len(count) + 2) - 2  # its padding
        placeholder = next((form for form in PLACEHOLDERS if cell_len(form) <= field), PLACEHOLDERS[-1])
        if self.field.placeholder != placeholder:
            self.field.placeholder = placeholder

    def open(self) -> None:
        """Show the bar with the focus in it (the term found before is found again)."""
        focused = self.screen.focused
        if focused is not None and focused is not self.field:
            self._back_to = focused
        self.display = True
        self.screen.set_focus(self.field)  # now, not after a refresh: the next key is already coming
        self.find_in_rest()
        self._find(self.field.value)

    def find_in_rest(self) -> None:
        """Draw what the conversation has not drawn yet, and find the term again once it is laid
        out (when the bar is open: the messages a resumed session reads later come here too)."""
        if self.display and self.rest is not None:
            self.rest.draw_waiting(self._find_again)

    def _find_again(self) -> None:
        """The messages drawn for the bar are all in: the term is found in them too."""
        if self.display:
            self._find(self.field.value)

    def _find(self, term: str) -> None:
        self.finder.search(term)
        self._show_count()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._find(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(1)

    def action_step(self, by: int) -> None:
        self.finder.step(by)
        self._show_count()

    def action_close(self) -> None:
        self.finder.clear(fold_back=False)
        self.display = False
        if self._back_to is not None and self._back_to.is_attached:
            self.screen.set_focus(self._back_to)


def open_find_bar(screen: Screen[object]) -> None:
    """Open the session screen's find bar at once, so the keys typed next go into it."""
    for bar in screen.query(FindBar):
        bar.open()


__all__ = ["FindBar", "Finder", "Folding", "Match", "open_find_bar"]
