"""Keys read right behind the esc that closes a picker (one terminal read, or typed at once) go to
the input box below, in order: they used to land in the closing picker's filter, or nowhere."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen

from .conftest import main_screen, send, until


async def test_text_typed_with_the_esc_that_closes_a_picker_reaches_the_input_box(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/thinking")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        for key, character in [("escape", "\x1b"), ("x", "x"), ("y", "y"), ("z", "z")]:
            app.post_message(events.Key(key, character))
        await until(pilot, lambda: app.screen is screen and screen.composer.text == "xyz")
