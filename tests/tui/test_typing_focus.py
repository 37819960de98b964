"""Typing always reaches the input box: after ↓ to the strip, a record closed with esc, a picker
closed, a click on a thinking block, or tab; focus comes back to it when a screen over it closes."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen, TextScreen
from circle.entrypoints.tui.widgets.conversation import Thinking, TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


async def test_typing_after_tab_goes_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("tab")
        assert not screen.composer.has_focus
        await pilot.press("h", "i", "space", "y")
        assert screen.composer.text == "hi y"
        assert screen.composer.has_focus


async def test_typing_after_a_click_on_a_thinking_block_goes_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("The answer.", thinking="Weighing it"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.click(Thinking)
        await pilot.pause()
        await pilot.press("o", "k")
        assert screen.composer.text == "ok"


async def test_focus_comes_back_to_the_input_box_after_a_picker(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("tab")
        await pilot.press(*"/thinking", "enter")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.pause()
        assert screen.composer.has_focus
        await pilot.press("x")
        assert screen.composer.text == "x"


async def test_typing_after_the_strip_and_a_record_goes_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"npm run dev": Hang("working…\n")}, files=backend.files)
    backend.processes = runner
    backend.model.add(answer("", Call("execute", {"command": "npm run dev"})), answer("It runs on."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve")
        await until(pilot, lambda: bool(runner.started))
        await pilot.press("ctrl+b")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)) and screen.strip.display)
        await pilot.press("down")
        assert screen.strip.has_focus
        await pilot.press("a")
        assert screen.composer.text == "a"
        screen.composer.clear_all()
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.pause()
        await pilot.press("b")
        assert screen.composer.text == "b"
