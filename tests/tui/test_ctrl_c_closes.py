"""ctrl+c on a picker or the tree closes it, as esc does: on /resume, /models and the like it did
nothing at all (three presses: no hint, not closed, not left), the picker's input box taking it as
copy. Circle goes on; a ctrl+c after it arms leaving as usual."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.screens.tree import TreeScreen

from .conftest import FakeBackend, FixedClock, main_screen, options, send, until
from .test_tree_fit import long_session, open_tree


@pytest.mark.parametrize("opened", ["/resume", "/models", "/thinking", "ctrl+r"])
async def test_ctrl_c_closes_a_picker_and_circle_goes_on(
    backend: FakeBackend, clock: FixedClock, opened: str
) -> None:
    await long_session(backend)
    history = InputHistory([f"earlier message {number}" for number in range(5)])
    app = CircleApp(backend, options(), clock=clock, history=history)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        if opened == "ctrl+r":
            await pilot.press("ctrl+r")
        else:
            await send(pilot, main_screen(app), opened)
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.return_code is None
        await pilot.press("x")
        await until(pilot, lambda: main_screen(app).composer.text == "x")


async def test_ctrl_c_closes_the_tree_or_the_label_being_typed(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app(session=await long_session(backend))
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await open_tree(pilot, app)
        await pilot.press("l")
        await until(pilot, lambda: tree.labelling is not None)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: tree.labelling is None)
        assert isinstance(app.screen, TreeScreen) and not tree.query_one(Input).display
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.return_code is None
