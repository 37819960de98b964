"""/help and /hotkeys at 80 columns: a line too long for the width goes on under its own words."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp

from .conftest import main_screen, screen_lines, send, texts, until


async def test_a_wrapped_hotkeys_line_keeps_its_indent_at_80_columns(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/hotkeys")
        await until(pilot, lambda: "ctrl+c twice" in texts(screen))
        screen.conversation.scroll_end(animate=False)
        await pilot.pause()
        shown = screen_lines(app)
        at = next(i for i, line in enumerate(shown) if "ctrl+f " in line)
        start = shown[at].index("find in")
        assert shown[at + 1][:start].strip() == "" and shown[at + 1][start:].strip(), shown[at : at + 2]
