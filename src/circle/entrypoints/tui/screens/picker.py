"""A list to pick from, filtered as one types: sessions, models, checkpoints, turns, history."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from circle.entrypoints.tui.screens._room import room_above_input
from circle.entrypoints.tui.widgets.stale_keys import pass_on

REFIT_S = 0.25
"""How often an open picker checks that it still fits the rows above the input box."""


class PickerScreen(ModalScreen[str | None]):
    """Shows ``items`` (id, label); enter picks the highlighted one, esc picks none. The item whose
    id is ``current`` (the model or level in use) is highlighted first."""

    BINDINGS = [Binding("ctrl+c", "close", show=False, priority=True)]  # noqa: RUF012
    """ctrl+c closes it, as esc does (its input box would take it as copy, and nothing happened)."""

    CSS_PATH = Path(__file__).with_name("picker.tcss")
    DEFAULT_CSS = """
    #picker-list {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    """Each item keeps to its line, cut with ``…`` at the list's width, never wrapped back under
    its start (drawn again at each width, so a wider terminal shows more)."""

    def __init__(
        self,
        title: str,
        items: list[tuple[str, str]],
        *,
        empty: str = "Nothing to pick.",
        current: str | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.items = items
        self.empty = empty
        self.current = current
        self.shown: list[tuple[str, str]] = list(items)
        self._fitted: tuple[int, int, int] | None = None
        """The list's rows, the picker's top row and its most rows, as last laid out."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, id="picker-title", markup=False)
            yield Input(placeholder="type to filter", id="picker-filter")
            yield OptionList(id="picker-list")
            yield Static("↑↓ move · enter picks · esc closes", id="picker-keys")

    def on_mount(self) -> None:
        self._fill("")
        self.query_one(Input).focus()
        self._fit()
        self.set_interval(REFIT_S, self._fit)  # the session below may change (a strip shown)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Keep the picker inside the rows it may take (over the session screen, those above its
        input box; else the screen's): the list gets what the title, filter and keys line leave,
        and scrolls (its highlighted row kept in sight) when its items need more. The picker is
        centred on the screen, moved up when that would put it over the input box."""
        height = self.app.size.height
        if not height:
            return
        top, free = room_above_input(self.app)
        box = self.query_one("#picker")
        fixed = sum(widget.outer_size.height or 1 for widget in box.children if widget.id != "picker-list")
        options = self.query_one(OptionList)
        rows = max(1, min(20, free - 2 - fixed))
        tall = 2 + fixed + min(rows, max(1, options.option_count))
        fit = (rows, max(0, min((height - tall) // 2, top + free - tall)), free)
        if fit == self._fitted:
            return
        self._fitted = fit
        options.styles.max_height = rows
        self.styles.align_vertical = "top"
        box.styles.margin = (fit[1], 0, 0, 0)
        box.styles.max_height = free
        self.call_after_refresh(self._fit_again, fixed)

    def _fit_again(self, fixed: int) -> None:
        box = self.query_one("#picker")
        if sum(widget.outer_size.height for widget in box.children if widget.id != "picker-list") != fixed:
            self._fitted = None
            self._fit()  # the title or keys line wrapped differently at this width
            return
        self.query_one(OptionList).scroll_to_highlight()  # the list shrank: the highlight stays in sight

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        self.shown = [item for item in self.items if all(w in item[1].lower() for w in words)]
        options = self.query_one(OptionList)
        options.clear_options()
        if self.shown:
            options.add_options([Option(Content(label)) for _, label in self.shown])
            ids = [item_id for item_id, _ in self.shown]
            options.highlighted = ids.index(self.current) if self.current in ids else 0
        else:
            options.add_option(Option(self.empty, disabled=True))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)
        self._fit()  # fewer items: a shorter picker, centred again

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._pick()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._pick(event.option_index)

    def _pick(self, index: int | None = None) -> None:
        chosen = self.query_one(OptionList).highlighted if index is None else index
        if chosen is None or not self.shown or chosen >= len(self.shown):
            return
        self.dismiss(self.shown[chosen][0])

    def closes_on_escape(self) -> bool:
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        options = self.query_one(OptionList)
        if event.key == "escape":
            self.dismiss(None)
        elif event.key == "down":
            options.action_cursor_down()
        elif event.key == "up":
            options.action_cursor_up()
        else:
            return
        event.stop()
        event.prevent_default()


class TextScreen(ModalScreen[None]):
    """A page of text (a record, a log, the session tree); esc or q closes it."""

    BINDINGS = [Binding("ctrl+c", "close", show=False, priority=True)]  # noqa: RUF012

    CSS_PATH = Path(__file__).with_name("picker.tcss")

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        from textual.containers import VerticalScroll

        with Vertical(id="page"):
            yield Static(self.title_text, id="picker-title", markup=False)
            with VerticalScroll(id="page-body"):
                yield Static(self.text, markup=False)
            yield Static("esc closes", id="picker-keys")

    def closes_on_escape(self) -> bool:
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        if pass_on(self, event):  # typed as it closed: the key is for the screen below
            return
        if event.key in ("escape", "q", "enter"):
            event.stop()
            self.dismiss(None)


__all__ = ["PickerScreen", "TextScreen"]
