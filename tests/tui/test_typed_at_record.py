"""Keys typed while a job's record is open reach the input box: the record closes and they go
there, in the order typed (before, nothing showed and the box was empty after esc)."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.record import LiveRecord

from .conftest import SIZE, FakeBackend, until
from .test_burst_after_focus_move import job_in_the_strip, typed, with_a_job


async def test_keys_typed_on_a_jobs_record_close_it_and_go_into_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, LiveRecord))
        await pilot.pause(0.1)
        typed(app, "quick words")  # one read, q first
        await until(pilot, lambda: screen.composer.text == "quick words", within=3)
        assert app.screen is screen and screen.composer.has_focus
        screen.composer.clear_all()
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, LiveRecord))
        for key in "ok":  # slowly
            await pilot.press(key)
            await pilot.pause(0.1)
        await until(pilot, lambda: screen.composer.text == "ok", within=3)
        assert app.screen is screen
