"""esc on an approval card denies the call and ends the turn, with the input box ready for what
to do instead; a command that is to run in the background says so on its card."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.ports.process_runner import ProcessResult
from circle.domain.messages import STOPPED_RESULT
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import STOPPED_HINT
from circle.entrypoints.tui.widgets.cards import BACKGROUND_NOTE, ApprovalCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, screen_lines, send, texts, until


async def test_esc_on_an_approval_card_denies_the_call_and_ends_the_turn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = FakeProcessRunner({"make build": ProcessResult(exit_code=0, output="")}, files=backend.files)
    backend.processes = runner
    build, test = Call("execute", {"command": "make build"}), Call("execute", {"command": "make test"})
    backend.model.add(answer("", build, test))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: STOPPED_HINT in texts(screen))
        assert runner.calls == [] and len(backend.model.requests) == 1
        assert app.host is not None
        results = [r for m in app.host.session.conversation.messages for r in m.tool_results]
        assert "stopped the turn" in results[0].text and results[1].text == STOPPED_RESULT
        assert screen.card is None and screen.composer.display
        await until(pilot, lambda: screen.composer.has_focus)
        await pilot.press(*"just test")
        assert screen.composer.text == "just test"


async def test_a_background_command_says_so_on_its_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    serve = Call("execute", {"command": "python3 -m http.server", "background": True})
    backend.model.add(answer("", serve), answer("Left it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve it")
        await card_ready(pilot, screen, ApprovalCard)
        await until(
            pilot, lambda: any("Run this command in the background?" in line for line in screen_lines(app))
        )
        assert any(BACKGROUND_NOTE in line for line in screen_lines(app))
        await pilot.press("n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
