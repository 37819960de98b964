"""Opening the interface and leaving stores no session: one is stored with its first message."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


async def test_open_and_quit_leaves_no_session_and_no_reopen_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/name later")
        await send(pilot, screen, "/new")
        await send(pilot, screen, "/quit")
        await until(pilot, lambda: not app.is_running)
    assert backend.store.sessions == {}
    assert app.exit_lines == []


async def test_the_first_message_stores_the_session_the_picker_lists(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Hi."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/name greeting")
        await send(pilot, screen, "hello there")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, "/new")
        assert app.host is not None
        listed = await app.host.sessions()
        await send(pilot, screen, "/quit")
        await until(pilot, lambda: not app.is_running)
    assert [(s.title, s.name, s.message_count) for s in listed] == [("hello there", "greeting", 2)]
    assert len(backend.store.sessions) == 1
