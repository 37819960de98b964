"""Enter or Tab read right behind the keys that changed the text (one terminal read, a loaded
machine) takes the completion of the text as it is then, not the list drawn for an earlier text:
`/` showed /help first, and `quit` + Enter read together ran /help."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp

from .conftest import main_screen, screen_lines, until


async def _burst_after_slash(app: CircleApp, pilot: object, word: str, last: tuple[str, str]) -> None:
    screen = main_screen(app)
    await pilot.press("/")  # type: ignore[attr-defined]
    await until(pilot, lambda: screen.composer.completions.open)  # type: ignore[arg-type]
    for character in word:
        app.post_message(events.Key(character, character))
    app.post_message(events.Key(*last))


async def test_enter_read_with_the_command_typed_runs_that_command(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await _burst_after_slash(app, pilot, "hotkeys", ("enter", "\r"))
        await until(pilot, lambda: "scroll the conversation" in "\n".join(screen_lines(app)))
        assert "show the commands and what they do" not in "\n".join(screen_lines(app))


async def test_tab_read_with_the_keys_typed_completes_what_they_typed(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await _burst_after_slash(app, pilot, "hotk", ("tab", "\t"))
        await until(pilot, lambda: screen.composer.text.startswith("/hotk"))
        await until(pilot, lambda: screen.composer.text == "/hotkeys ")
