"""PageUp pressed as soon as a long resumed session's first frame shows lands where PageUp lands
once everything is drawn: a page up from the end. That frame lays the tail's rows out before
Textual moves the view to the end (it shows the tail's top), so a page counted from where the view
is then lands elsewhere; from the end, PageUp goes a page up from the end as laid out once the
frame is drawn, and the row it lands on is held as the slices go in above. The slices are fed by
the test (``slices_held``), so the order is known rather than racing the frames."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import Answer, ConversationView
from circle.entrypoints.tui.widgets.drawn import Drawn

from .conftest import FakeBackend, main_screen, screen_lines, until
from .test_sliced_tail import LAST, _stored

SCROLL_BAR = "▁▂▃▄▅▆▇█▉▊▋▌▍▎▏"


def _view_lines(app: CircleApp, view: ConversationView) -> list[str]:
    """The conversation's lines as shown, without its scroll bar (its thumb's place depends on
    how many rows are drawn above)."""
    region = view.region
    lines = screen_lines(app)[region.y : region.bottom]
    return [line[region.x : region.right].rstrip().rstrip(SCROLL_BAR).rstrip() for line in lines]


def _first_frame(app: CircleApp) -> bool:
    """The session screen has drawn its first frame with the resumed rows on it."""
    screen = app.screen
    if not isinstance(screen, MainScreen) or not screen.conversation.query(Answer):
        return False
    return any(" of answer " in line for line in screen_lines(app))


async def _idle(pilot: object, view: ConversationView) -> None:
    """Every slice is in and laid out, and what waits for a frame has run."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await until(pilot, lambda: not view.drawing_above and not view._slices)
    await until(pilot, lambda: all(row.virtual_region.height for row in view.children))
    for _ in range(5):
        await pilot.pause(0.05)


@pytest.mark.parametrize("size", [(140, 45), (80, 24)])
async def test_page_up_in_the_frame_before_the_view_is_at_the_end_lands_a_page_up_from_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: _first_frame(app))
        screen = main_screen(app)
        view = screen.conversation
        await _idle(pilot, view)
        assert view.following and view.scroll_y == view.max_scroll_y
        app.post_message(events.Key("pageup", None))  # at idle: where PageUp lands
        await _idle(pilot, view)
        idle = _view_lines(app, view)
        assert LAST not in "\n".join(idle) and not view.following

        view.slices_held = True
        view.drawn = Drawn()  # drawn again whole, as at the start: the tail, slices waiting above
        await view.redraw(messages)
        await until(pilot, lambda: all(row.virtual_region.height for row in view.children))
        assert view._slices and view.following
        view.anchor(False)  # as the first frame leaves it: laid out at the tail's top, not yet at the end
        view.set_reactive(ConversationView.scroll_y, 0)
        view.set_reactive(ConversationView.scroll_target_y, 0)
        app.post_message(events.Key("pageup", None))
        for _ in range(3):
            await pilot.pause()
        while view._slices:
            view.next_slice()
            await until(pilot, lambda: all(row.virtual_region.height for row in view.children))
            await pilot.pause()
        view.next_slice()
        await _idle(pilot, view)
        assert _view_lines(app, view) == idle
