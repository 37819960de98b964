"""Tab read with the keys of an @path (one terminal read, before the list of its completions
came) completes it and keeps the focus in the input box."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp

from .conftest import FakeBackend, main_screen, until


async def test_tab_read_with_a_mention_completes_it_and_keeps_the_focus(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/my dir/sp.txt", "hi\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for character in "read @my":
            app.post_message(events.Key("space" if character == " " else character, character))
        app.post_message(events.Key("tab", "\t"))
        await until(pilot, lambda: screen.composer.text != "read @my" and "@" in screen.composer.text)
        assert screen.composer.has_focus
        await until(pilot, lambda: screen.composer.text == "read @my\\ dir/")
        await until(pilot, lambda: screen.completions.open)
        await pilot.press("tab")
        await until(pilot, lambda: screen.composer.text == "read @my\\ dir/sp.txt ")
        assert screen.composer.has_focus
