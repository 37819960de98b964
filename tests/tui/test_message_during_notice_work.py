"""A message sent while a background job's notice is being worked on, with no turn of the person's
running (the notice's turn has not begun, or is between two), is queued and sent once that work
ends, in the order typed: not refused as "a turn is already running"."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.application.ports.process_runner import ProcessResult
from circle.domain.model import ModelEvent, ModelRequest
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import QUEUED
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, main_screen, send, texts, until


class HoldsNotices(ScriptedModel):
    """Answers a request that ends with a job's notice only once ``go`` is set."""

    def __init__(self, steps: list[list[ModelEvent]]) -> None:
        super().__init__(steps)
        self.go = asyncio.Event()
        self.held: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if request.messages[-1].text.startswith("[job-"):
            self.held.append(request)
            await self.go.wait()
        async for event in super().stream(request):
            yield event


def asked(backend: FakeBackend) -> list[list[str]]:
    """The person's and the notices' messages, request by request."""
    return [[m.text for m in r.messages if m.role == "user"] for r in backend.model.requests]


async def test_a_message_sent_as_a_notice_starts_its_work_is_queued_and_sent_after_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    ls = ProcessResult(exit_code=0, output="a\n")
    runner = FakeProcessRunner({"make": Hang(""), "ls": ls}, files=backend.files)
    backend.processes = runner
    model = HoldsNotices(
        [
            answer("", Call("execute", {"command": "make", "background": True})),
            answer("Started."),
            answer("The build is done."),
            answer("", Call("execute", {"command": "ls"})),
            answer("Read both."),
        ]
    )
    backend.model = model
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build in the background")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        host = app.host
        assert host is not None and host.session.jobs is not None
        seen: list[tuple[bool, bool]] = []

        def typed_now() -> None:  # after the session's own listener: its work began, no turn yet
            seen.append((host.session.is_busy, host.session.is_running))
            screen.send("first words")

        host.session.jobs.on_ended(typed_now)
        runner.started[0].finish(0, "built\n")
        await until(pilot, lambda: bool(seen) and bool(model.held))
        assert seen == [(True, False)]  # busy with the notice's work, no turn running
        await send(pilot, screen, "second words")
        await pilot.pause(0.1)
        assert "a turn is already running" not in texts(screen)
        model.go.set()
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 3)
        assert "a turn is already running" not in texts(screen)
        assert any(QUEUED in str(n.message) for n in app._notifications)
        notice_turn, *_, last = asked(backend)[2:]
        assert notice_turn[-1].startswith("[job-1") and "first words" not in notice_turn
        assert last[-3:] == [notice_turn[-1], "first words", "second words"]  # the second steered in
