"""A key typed right behind Enter (read together with it, or before the message sent was handled)
stays in the input box: the box is emptied when Enter is read, not when its message arrives."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events

from circle.entrypoints.tui.app import CircleApp

from .conftest import main_screen, screen_lines, until


@pytest.mark.parametrize(
    ("sent", "shown"), [("/hotkeys", "scroll the conversation"), ("!!echo hi", "echo hi")]
)
async def test_a_key_read_together_with_enter_stays_in_the_box(
    make_app: Callable[..., CircleApp], sent: str, shown: str
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        screen.composer.type_text(sent)
        await until(pilot, lambda: screen.composer.text == sent)
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("k", "k"))
        await until(pilot, lambda: any(shown in line for line in screen_lines(app)))
        await pilot.pause()
        assert screen.composer.text == "k"
