"""ctrl+home and ctrl+f reach a resumed session's start: its earlier messages, waiting above the
rows drawn, are drawn first. The first ctrl+home went to the top of the rows drawn so far, and
ctrl+f found nothing in the messages before them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.find_bar import PARTLY

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, until

TURNS = 90  # 180 messages: the tail (60 at most) and more than one batch (100) above it


async def stored(backend: FakeBackend) -> str:
    info = await backend.store.create_session(workspace=WORKSPACE, title="long")
    for turn in range(TURNS):
        await backend.store.append(info.id, Message.user(f"question {turn}"))
        await backend.store.append(
            info.id, Message(role="assistant", parts=(TextPart(text=f"answer {turn}"),))
        )
    return info.id


def shown(app: CircleApp) -> str:
    return "\n".join(screen_lines(app))


@asynccontextmanager
async def resumed(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> AsyncIterator[tuple[CircleApp, Pilot[object], MainScreen]]:
    """The app with the stored session open, its last answer on the screen."""
    app = make_app(session=await stored(backend))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and f"answer {TURNS - 1}" in shown(app))
        yield app, pilot, main_screen(app)


@pytest.mark.parametrize("when", ["tail drawn", "tail drawing"])
async def test_ctrl_home_goes_to_the_sessions_first_message_at_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend, when: str
) -> None:
    async with resumed(make_app, backend) as (app, pilot, screen):
        if when == "tail drawn":
            await until(pilot, lambda: not screen.conversation.drawing_above)
        await pilot.press("ctrl+home")
        await until(pilot, lambda: "› question 0" in shown(app))
        await until(pilot, lambda: screen.conversation.all_drawn)  # the rest went in below it
        await pilot.pause(0.1)
        assert "› question 0" in shown(app)
        await pilot.press("ctrl+end")
        await until(pilot, lambda: f"answer {TURNS - 1}" in shown(app))


async def test_ctrl_home_draws_the_start_first_and_the_rest_below_it_a_slice_a_frame(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """The earlier messages go in from the top down: the first slice shows the session's start,
    and each next one goes in under the one before, in order, while the view stays at the top."""
    async with resumed(make_app, backend) as (app, pilot, screen):
        view = screen.conversation
        await until(pilot, lambda: not view.drawing_above and view.earlier is not None)
        await until(pilot, lambda: view.earlier is not None and not view.earlier.unread)
        view.slices_held = True
        await pilot.press("ctrl+home")
        await until(pilot, lambda: "› question 0" in shown(app))
        assert not view.all_drawn  # the rows below the start are still to go in
        steps = 0
        while not view.all_drawn:
            view.next_slice()
            await pilot.pause()
            steps += 1
            assert "› question 0" in shown(app)
        assert steps >= 2
        said = [str(row.content) for row in view.children if "user" in row.classes]
        assert said == [f"› question {turn}" for turn in range(TURNS)]


async def test_end_pressed_before_the_start_was_reached_stays_at_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with resumed(make_app, backend) as (app, pilot, screen):
        await pilot.press("ctrl+home", "ctrl+end")  # before the session has read its earlier messages
        await until(
            pilot, lambda: screen.conversation.earlier is not None and not screen.conversation.earlier.unread
        )
        await pilot.pause(0.3)
        assert f"answer {TURNS - 1}" in shown(app) and screen.conversation.following


async def test_ctrl_f_finds_a_message_from_before_the_rows_drawn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with resumed(make_app, backend) as (app, pilot, screen):
        await until(pilot, lambda: not screen.conversation.drawing_above)
        count = screen.query_one("#find-count", Static)
        await pilot.press("ctrl+f", *"answer", "space", "3", "colon")
        await pilot.press("backspace")  # "answer 3": answer 3 and answers 30 to 39
        await until(pilot, lambda: str(count.content).endswith("of 11"))
        assert PARTLY not in str(count.content)  # every message is drawn: the count is of all
        for _ in range(11):
            at = int(str(count.content).split(" of ")[0])
            number = 3 if at == 1 else 28 + at
            await until(pilot, lambda number=number: f"answer {number}" in shown(app))
            await pilot.press("enter")


async def test_ctrl_f_draws_the_earlier_messages_in_slices_and_finds_again_once_they_are_in(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """ctrl+f draws what waits above a slice a frame, the nearest first, the count saying it is of
    what is drawn; once the last slice is in, the term is found in all of them."""
    async with resumed(make_app, backend) as (_app, pilot, screen):
        view = screen.conversation
        await until(pilot, lambda: not view.drawing_above and view.earlier is not None)
        await until(pilot, lambda: view.earlier is not None and not view.earlier.unread)
        view.slices_held = True
        count = screen.query_one("#find-count", Static)
        await pilot.press("ctrl+f", *"question", "space", "1")
        await until(pilot, lambda: PARTLY in str(count.content))  # of what is drawn so far
        assert not view.all_drawn
        while not view.all_drawn:
            view.next_slice()
            await pilot.pause()
        view.next_slice()  # the frame after the last slice: all are in
        await until(pilot, lambda: PARTLY not in str(count.content))
        assert str(count.content).endswith("of 11")  # question 1 and 10 to 19
