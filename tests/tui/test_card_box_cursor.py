"""The input box shows its cursor while it shows words above a card: Textual draws a text area's
cursor only while it has the focus, and the card keeps the focus, so the person could not see where
left, right, home and end put their next word."""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.composer import Composer

from .conftest import FakeBackend, until
from .test_card_keys_typing import keys, ready_card


def cursor_cells(box: Composer) -> list[str]:
    """The cells of the box's first line drawn in its cursor's style."""
    theme = box._theme
    assert theme is not None and theme.cursor_style is not None
    cursor: Style = theme.cursor_style
    strip = box.render_line(0)
    return [
        segment.text
        for segment in strip
        if segment.style is not None
        and segment.style.bgcolor == cursor.bgcolor
        and segment.text.strip(" ") != "│"
    ]


async def test_the_box_above_a_card_shows_its_cursor_where_the_words_go(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        box = screen.composer
        keys(app, "no wait")
        await until(pilot, lambda: box.text == "no wait")
        await pilot.press(*["left"] * 4)
        await until(pilot, lambda: box.cursor_location == (0, 3))
        await pilot.pause(0.1)
        assert card.has_focus and not box.has_focus
        assert cursor_cells(box) == ["w"]
        await pilot.press("end")
        await until(pilot, lambda: box.cursor_location == (0, 7))
        await pilot.pause(0.1)
        assert cursor_cells(box) == [" "]
