"""A long session of list answers, resumed, draws the rows on screen first and the ones above them a
slice at a time: a key typed meanwhile is handled between slices (in the input box while rows are
still being drawn), and the view ends at the end; /undo and /redo change only the last turn's rows
and end at the end too."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import Answer
from circle.entrypoints.tui.widgets.earlier import tail_size, tail_start

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, send, until

TURNS = 60
LAST = "A last note: done."


def _answer(turn: int) -> str:
    items = "\n".join(f"- item {n} of answer {turn}: a few words, **bold** and `code`" for n in range(30))
    return f"Answer {turn} has a list:\n\n{items}\n\nend of answer {turn}"


async def _stored(backend: FakeBackend) -> tuple[str, list[Message]]:
    info = await backend.store.create_session(workspace=WORKSPACE, title="lists")
    messages: list[Message] = []
    for turn in range(TURNS):
        messages.append(Message.user(f"question {turn}"))
        messages.append(Message(role="assistant", parts=(TextPart(text=_answer(turn)),)))
    messages.append(Message(role="assistant", parts=(TextPart(text=LAST),)))
    for message in messages:
        await backend.store.append(info.id, message)
    return info.id, messages


def _tail_answers(messages: list[Message]) -> int:
    start = tail_start(messages, keep=tail_size(SIZE[1]))
    return sum(message.role == "assistant" for message in messages[start:])


def _answers(screen: MainScreen) -> int:
    return len(screen.conversation.query(Answer))


def _shows(app: CircleApp, text: str) -> bool:
    return any(text in line for line in screen_lines(app))


def _record_frames(app: CircleApp, screen: MainScreen, line: str) -> list[int]:
    """From now on, how many answers each frame drawn with ``line`` on screen shows."""
    frames: list[int] = []

    def painted(_: object) -> None:
        if not app._batch_count and _shows(app, line):
            frames.append(_answers(screen))

    screen.screen_layout_refresh_signal.subscribe(screen, painted)
    return frames


async def _at_end_with_all(pilot: object, app: CircleApp, screen: MainScreen, answers: int) -> None:
    view = screen.conversation
    await until(pilot, lambda: _answers(screen) == answers)
    await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)
    await until(pilot, lambda: not view.drawing_above)  # the last slice in: an undo before it draws all
    assert view.following


async def test_a_key_typed_while_a_resumed_tail_draws_is_handled_before_it_has_drawn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        drawn = _answers(screen)
        app.post_message(events.Key("k", "k"))
        assert drawn < _tail_answers(messages)  # the last message shows before the rows above it
        await until(pilot, lambda: screen.composer.text == "k")
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        assert _shows(app, LAST) and screen.composer.text == "k"


async def test_undo_and_redo_draw_in_slices_and_end_at_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        frames = _record_frames(app, screen, "Undone 'question 59'")
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: bool(frames))
        app.post_message(events.Key("u", "u"))
        await until(pilot, lambda: screen.composer.text == "u")
        undone = messages[:-3]
        await _at_end_with_all(pilot, app, screen, _tail_answers(undone))
        assert frames[0] == _tail_answers(undone)  # only the last turn's rows went: the rest kept
        assert _shows(app, "end of answer 58") and _shows(app, "Undone 'question 59'")
        await pilot.press("backspace")
        await send(pilot, screen, "/redo")
        await until(pilot, lambda: _shows(app, "Redone 'question 59'"))
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        assert _shows(app, LAST) and _shows(app, "Redone 'question 59'")
