"""A long resumed session whose first message or /undo comes before the rest was read in the
background: the earlier messages still wait above and come back on scroll-up."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens import _rest
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, until
from .test_long_session import stored_session

COUNT = 240


@pytest.fixture(autouse=True)
def read_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rest is read in the background well after the first key: the key's path reads it."""
    monkeypatch.setattr(_rest, "READ_AFTER_S", 2.0)


async def _scrolled_to_the_first(pilot: Pilot[object], app: CircleApp) -> None:
    async def at_first() -> bool:
        await pilot.press("ctrl+home")
        await pilot.pause(0.05)
        return any(line.strip() == "› question 0" for line in screen_lines(app))

    loop_left = 100
    while not await at_first():
        loop_left -= 1
        assert loop_left, "the first message never came back on scroll-up"


async def test_undo_at_once_after_the_resume_keeps_the_earlier_messages_above(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session = await stored_session(backend, COUNT)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.conversation.earlier is not None)
        await send(pilot, screen, "/undo")  # before the rest is read in the background
        await until(pilot, lambda: any("Undone" in line for line in screen_lines(app)))
        await _scrolled_to_the_first(pilot, app)


async def test_a_message_at_once_after_the_resume_keeps_the_earlier_messages_above(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session = await stored_session(backend, COUNT)
    backend.model.add(answer("after the resume"))
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.conversation.earlier is not None)
        await send(pilot, screen, "one more")  # before the rest is read in the background
        await until(pilot, lambda: any("after the resume" in line for line in screen_lines(app)))
        await until(pilot, lambda: not screen.host.session.is_busy)
        await _scrolled_to_the_first(pilot, app)
