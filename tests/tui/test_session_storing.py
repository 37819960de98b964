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


async def test_session_commands_before_the_first_message_say_so_plainly(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from .conftest import texts

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for command in ("/undo", "/redo", "/export out.md", "/fork", "/tree", "/rewind"):
            await send(pilot, screen, command)
            await pilot.pause(0.2)
            if app.screen is not screen:
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is screen)
        shown = texts(screen)
        assert "no session" not in shown.lower() and "Traceback" not in shown
        assert "nothing to export yet" in shown
        assert app.is_running
    assert backend.store.sessions == {}


def test_empty_sessions_left_by_earlier_versions_are_not_offered() -> None:
    from circle.application.ports.session_store import SessionInfo
    from circle.entrypoints.tui._recent import session_choices

    empty = SessionInfo(id="e", workspace="/w", title=None, created_at=0.0, updated_at=0.0, message_count=0)
    kept = SessionInfo(
        id="k", workspace="/w", title="fix it", created_at=0.0, updated_at=0.0, message_count=4
    )
    assert [item for item, _ in session_choices([empty, kept], now=10.0)] == ["k"]
