"""ctrl+c while an approval card waits stops the turn; the command never ran, and its row and the
model say so: it read '⏹ execute  touch e1 / $ touch e1 / stopped before it finished' and the model
was told 'Interrupted: the tool call did not finish', as for a command stopped while it ran."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.domain.messages import STOPPED_RESULT, UNANSWERED_RESULT
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, card_ready, main_screen, send, until


async def test_ctrl_c_at_an_approval_card_shows_and_tells_the_command_was_not_run(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner(files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "touch e1"})), answer("Understood."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "cmd touch e1")
        await card_ready(pilot, screen, ApprovalCard)
        app.post_message(events.Key("ctrl+c", None))
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        body = str(row.body.content)
        assert "not run: the turn stopped before you answered" in body
        assert "stopped before it finished" not in body
        assert str(row.header.content).startswith("✗ execute  touch e1")
        assert backend.processes.calls == []
        await until(pilot, lambda: not screen.host.session.is_busy)
        await send(pilot, screen, "what happened?")
        await until(pilot, lambda: len(backend.model.requests) == 2)
        told = [m.text for m in backend.model.requests[-1].messages if m.role == "tool"]
        assert told == [UNANSWERED_RESULT]


async def test_the_calls_after_one_stopped_at_its_card_are_told_they_were_not_run(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """A stop at the first call's card came before the second began: it was told 'Interrupted: the
    tool call did not finish', as if it had run; it never did."""
    backend.processes = FakeProcessRunner(files=backend.files)
    calls = (Call("execute", {"command": "touch e1"}), Call("execute", {"command": "touch e2"}))
    backend.model.add(answer("", *calls), answer("Understood."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch both")
        await card_ready(pilot, screen, ApprovalCard)
        app.post_message(events.Key("ctrl+c", None))
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: not screen.host.session.is_busy)
        await send(pilot, screen, "what happened?")
        await until(pilot, lambda: len(backend.model.requests) == 2)
        told = [m.text for m in backend.model.requests[-1].messages if m.role == "tool"]
        assert told == [UNANSWERED_RESULT, STOPPED_RESULT]
        assert backend.processes.calls == []
