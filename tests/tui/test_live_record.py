"""A job's record shows its output as the job writes it, not what there was when it opened."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import TextScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


async def test_a_jobs_record_updates_as_the_job_writes(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"npm run dev": Hang("")}, files=backend.files)
    backend.processes = runner
    backend.model.add(
        answer("", Call("execute", {"command": "npm run dev", "background": True})), answer("On.")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)) and screen.strip.display)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        record = app.screen
        assert isinstance(record, TextScreen) and record.text == "(no output yet)"
        runner.started[0].write("listening on :3000\n")
        await until(pilot, lambda: "listening on :3000" in record.text)
        runner.started[0].write("GET / 200\n")
        await until(pilot, lambda: record.text.endswith("GET / 200"))
