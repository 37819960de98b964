"""Choosing a session, a model or a thinking level: the session picker says when each session was
last used, ``/thinking`` marks the level in use, ``/models NAME`` checks the endpoint's list."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.widgets import OptionList

from circle._testing.lease import InMemorySessionLease
from circle.application.ports.session_lease import Lease
from circle.domain.messages import Message
from circle.entrypoints.tui._recent import relative_when
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.testing import InMemorySessionStore

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, send, texts, until

NOW = time.mktime((2026, 12, 1, 12, 0, 0, 0, 0, -1))


def test_when_a_session_was_used_is_said_as_people_say_it() -> None:
    assert relative_when(NOW - 20, NOW) == "just now"
    assert relative_when(NOW - 5 * 60, NOW) == "5m ago"
    assert relative_when(NOW - 2 * 3600 - 59, NOW) == "2h ago"
    assert relative_when(NOW - 3 * 86400, NOW) == "3d ago"
    assert relative_when(time.mktime((2026, 11, 3, 9, 0, 0, 0, 0, -1)), NOW) == "3 Nov"
    assert relative_when(time.mktime((2025, 11, 3, 9, 0, 0, 0, 0, -1)), NOW) == "3 Nov 2025"


async def picker_lines(app: CircleApp) -> list[str]:
    picker = app.screen
    assert isinstance(picker, PickerScreen)
    options = picker.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def picker_filled(app: CircleApp) -> bool:
    """The picker is up with its options in it (they are added as it mounts, a moment after)."""
    screen = app.screen
    return isinstance(screen, PickerScreen) and any(o.option_count for o in screen.query(OptionList))


async def test_the_resume_flag_picker_shows_when_each_session_was_used(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    now = time.time()
    backend.store = InMemorySessionStore(clock=lambda: now - 2 * 3600 - 30)
    await backend.store.create_session(workspace=WORKSPACE, session_id="earlier", title="the earlier work")
    await backend.store.append("earlier", Message.user("start the earlier work"))  # offered: it has one
    app = make_app(resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: picker_filled(app))
        lines = await picker_lines(app)
        assert lines and lines[0].startswith("2h ago") and "the earlier work" in lines[0]
        await pilot.press("enter")
        await until(pilot, lambda: app.host is not None)


async def test_slash_resume_shows_when_each_session_was_used(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    now = time.time()
    backend.store = InMemorySessionStore(clock=lambda: now - 3 * 60)
    await backend.store.create_session(workspace=WORKSPACE, session_id="earlier", title="the earlier work")
    await backend.store.append("earlier", Message.user("start the earlier work"))  # offered: it has one
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await send(pilot, main_screen(app), "/resume")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert any(
            line.startswith("3m ago") and "the earlier work" in line for line in await picker_lines(app)
        )
        await pilot.press("escape")


async def test_thinking_with_no_level_marks_the_one_in_use(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/thinking high")
        await until(pilot, lambda: "thinking high" in str(screen.footer.content))
        await send(pilot, screen, "/thinking")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        lines = await picker_lines(app)
        assert "● high" in lines and "  off" in lines
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert picker.query_one(OptionList).highlighted == lines.index("● high")
        await pilot.press("escape")


async def test_models_with_an_unknown_name_says_so_and_offers_close_ones(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/models model-c")
        await until(pilot, lambda: "lists no model 'model-c'" in texts(screen))
        assert "Did you mean model-b or model-a?" in texts(screen)
        assert app.host is not None and app.host.model == "scripted"
        await send(pilot, screen, "/models model-b")
        await until(pilot, lambda: "Model: model-b" in texts(screen))
        assert app.host.model == "model-b"
        assert any("model-b" in line for line in screen_lines(app))


def test_the_titles_line_up_whatever_the_date() -> None:
    from circle.application.ports.session_store import SessionInfo
    from circle.entrypoints.tui._recent import session_label

    def used(then: float) -> str:
        info = SessionInfo(id="s", workspace=WORKSPACE, title="dols", created_at=then, updated_at=then)
        return session_label(info, now=NOW)

    dates = (NOW - 60, NOW - 3 * 86400, time.mktime((2025, 10, 30, 9, 0, 0, 0, 0, -1)), NOW - 20)
    labels = [used(then) for then in dates]
    assert len({label.index("dols") for label in labels}) == 1, labels


async def test_a_session_open_in_another_circle_picked_at_start_is_said_over_the_picker(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Found in tmux: `circle -r`, a session picked that another Circle had open: the message, and
    Circle ended (exit 1). The picker comes back saying so; esc starts a new session."""
    table: dict[str, Lease] = {}
    await backend.store.create_session(workspace=WORKSPACE, session_id="busy", title="the busy one")
    await backend.store.append("busy", Message.user("held elsewhere"))
    await InMemorySessionLease(table, pid=1).acquire("busy")
    backend.lease = InMemorySessionLease(table, pid=2)
    app = make_app(resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: picker_filled(app))
        await pilot.press("enter")
        await until(pilot, lambda: "open in another Circle" in "\n".join(screen_lines(app)))
        assert isinstance(app.screen, PickerScreen) and app.return_code is None
        assert "esc for a new session" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        await until(pilot, lambda: app.host is not None)
        assert app.host.session.session_id != "busy"
