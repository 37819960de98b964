"""The conversation follows its end: through rows that grow after they are added, notices, a
resumed session and a resize, until the person scrolls up; then a marker says new output is below,
and End follows again."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, until

LONG = "\n\n".join(f"line {n} of the answer" for n in range(1, 121))


def at_end(screen: MainScreen) -> bool:
    view = screen.conversation
    return view.max_scroll_y > 0 and view.scroll_y >= view.max_scroll_y


async def wheel_up(pilot: object, screen: MainScreen, *, times: int = 3) -> None:
    """The mouse wheel turned up over the conversation, as a person scrolls back."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    view = screen.conversation
    for _ in range(times):
        view.post_message(events.MouseScrollUp(view, 2, 2, 0, -1, 0, False, False, False))
        await pilot.pause()


async def turns(pilot: object, screen: MainScreen, count: int) -> None:
    for n in range(count):
        await send(pilot, screen, f"question {n}")
        await until(pilot, lambda n=n: len(screen.conversation.query(TurnLine)) > n)


async def test_a_long_streamed_answer_is_followed_to_its_last_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(LONG))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "long please")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: any("line 120 of the answer" in line for line in screen_lines(app)))
        await until(pilot, lambda: at_end(screen))


async def test_help_after_several_turns_is_shown_at_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    for n in range(4):
        backend.model.add(answer(f"answer {n}\n\n" + "\n\n".join(["more"] * 8)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await turns(pilot, screen, 4)
        await send(pilot, screen, "/help")
        await until(pilot, lambda: any("/quit" in line for line in screen_lines(app)))
        await until(pilot, lambda: at_end(screen))


async def test_scrolled_up_the_view_stays_and_says_new_output_is_below_until_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(LONG))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await turns(pilot, screen, 1)
        await until(pilot, lambda: at_end(screen))
        assert not screen.below.display
        await wheel_up(pilot, screen)
        assert not at_end(screen)
        await until(pilot, lambda: screen.below.display)
        assert any("↓ more below" in line for line in screen_lines(app))  # nothing new yet
        held = screen.conversation.scroll_y
        screen.conversation.notice("the second answer")  # output of the turn still running
        await until(pilot, lambda: any("new output below" in line for line in screen_lines(app)))
        assert screen.conversation.scroll_y == held and screen.below.display
        await pilot.press("end")
        await until(pilot, lambda: at_end(screen) and not screen.below.display)
        assert any("the second answer" in line for line in screen_lines(app))


async def test_after_a_resize_the_view_is_at_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(LONG))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await turns(pilot, screen, 1)
        await until(pilot, lambda: at_end(screen))
        await pilot.resize_terminal(60, 20)
        await until(pilot, lambda: at_end(screen))
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: at_end(screen))


async def test_a_resumed_session_opens_at_its_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(LONG))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await turns(pilot, screen, 1)
        first = screen.host.session.session_id
        await send(pilot, screen, "/new")
        await until(pilot, lambda: screen.host.session.session_id != first)
        await send(pilot, screen, f"/resume {first}")
        await until(pilot, lambda: any("Resumed “" in line for line in screen_lines(app)))
        await until(pilot, lambda: at_end(screen))  # the scroll lands a frame or two later under load
