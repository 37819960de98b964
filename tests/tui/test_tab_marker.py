"""tab from the input box to a row above the end: the view scrolls to the row, and the marker
says there is more below (End follows the end again)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.tool_row import ToolRow
from circle.testing import Call, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

LONG = "\n".join(f"Line {n} of the long answer." for n in range(1, 121))


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_tab_to_a_row_above_the_end_shows_the_marker_and_end_comes_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    """The view went up to the row with no marker: nothing said the end was elsewhere."""
    backend.model.add(answer("", Call("ls", {})), answer("Listed."), answer(LONG))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await send(pilot, screen, "list")
        await until(pilot, lambda: len(view.query(TurnLine)) == 1)
        await send(pilot, screen, "long")
        await until(pilot, lambda: len(view.query(TurnLine)) == 2)
        await until(pilot, lambda: view.following and view.scroll_y == view.max_scroll_y)
        await pilot.press("tab")
        row = view.query_one(ToolRow)
        assert app.focused is row
        await until(pilot, lambda: not view.following)
        await until(pilot, lambda: screen.below.display)
        assert any("↓ more below" in line for line in screen_lines(app))  # nothing new came
        await pilot.press("end")
        await until(pilot, lambda: view.following and view.scroll_y == view.max_scroll_y)
        await until(pilot, lambda: not screen.below.display)
