"""A conversation drawn again (after /undo or /redo) shows its end from its first frame: no frame
at an old line, at the top of a long answer still being laid out, or blank."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, send, until

TURNS = 45
LONG_END = "LAST LINE OF LONG ANSWER"
LAST_END = "last line of the last answer"


def _long_answer() -> str:
    items = "\n".join(f"- item {index} of the long answer" for index in range(1, 100))
    paragraphs = "\n\n".join(f"Paragraph {index} with **bold** text." for index in range(10))
    return f"# Long answer\n\n{items}\n\n## Part two\n\n{paragraphs}\n\n{LONG_END}"


async def _stored(backend: FakeBackend) -> str:
    """90 messages: the next-to-last answer 120 lines of Markdown, the last one 40 lines."""
    info = await backend.store.create_session(workspace=WORKSPACE, title="long")
    for turn in range(1, TURNS + 1):
        text = f"answer to turn {turn}"
        if turn == TURNS - 1:
            text = _long_answer()
        elif turn == TURNS:
            text = "\n".join(f"line {index}" for index in range(40)) + f"\n\n{LAST_END}"
        await backend.store.append(info.id, Message.user(f"hello turn {turn}"))
        await backend.store.append(info.id, Message(role="assistant", parts=(TextPart(text=text),)))
    return info.id


async def _frames_until(pilot: Pilot[object], app: CircleApp, command: str, done: str) -> list[list[str]]:
    """Every frame painted from ``command`` sent until ``done`` is on screen: the screen as each
    new layout leaves it, outside a batch update (inside one the terminal is not written)."""
    frames: list[list[str]] = []
    screen = main_screen(app)

    def painted(_: object) -> None:
        if not app._batch_count:
            frames.append(screen_lines(app))

    screen.screen_layout_refresh_signal.subscribe(screen, painted)
    await send(pilot, screen, command)
    await until(pilot, lambda: any(done in line for line in screen_lines(app)), within=15)
    await pilot.pause()
    screen.screen_layout_refresh_signal.unsubscribe(screen)
    frames.append(screen_lines(app))
    return frames


def _redrawn(frames: list[list[str]]) -> list[list[str]]:
    """The frames from the first one after the view was drawn again (the last turn gone)."""
    for index, lines in enumerate(frames):
        if not any(LAST_END in line or "› hello turn 45" in line for line in lines):
            return frames[index:]
    raise AssertionError("the view was never drawn again")


async def test_undo_and_redo_in_a_long_session_show_the_end_from_the_first_frame(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app(session=await _stored(backend))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: any(LAST_END in line for line in screen_lines(app)), within=15)
        frames = _redrawn(await _frames_until(pilot, app, "/undo", "Undone 'hello turn 45'"))
        for lines in frames:  # the end of the long answer, now last, on every frame
            assert any(LONG_END in line for line in lines), "\n".join(lines)
        view = screen.conversation
        assert view.following and view.scroll_y == view.max_scroll_y

        frames = await _frames_until(pilot, app, "/redo", "Redone 'hello turn 45'")
        redrawn = [lines for lines in frames if not any(LONG_END in line for line in lines)]
        for lines in redrawn:  # once the long answer's end is gone, the last answer's end shows
            assert any(LAST_END in line for line in lines), "\n".join(lines)
