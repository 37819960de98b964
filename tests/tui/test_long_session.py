"""A long resumed session draws its last turns only; the earlier ones are drawn as the person
scrolls up to them, and the place read stays where it was."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import UserRow
from circle.entrypoints.tui.widgets.earlier import BATCH, TAIL, tail_size
from circle.testing import answer

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, until

COUNT = 3_000
FIRST = tail_size(SIZE[1])
"""Messages drawn first at the test's size."""


async def stored_session(backend: FakeBackend, count: int) -> str:
    info = await backend.store.create_session(workspace=WORKSPACE, title="long")
    for index in range(count):
        if index % 2 == 0:
            message = Message.user(f"question {index}")
        else:
            message = Message(role="assistant", parts=(TextPart(text=f"answer {index}"),))
        await backend.store.append(info.id, message)
    return info.id


def rows(screen: MainScreen) -> int:
    return len(screen.conversation.children)


async def test_a_long_session_resumes_with_its_last_turns_drawn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session = await stored_session(backend, COUNT)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: any(f"answer {COUNT - 1}" in line for line in screen_lines(app)))
        assert rows(screen) <= FIRST + 2 < TAIL
        earlier = screen.conversation.earlier
        assert earlier is not None and f"{COUNT - FIRST:,} earlier messages" in str(earlier.render())
        await until(pilot, lambda: len(earlier.waiting) == COUNT - FIRST)  # read after the tail drew


async def test_scrolling_to_the_top_draws_earlier_turns_and_keeps_the_place(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    count = FIRST + BATCH + 40
    session = await stored_session(backend, count)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await until(pilot, lambda: any(f"answer {count - 1}" in line for line in screen_lines(app)))
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y >= view.max_scroll_y)
        await until(pilot, lambda: view.earlier is not None and not view.earlier.unread)  # all read
        first = view.query(UserRow).first()
        view.scroll_home(animate=False)
        await until(pilot, lambda: rows(screen) > FIRST + BATCH // 2)
        await until(pilot, lambda: view.scroll_y > 0)
        await pilot.pause()
        assert view.scroll_y <= first.virtual_region.y <= view.scroll_y + view.size.height
        assert any(f"question {count - FIRST}" in line for line in screen_lines(app))
        while view.earlier is not None:  # every earlier message, batch by batch
            view.scroll_home(animate=False)
            waiting = len(view.earlier.waiting)
            await until(pilot, lambda w=waiting: view.earlier is None or len(view.earlier.waiting) < w)
        await until(pilot, lambda: view.all_drawn)  # the last batch's slices go in a frame apart
        assert len(view.query(UserRow)) == count // 2


async def test_a_long_session_opens_by_its_tail_and_its_next_message_sends_all_of_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session = await stored_session(backend, COUNT)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert backend.store.tails_read == [(session, "main", TAIL)]
        screen = main_screen(app)
        await until(pilot, lambda: screen.conversation.earlier is not None)
        shown = lambda: str(screen.conversation.earlier.render()) if screen.conversation.earlier else ""  # noqa: E731
        await until(pilot, lambda: f"{COUNT - FIRST:,} earlier" in shown())
        backend.model.add(answer("after the resume"))
        screen.send("one more")
        await until(pilot, lambda: any("after the resume" in line for line in screen_lines(app)))
    sent = backend.model.requests[-1].messages
    stored = [f"question {i}" if i % 2 == 0 else f"answer {i}" for i in range(COUNT)]
    assert [m.text for m in sent] == [*stored, "one more"]


async def test_a_view_at_the_top_before_the_rest_is_read_draws_it_once_read(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session = await stored_session(backend, 600)
    app = make_app(session=session)
    async with app.run_test(size=(100, 64)) as pilot:  # tall: the tail read is the tail drawn
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await until(pilot, lambda: view.earlier is not None and view.max_scroll_y > 0)
        view.scroll_home(animate=False)  # most often before the rest is read: nothing waits to draw
        await until(pilot, lambda: rows(screen) > TAIL + BATCH // 2)
        assert view.earlier is not None and not view.earlier.unread
