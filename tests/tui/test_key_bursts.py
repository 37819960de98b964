"""Keys that arrive together (one terminal read: fast typing, a paste of keystrokes, tmux) are
applied in order in the input box: an editing key bound to an action (backspace, the arrows) is not
run after the printable keys that came behind it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events

from circle.entrypoints.tui.app import CircleApp

from .conftest import main_screen, until


@pytest.mark.parametrize(
    ("typed", "burst", "shown"),
    [("f", [("backspace", "\x7f"), ("q", "q")], "q"), ("ab", [("left", None), ("X", "X")], "aXb")],
)
async def test_an_editing_key_and_the_keys_after_it_in_one_burst_apply_in_order(
    make_app: Callable[..., CircleApp], typed: str, burst: list[tuple[str, str | None]], shown: str
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*typed)
        await until(pilot, lambda: screen.composer.text == typed)
        for key, character in burst:
            app.post_message(events.Key(key, character))
        await until(pilot, lambda: screen.composer.text == shown, within=3)
