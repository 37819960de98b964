"""ctrl+o in a long session opens at once: the transcript's end is drawn first and the messages
before it go in above, a slice a frame, and keys are answered meanwhile."""

from __future__ import annotations

import json
from collections.abc import Callable

from textual import events

from circle.domain.messages import Message, TextPart, ToolCallPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.transcript import TranscriptScreen, transcript_text

from .conftest import SIZE, FakeBackend, screen_lines, until

OUTPUT = "".join(f"l{i}\n" for i in range(40))


def long_session(turns: int) -> list[Message]:
    messages = []
    for turn in range(turns):
        call = ToolCallPart(id=f"c{turn}", name="execute", arguments=json.dumps({"command": f"cat f{turn}"}))
        messages += [
            Message.user(f"question {turn}"),
            Message(role="assistant", parts=(TextPart(text="Looking."), call)),
            Message.tool_result(
                call_id=f"c{turn}", name="execute", text="".join(f"l{i}\n" for i in range(40))
            ),
            Message(role="assistant", parts=(TextPart(text=f"answer {turn}"),)),
        ]
    return messages


async def test_a_long_transcript_shows_its_end_first_and_the_rest_goes_in_above(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    messages = long_session(150)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        transcript = TranscriptScreen(messages)
        transcript.slices_held = True
        await app.push_screen(transcript)
        await pilot.pause(0.1)
        assert "answer 149" in screen_lines(app)[-1]  # the end, at once
        assert "answer 149" in transcript.text and "question 0" not in transcript.text
        await pilot.press("pageup")  # answered while the rest is still to go in
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.1)
        assert "answer 149" not in "\n".join(screen_lines(app))
        transcript.slices_held = False
        await transcript.next_slice()
        await until(pilot, lambda: transcript.done, within=60)
        assert transcript.text == transcript_text(messages).plain
        await pilot.press("home")
        await pilot.pause(0.1)
        assert "› question 0" in screen_lines(app)[1]


async def test_opening_the_transcript_restyles_nothing_on_the_session_screen(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """A screen whose styles were new made Textual parse every style again and restyle every row
    of the conversation below it: the screens opened over the session screen have theirs loaded
    with it."""
    from circle.entrypoints.tui.screens.main import MainScreen
    from circle.entrypoints.tui.screens.picker import PickerScreen, TextScreen
    from circle.entrypoints.tui.screens.record import LiveRecord
    from circle.entrypoints.tui.screens.tree import TreeScreen

    loaded = {str(path) for path in MainScreen.CSS_PATH}
    for screen in (TranscriptScreen, PickerScreen, TextScreen, LiveRecord, TreeScreen):
        paths = screen.CSS_PATH if isinstance(screen.CSS_PATH, list) else [screen.CSS_PATH]
        assert {str(path) for path in paths if path} <= loaded, screen
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        restyled: list[object] = []
        update = app.stylesheet.update
        app.stylesheet.update = lambda *a, **k: restyled.append(a) or update(*a, **k)  # type: ignore[method-assign]
        transcript = TranscriptScreen(long_session(3))
        await app.push_screen(transcript)
        await until(pilot, lambda: transcript.done)
        assert not restyled


async def test_home_and_end_in_the_transcript_go_there_at_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Found in tmux: Home scrolled a long transcript to its top in an animation of 1-3 s."""
    messages = long_session(60)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        transcript = TranscriptScreen(messages)
        await app.push_screen(transcript)
        await until(pilot, lambda: transcript.done, within=60)
        app.post_message(events.Key("home", None))  # pilot.press would wait for an animation to end
        await until(pilot, lambda: transcript.scroll.scroll_y < transcript.scroll.max_scroll_y)
        assert transcript.scroll.scroll_y == 0  # there at once, not a step of an animation
        app.post_message(events.Key("end", None))
        await until(pilot, lambda: transcript.scroll.scroll_y > 0)
        assert transcript.scroll.scroll_y == transcript.scroll.max_scroll_y
