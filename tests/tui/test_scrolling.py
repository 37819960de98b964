"""Scrolling the conversation from the input box: PageUp/PageDown, ctrl+home/ctrl+end, the wheel."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, texts, until


def filled(screen: MainScreen, rows: int = 80) -> None:
    for index in range(rows):
        screen.conversation.notice(f"line {index}")


async def test_page_keys_scroll_the_conversation_while_the_cursor_stays_in_the_input_box(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        filled(screen)
        view = screen.conversation
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y < view.max_scroll_y)
        assert screen.composer.has_focus and not view.following
        first = view.scroll_y
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y < first)
        screen.conversation.notice("new output")
        await until(pilot, lambda: screen.below.display)
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: view.following and not screen.below.display)
        await pilot.press("ctrl+home")
        await until(pilot, lambda: view.scroll_y == 0)
        assert screen.composer.has_focus and not view.following
        await pilot.press("ctrl+end")
        await until(pilot, lambda: view.following and view.scroll_y == view.max_scroll_y)
        await pilot.press("h", "i")
        assert screen.composer.text == "hi"


async def test_the_mouse_wheel_scrolls_the_conversation_and_typing_still_reaches_the_input_box(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        filled(screen)
        view = screen.conversation
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        for _ in range(5):
            await pilot._post_mouse_events([events.MouseScrollUp], "#conversation", offset=(10, 5))
        await until(pilot, lambda: view.scroll_y < view.max_scroll_y and not view.following)
        await pilot.press("o", "k")
        assert screen.composer.has_focus and screen.composer.text == "ok"


async def test_hotkeys_lists_the_scrolling_keys(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/hotkeys")
        await until(pilot, lambda: "pgup / pgdn" in texts(screen))
        said = texts(screen)
        assert "ctrl+home / ctrl+end" in said and "wheel" in said and "ctrl+o" in said


async def test_quick_page_keys_each_scroll_a_page(make_app: Callable[..., CircleApp]) -> None:
    """Read in one go (a held key, quick presses), each PageUp and PageDown scrolls its page: they
    were counted from where the view was before the frame, so four went as far as one or two."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        filled(screen, rows=300)
        view = screen.conversation
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y < view.max_scroll_y)
        await pilot.pause()
        page, start = view.scrollable_content_region.height, view.scroll_y
        for _ in range(4):
            app.post_message(events.Key("pageup", None))
        await until(pilot, lambda: view.scroll_y <= start - 4 * page)
        assert view.scroll_y == start - 4 * page
        for _ in range(3):
            app.post_message(events.Key("pagedown", None))
        await until(pilot, lambda: view.scroll_y >= start - page)
        assert view.scroll_y == start - page


async def test_quick_page_keys_each_scroll_a_page_of_the_transcript(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    backend.model.add(answer("\n\n".join(f"Paragraph {index}." for index in range(300))))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write a lot")
        await until(pilot, lambda: "Paragraph 299." in texts(screen))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.done)
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        scroll = transcript.scroll
        await until(pilot, lambda: scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y)
        page, start = scroll.scrollable_content_region.height, scroll.scroll_y
        for _ in range(4):
            app.post_message(events.Key("pageup", None))
        await until(pilot, lambda: scroll.scroll_y <= start - 4 * page, within=5)
        assert scroll.scroll_y == start - 4 * page


async def test_the_transcripts_title_keeps_how_to_leave_at_every_width(
    make_app: Callable[..., CircleApp],
) -> None:
    """At 50 columns it read 'Transcript, every output in full · esc or ctrl+o', cut mid-word."""
    from textual.widgets import Static

    from circle.entrypoints.tui.screens.transcript import TITLES, TranscriptScreen

    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        title = app.screen.query_one("#transcript-title", Static)
        await until(pilot, lambda: str(title.render()) == "Transcript · esc or ctrl+o closes")
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: str(title.render()) == TITLES[0])
        await pilot.resize_terminal(30, 16)
        await until(pilot, lambda: str(title.render()) == "Transcript · esc closes")
