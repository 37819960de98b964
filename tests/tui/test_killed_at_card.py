"""A Circle killed (SIGKILL) while an approval card waited left the call marked as running: the
session opened again read '⏹ execute  touch made.txt / stopped before it finished' and the model
was told 'Interrupted: Circle stopped while this call was still running ... It may have done part
of its work'. The card was never answered, so the call never ran: it shows and is told as not run,
as when the turn is stopped at the card."""

from __future__ import annotations

from collections.abc import Callable

from circle._testing.call_log import InMemoryCallLog
from circle.domain.call_marks import UNANSWERED_LOST, CallMark
from circle.domain.messages import Message, ToolCallPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import ToolRow
from circle.testing import Call, answer

from .conftest import WORKSPACE, FakeBackend, card_ready, main_screen, send, until


async def test_a_call_is_marked_asking_while_its_card_waits(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.calls = InMemoryCallLog()
    backend.model.add(answer("", Call("execute", {"command": "touch e1"}, id="c1")), answer("Done."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        await card_ready(pilot, screen, ApprovalCard)
        marks = backend.calls.marks_by_session[screen.host.session.session_id]
        assert marks == {"c1": CallMark("c1", "asking")}  # what a kill now leaves


async def test_a_session_killed_at_a_card_reopens_with_the_call_not_run(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.calls = InMemoryCallLog()
    await backend.store.create_session(workspace=WORKSPACE, session_id="old")
    await backend.store.append("old", Message.user("cmd touch made.txt"))
    call = ToolCallPart(id="c1", name="execute", arguments='{"command": "touch made.txt"}')
    await backend.store.append("old", Message(role="assistant", parts=(call,)))
    await backend.calls.started("old", "c1")
    await backend.calls.asking("old", "c1")  # then Circle was killed, the card up
    backend.model.add(answer("Understood."))
    app = make_app(session="old")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(
            pilot, lambda: app.host is not None and bool(main_screen(app).conversation.query(ToolRow))
        )
        screen = main_screen(app)
        row = screen.conversation.query_one(ToolRow)
        body = str(row.body.content)
        assert "not run: Circle stopped before you answered" in body, body
        assert "stopped before it finished" not in body
        assert str(row.header.content).startswith("✗ execute  touch made.txt")
        await send(pilot, screen, "what happened?")
        await until(pilot, lambda: len(backend.model.requests) == 1)
        told = [m.text for m in backend.model.requests[-1].messages if m.role == "tool"]
        assert told == [UNANSWERED_LOST]
