"""A long resumed session's first frames: the input box has the focus from the start (the
conversation taking it and giving it up styled every row of the tail twice more), and the rest of
the session is read only once the tail's slices are all in (a read alongside held them, and the
keys typed at the first frame, back)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens import _rest
from circle.entrypoints.tui.widgets.conversation import ConversationView

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, until
from .test_long_session import stored_session
from .test_sliced_tail import _answer

COUNT = 240


async def _stored_lists(backend: FakeBackend, turns: int) -> str:
    """A session whose answers are long lists: its tail goes in a few slices."""
    info = await backend.store.create_session(workspace=WORKSPACE, title="lists")
    for turn in range(turns):
        await backend.store.append(info.id, Message.user(f"question {turn}"))
        await backend.store.append(info.id, Message(role="assistant", parts=(TextPart(text=_answer(turn)),)))
    return info.id


async def test_the_conversation_never_takes_the_focus_while_a_long_session_comes_up(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    focus: list[bool] = []
    watch = ConversationView.watch_has_focus

    def recorded(view: ConversationView, has_focus: bool) -> None:
        focus.append(has_focus)
        watch(view, has_focus)

    monkeypatch.setattr(ConversationView, "watch_has_focus", recorded)
    session = await stored_session(backend, COUNT)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.host.session.conversation.complete)
        assert screen.focused is screen.composer
        assert focus == []


async def test_the_rest_of_a_long_session_is_read_once_its_tail_is_all_in(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_rest, "READ_AFTER_S", 0.05)
    monkeypatch.setattr(ConversationView, "_after_frame", lambda view: None)  # the test feeds the slices
    session = await _stored_lists(backend, 120)
    app = make_app(session=session)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view, conversation = screen.conversation, screen.host.session.conversation
        assert view._slices, "the tail goes in a slice at a time"
        await pilot.pause(0.4)  # READ_AFTER_S many times over, the slices still waiting
        assert not conversation.complete
        while view.drawing_above:
            view.next_slice()
            await pilot.pause()
        await until(pilot, lambda: conversation.complete)
        assert view.earlier is not None and not view.earlier.unread  # told, and waiting above


def test_the_tail_read_ahead_is_the_tail_the_session_opens_with() -> None:
    from circle.entrypoints.tui import READ_AHEAD
    from circle.entrypoints.tui.widgets.earlier import TAIL

    assert READ_AHEAD == TAIL
