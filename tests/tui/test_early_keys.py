"""Keys typed before the session screen is up reach its input box, in order, and are not lost."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from circle.application.ports.approver import Approver
from circle.application.ports.asker import Asker
from circle.entrypoints.tui._backend import Built
from circle.entrypoints.tui._early_keys import EarlyKeys, Typed
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._theme import split_reply
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import answer

from .conftest import SIZE, WORKSPACE, FakeBackend, FixedClock, main_screen, options, until


@dataclass
class SlowBackend(FakeBackend):
    """A backend that takes as long to build as the test says (a loaded machine's start)."""

    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def build(self, *, person: Approver, asker: Asker, trusted: bool) -> Built:
        await self.ready.wait()
        return await super().build(person=person, asker=asker, trusted=trusted)


async def test_a_message_typed_while_circle_starts_is_sent_once_it_is_up(clock: FixedClock) -> None:
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    backend.model.add(answer("Hello back."))
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h", "i", "space", "t", "h", "e", "r", "e", "enter")
        await pilot.pause(0.05)
        assert app.host is None  # still starting: the keys are waiting, not lost
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert backend.model.requests[0].messages[-1].text == "hi there"
        assert screen.composer.text == ""


async def test_keys_typed_while_circle_starts_show_at_once(clock: FixedClock) -> None:
    """Before, they showed nothing until the session screen was up (0.5 s and more after the first
    frame): a key must show within 50 ms at any time."""
    from textual.widgets import Static

    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        shown = app.screen.query_one("#early-typed", Static)
        await pilot.press("f", "i", "x", "enter", "a", "b", "backspace")
        await pilot.pause(0.05)
        assert app.host is None
        assert str(shown.render()) == "› fix   (sent once Circle is up)\n› a▏"
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "a")


async def test_keys_typed_while_circle_starts_are_in_the_box_when_the_session_screen_is_up(
    clock: FixedClock,
) -> None:
    """They are given to the input box as the session screen mounts, so its first frame shows
    them; before, they went in after it was up and showed a frame later (a key typed then showed
    after 100-170 ms)."""
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "b", "c")
        await pilot.pause(0.05)
        backend.ready.set()
        for _ in range(10_000):  # each turn of the loop, not a pilot's pause: the moment it is up
            if app.host is not None:
                break
            await asyncio.sleep(0)
        assert main_screen(app).composer.text == "abc"


async def test_a_message_given_goes_before_what_was_typed_while_circle_started(clock: FixedClock) -> None:
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    backend.model.add(answer("First."), answer("Second."))
    app = CircleApp(backend, options(message="given"), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t", "y", "p", "e", "d", "enter")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: len(backend.model.requests) == 2)
        assert [r.messages[-1].text for r in backend.model.requests] == ["given", "typed"]


async def test_text_typed_before_the_app_started_waits_in_the_input_box(
    backend: FakeBackend, clock: FixedClock
) -> None:
    app = CircleApp(backend, options(), clock=clock, history=InputHistory(), typed="fix the bu\x7fug")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "fix the bug")
        await pilot.press("!")
        await until(pilot, lambda: screen.composer.text == "fix the bug!")


def test_the_theme_question_keeps_the_keys_typed_around_its_answer() -> None:
    reply = b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"
    assert split_reply(b"hel" + reply + b"lo\r") == (reply, b"hello\r")
    assert split_reply(b"no answer") == (b"", b"no answer")


def test_enter_typed_before_the_app_took_the_terminal_sends_and_backspace_erases() -> None:
    assert EarlyKeys("ok\nmore tx\x7fext").release() == Typed(("ok",), "more text")
    assert EarlyKeys("\x1b[200~pasted\x1b[201~ too").release() == Typed((), "pasted too")
