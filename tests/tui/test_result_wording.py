"""A call's row says in a person's words what became of it (denied; moved to the background) while
the model is told its own text; a resumed session draws the row the same."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.domain.messages import ToolResultPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, until
from .test_resumed_rows import drawn, resumed


def _denied(backend: FakeBackend) -> None:
    backend.files.put("/work/old.txt", "old line\n")
    backend.model.add(
        answer("", Call("write_file", {"file_path": "old.txt", "content": "new\n"})), answer("ok")
    )


def _background(backend: FakeBackend) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"npm run dev": Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "npm run dev"})), answer("It runs on."))


CASES = {
    "denied on its card": (_denied, "n", "denied", "was not approved: the person denied it"),
    "stopped on its card": (
        _denied,
        "escape",
        "denied",
        "was not approved: the person denied it and stopped",
    ),
    "moved to the background": (
        _background,
        "ctrl+b",
        "moved to the background as job-1 · /jobs shows it",
        "list_jobs shows it, stop_job stops it",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_rows_result_is_worded_for_the_person_and_the_model_keeps_its_text(
    make_app: Callable[..., CircleApp], backend: FakeBackend, case: str
) -> None:
    prepare, key, shown, told = CASES[case]
    prepare(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: isinstance(screen.card, ApprovalCard) or bool(screen.busy.activity))
        if screen.card is not None:
            await card_ready(pilot, screen)
        await pilot.pause(0.2)
        await pilot.press(key)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)
        live = [row for row in drawn(app) if row.startswith("tool ")]
        assert len(live) == 1 and shown in live[0], live
        assert "was not approved" not in live[0] and "list_jobs" not in live[0]
        assert app.host is not None
        stored = [c.message for c in backend.store.stored.values()]
        results = [p for m in stored for p in m.parts if isinstance(p, ToolResultPart)]
        assert told in results[0].text
        again = [row for row in await resumed(app, pilot) if row.startswith("tool ")]
        assert again == live


async def test_a_command_started_in_the_background_is_worded_for_the_person(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"npm run dev": Hang("working…\n")}, files=backend.files)
    backend.model.add(
        answer("", Call("execute", {"command": "npm run dev", "background": True})), answer("It runs on.")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)
        live = [row for row in drawn(app) if row.startswith("tool ")]
        assert len(live) == 1 and "started in the background as job-1 · /jobs shows it" in live[0], live
        assert "list_jobs" not in live[0] and "output:" not in live[0]
        stored = [c.message for c in backend.store.stored.values()]
        results = [p for m in stored for p in m.parts if isinstance(p, ToolResultPart)]
        assert "Started job-1 (output: " in results[0].text and "stop_job stops it" in results[0].text
        again = [row for row in await resumed(app, pilot) if row.startswith("tool ")]
        assert again == live
