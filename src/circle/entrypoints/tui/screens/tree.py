"""/tree: the session's branches as a tree to walk. ↑↓ move, enter goes on from the message picked
(the conversation shows its branch; at a message of the person's, from just before it, with its
text back in the input box), l labels it; the label shows in the tree from then on."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.cells import cell_len
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from circle.entrypoints.tui._format import one_line
from circle.entrypoints.tui._tree import TreeRow
from circle.entrypoints.tui.screens._room import room_above_input

KEYS = "↑↓ move · enter continue from here · l label · esc close"
SHORT_KEYS = "↑↓ · enter continue · l label · esc"
"""The keys where :data:`KEYS` does not fit on one line."""
MIN_SAID = 12
"""Columns a row keeps for what its message says, however deep its guides or many its tags."""
WHOLE = 10_000
REFIT_S = 0.25
"""How often an open tree checks that it still fits the rows above the input box."""

RowLoader = Callable[[], Awaitable[list[TreeRow]]]
Labeller = Callable[[str, str], Awaitable[None]]


class TreeScreen(ModalScreen[str | None]):
    """Dismissed with the checkpoint picked (enter), or None (esc)."""

    BINDINGS = [Binding("ctrl+c", "close", show=False, priority=True)]  # noqa: RUF012
    """ctrl+c closes it (or the label being typed), as esc does."""

    CSS_PATH = Path(__file__).with_name("tree.tcss")
    DEFAULT_CSS = """
    #tree-list, #tree-title, #tree-keys {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    """A row too long for the list even with its text cut is cut with ``…``, never wrapped; the
    title and the keys line keep to one row each."""

    def __init__(self, title: str, *, load: RowLoader, label: Labeller) -> None:
        super().__init__()
        self.title_text = title
        self.load = load
        self.label = label
        self.rows: list[TreeRow] = []
        self.labelling: str | None = None
        """The checkpoint the label input is for, while it is open."""
        self._fitted: tuple[int, int, int] | None = None
        """The list's most rows, the tree's top row and its most rows, as last laid out."""

    def compose(self) -> ComposeResult:
        with Vertical(id="tree"):
            yield Static(self.title_text, id="tree-title", markup=False)
            yield OptionList(id="tree-list")
            yield Input(placeholder="label for this message · enter saves · esc cancels", id="tree-label")
            yield Static(KEYS, id="tree-keys")

    async def on_mount(self) -> None:
        self.query_one(Input).display = False
        self._fit()
        self.set_interval(REFIT_S, self._fit)  # the session below may change (a strip shown)
        await self.fill()
        self.query_one(OptionList).focus()

    async def fill(self, *, keep: str | None = None) -> None:
        self.rows = await self.load()
        self.call_after_refresh(self._recut)  # the list's own width is known once it is laid out
        options = self.query_one(OptionList)
        options.clear_options()
        if not self.rows:
            options.add_option(Option("The session has no messages yet.", disabled=True))
            return
        room = self._room()
        options.add_options([Option(Content(self._line(row, room))) for row in self.rows])
        wanted = keep or next((row.checkpoint_id for row in self.rows if row.here), None)
        ids = [row.checkpoint_id for row in self.rows]
        options.highlighted = ids.index(wanted) if wanted in ids else len(ids) - 1
        self._fitted = None
        self._fit()  # more or fewer rows: a taller or shorter tree

    def on_resize(self, event: events.Resize) -> None:
        self._fit()
        self.call_after_refresh(self._recut)

    def _fit(self) -> None:
        """Keep the tree inside the rows above the session's input box (else the screen's), so its
        border is the only one there: the list gets what the title, the label input and the keys
        line leave, and scrolls, its highlighted row in sight, when the tree has more rows."""
        height = self.app.size.height
        if not height:
            return
        top, free = room_above_input(self.app)
        fixed = 2 + 2 + (1 if self.labelling is not None else 0)  # the border, title and keys, label
        options = self.query_one(OptionList)
        rows = max(1, free - fixed)
        tall = fixed + min(rows, max(1, options.option_count))
        fit = (rows, max(0, min((height - tall) // 2, top + free - tall)), free)
        if fit == self._fitted:
            return
        self._fitted = fit
        options.styles.max_height = rows
        box = self.query_one("#tree")
        self.styles.align_vertical = "top"
        box.styles.margin = (fit[1], 0, 0, 0)
        box.styles.max_height = free
        self.call_after_refresh(options.scroll_to_highlight)

    def _room(self) -> int:
        """The columns the list's rows are cut to: its own width once laid out (else a guess
        from the terminal's), less the gutter its cursor takes."""
        options = self.query_one(OptionList)
        width = (
            options.scrollable_content_region.width
            - options.get_component_styles("option-list--option").padding.width
        )
        return width if width > 0 else self.app.size.width - 8

    def _recut(self) -> None:
        """Cut the rows again for the list's width now (a wider terminal shows more of each); the
        keys line said short where it would wrap."""
        if not self.is_attached:
            return
        keys = self.query_one("#tree-keys", Static)
        said = KEYS if keys.size.width == 0 or cell_len(KEYS) <= keys.size.width else SHORT_KEYS
        if str(keys.content) != said:
            keys.update(said)
        if not self.rows:
            return
        room, options = self._room(), self.query_one(OptionList)
        for index, row in enumerate(self.rows):
            line = self._line(row, room)
            if index < options.option_count and str(options.get_option_at_index(index).prompt) != line:
                options.replace_option_prompt_at_index(index, Content(line))

    @staticmethod
    def _line(row: TreeRow, room: int) -> str:
        """``row`` within ``room`` columns: what the message says gives way, its guides, who said
        it and its tags stay (the list cuts a row too long even so with ``…``)."""
        around = cell_len(row.line(WHOLE)) - cell_len(one_line(row.text, WHOLE))
        return row.line(max(MIN_SAID, room - around))

    @property
    def current(self) -> TreeRow | None:
        index = self.query_one(OptionList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.rows):
            self.dismiss(self.rows[event.option_index].checkpoint_id)

    def closes_on_escape(self) -> bool:
        return self.labelling is None

    def action_close(self) -> None:
        if self.labelling is not None:
            self._close_label()
        else:
            self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        if self.labelling is not None:
            if event.key == "escape":
                event.stop()
                self._close_label()
            return
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif event.key == "l" and (row := self.current) is not None:
            event.stop()
            self.labelling = row.checkpoint_id
            box = self.query_one(Input)
            box.value = ""
            box.display = True
            box.focus()
            self._fit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text, at = event.value.strip(), self.labelling
        self._close_label()
        if text and at is not None:
            self._save(at, text)

    @work(group="tree-label")
    async def _save(self, at: str, text: str) -> None:
        await self.label(at, text)
        await self.fill(keep=at)

    def _close_label(self) -> None:
        self.labelling = None
        self.query_one(Input).display = False
        self.query_one(OptionList).focus()
        self._fit()


__all__ = ["TreeScreen"]
