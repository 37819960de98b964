"""PageUp, ctrl+home or the wheel while a long session's rows go in above the ones shown: the view
stays on the line read as each slice is inserted, whether the scroll was applied before the slice
or is still waiting for the next frame; a view at the end stays at the end. The slices are fed by
the test (``slices_held``), so each step happens in a known order rather than racing the frames."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import ConversationView
from circle.entrypoints.tui.widgets.drawn import Drawn
from circle.entrypoints.tui.widgets.held_view import Mark

from .conftest import SIZE, FakeBackend, main_screen, until
from .test_sliced_tail import LAST, _at_end_with_all, _shows, _stored, _tail_answers


def _laid_out(view: ConversationView) -> bool:
    return all(row.virtual_region.height for row in view.children if row is not view.earlier)


async def _settled(pilot: object, view: ConversationView) -> None:
    """The slice mounted is laid out, and a scroll waiting for the next frame is applied."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await until(pilot, lambda: _laid_out(view))
    for _ in range(3):
        await pilot.pause()


def _at_top(view: ConversationView, wanted: Mark | None) -> bool:
    """The line ``wanted`` (a row, and how far below its top) is the view's top line."""
    assert wanted is not None
    return view.scroll_y == view.y_of(wanted) and view.mark_at(view.scroll_y) is not None


def _line_a_page_up(view: ConversationView) -> Mark | None:
    return view.mark_at(view.scroll_y - view.scrollable_content_region.height)


async def _held_redraw(pilot: object, app: CircleApp, screen: MainScreen) -> ConversationView:
    """The conversation drawn again whole as /tree draws it, the slices above waiting for the test."""
    assert app.host is not None
    view = screen.conversation
    view.slices_held = True
    view.drawn = Drawn()  # nothing known drawn: all is drawn again, as after /tree
    await view.redraw(app.host.session.conversation.messages)
    at_end = lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y  # noqa: E731
    await until(pilot, lambda: _laid_out(view) and at_end())
    assert len(view._slices) >= 4, len(view._slices)  # slices wait to go in above
    return view


async def test_page_up_and_home_while_slices_go_in_above_stay_on_the_line_read(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        view = await _held_redraw(pilot, app, screen)

        wanted = _line_a_page_up(view)  # at the end; a slice goes in, PageUp before it is laid out
        view.next_slice()
        screen.action_page(-1)
        await _settled(pilot, view)
        assert not view.following and _at_top(view, wanted)

        wanted = view.mark_at(view.scroll_y)  # scrolled up: the next slice leaves the line read
        view.next_slice()
        await _settled(pilot, view)
        assert _at_top(view, wanted)

        wanted = _line_a_page_up(view)  # another PageUp waiting for the frame as a slice goes in
        view.next_slice()
        screen.action_page(-1)
        await _settled(pilot, view)
        assert _at_top(view, wanted)

        screen.action_page_home()  # ctrl+home, then a slice above: the row at the top stays
        await _settled(pilot, view)
        wanted = view.mark_at(view.scroll_y)
        view.next_slice()
        await _settled(pilot, view)
        assert _at_top(view, wanted)


async def test_a_view_at_the_end_stays_there_as_slices_go_in_above(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        view = await _held_redraw(pilot, app, screen)
        while view._slices:
            view.next_slice()
            await _settled(pilot, view)
            assert view.following and view.scroll_y == view.max_scroll_y
        view.next_slice()  # the last call finds none left: the rows above are all drawn
        assert not view.drawing_above
        assert _shows(app, LAST) and view.following
