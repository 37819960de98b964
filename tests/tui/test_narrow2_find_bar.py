"""At narrow widths the find bar shortens its keys line, then leaves it out, before the query
field gives up room: what is typed shows at 50 columns; at 140 the whole keys line shows."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.find_bar import KEYS, PLACEHOLDERS, FindBar
from circle.testing import answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until


def bar_line(app: CircleApp) -> str:
    return next(line for line in screen_lines(app) if "of 4" in line)


async def test_the_find_bars_query_keeps_its_room_at_50_columns(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("tick 1 tick 10 tick 11 tick 12"))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "count")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+f", *"tick", "space", "1")
        bar = screen.query_one(FindBar)
        await until(pilot, lambda: "1 of 4" in str(bar.count.content))
        await pilot.pause(0.1)
        assert "tick 1" in bar_line(app), bar_line(app)
        assert bar.field.size.width >= 20, bar.field.size
        assert "esc" in bar_line(app), bar_line(app)  # a short keys line still says how to close
        await pilot.resize_terminal(140, 30)
        await pilot.pause(0.2)
        assert KEYS in bar_line(app) and "tick 1" in bar_line(app), bar_line(app)
        await pilot.resize_terminal(30, 16)
        await pilot.pause(0.2)
        assert "tick 1" in bar_line(app), bar_line(app)


async def test_the_empty_fields_hint_is_never_cut(make_app: Callable[..., CircleApp]) -> None:
    """At 80 columns it read 'find in the'."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.press("ctrl+f")
        bar = main_screen(app).query_one(FindBar)
        await until(pilot, lambda: bar.display)
        for size in ((80, 24), (140, 30), (50, 16)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            line = next(line for line in screen_lines(app) if "esc" in line)
            hint = bar.field.placeholder
            assert hint in PLACEHOLDERS and hint in line, (size, line)
            assert bar.field.size.width - 2 >= len(hint), (size, bar.field.size)
        await pilot.resize_terminal(140, 30)
        await pilot.pause(0.2)
        assert bar.field.placeholder == PLACEHOLDERS[0]
