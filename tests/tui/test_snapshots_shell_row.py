"""How a shown-only !!command with a long output looks: folded with its unfold hint, at 80x24."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.shell_row import ShellRow
from circle.testing import FakeProcessRunner

from .conftest import FakeBackend, main_screen, send, until
from .test_snapshots import SnapCompare, settle


def test_a_long_shown_only_command_folded(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    counted = ProcessResult(exit_code=0, output="".join(f"{n}\n" for n in range(1, 61)))
    backend.processes = FakeProcessRunner({"seq 1 60": counted}, files=backend.files)
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!!seq 1 60")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
