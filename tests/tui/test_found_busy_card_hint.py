"""Found in tmux: while a command's approval card waited, the busy line offered 'ctrl+b to
background', which moves a running command to the background: the command had not started, and
ctrl+b said no command was being waited on. The hint shows once the command runs."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.status import BACKGROUND_HINT
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, until


async def test_ctrl_b_is_offered_once_the_command_runs_not_while_its_card_waits(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"sleep 100": Hang()}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})), answer("stopped"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait a while")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.2)
        busy = str(screen.busy.content)
        assert "esc cancels" in busy and BACKGROUND_HINT.strip(" ·") not in busy
        await pilot.press("1")  # allowed: it runs (and hangs)
        await until(pilot, lambda: BACKGROUND_HINT.strip(" ·") in str(screen.busy.content))
        await pilot.press("escape")
