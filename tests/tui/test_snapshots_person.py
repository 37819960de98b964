"""How the person's messages look: a plan-mode switch as a notice, a !command as a command row,
an attached file as a chip and a long paste folded, at 100x32 and at 80x24."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.pilot import Pilot

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until
from .test_snapshots import SnapCompare, settle


def _script(backend: FakeBackend) -> None:
    backend.files.put("/work/notes.txt", "the notes\n")
    backend.processes = FakeProcessRunner(
        {"git status --short": ProcessResult(exit_code=0, output=" M app.py\n")}, files=backend.files
    )
    backend.model.add(answer("I will plan first."), answer("The notes and the change are read."))


def _drive(app: CircleApp) -> Callable[[Pilot[object]], object]:
    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("shift+tab", "shift+tab")
        await send(pilot, screen, "plan the change")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        await send(pilot, screen, "!git status --short")
        await pilot.pause(0.2)
        await pilot.press(*"compare @notes.txt with ")
        screen.composer.post_message(events.Paste("\n".join(f"log line {n}" for n in range(30))))
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        await settle(pilot)

    return run_before


def test_the_persons_messages(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    _script(backend)
    app = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=_drive(app))


def test_the_persons_messages_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    _script(backend)
    app = make_app()
    assert snap_compare(app, terminal_size=(80, 24), run_before=_drive(app))
