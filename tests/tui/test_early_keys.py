"""Keys typed before the session screen is up reach its input box, in order, and are not lost."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from circle.application.ports.approver import Approver
from circle.application.ports.asker import Asker
from circle.entrypoints.tui._backend import Built
from circle.entrypoints.tui._early_keys import EarlyKeys, Sent, Typed, edited
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


def starting_app(clock: FixedClock, *, typed: str = "") -> tuple[SlowBackend, CircleApp]:
    """An app in a trusted folder whose session screen waits for ``backend.ready``."""
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    return backend, CircleApp(backend, options(), clock=clock, history=InputHistory(), typed=typed)


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
    """The interface has the keys as typed from its start (_keys_mode.py): enter comes as a
    carriage return, and ctrl+j (a line feed) starts a new line, as in the box."""
    assert EarlyKeys("ok\rmore tx\x7fext").release() == Typed((Sent("ok", typed="ok"),), "more text")
    assert EarlyKeys("one\ntwo").release() == Typed((), "one\ntwo")
    assert EarlyKeys("\x1b[200~pasted\x1b[201~ too").release() == Typed((), "pasted too")


async def test_arrows_typed_while_circle_starts_edit_the_text_where_they_left_the_cursor(
    clock: FixedClock,
) -> None:
    """Before, every key but the printable ones, enter and backspace was dropped: "helo", ←, "l"
    came up as "helol"."""
    from textual.widgets import Static

    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        shown = app.screen.query_one("#early-typed", Static)
        await pilot.press("h", "e", "l", "o", "left", "l")
        await pilot.pause(0.05)
        assert str(shown.render()) == "› hell▏o"
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "hello")
        assert screen.composer.cursor_location == (0, 4)
        await pilot.press("!")  # typed at the cursor the arrows left
        await until(pilot, lambda: screen.composer.text == "hell!o")


async def test_home_end_delete_and_ctrl_keys_typed_while_circle_starts_edit_as_in_the_box(
    clock: FixedClock,
) -> None:
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    backend.model.add(answer("Fixed."))
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"fix bug", "home", *"please ", "end", "backspace", "backspace")
        await pilot.press("backspace", *"the bug", "enter")  # sent as it reads: "please fix the bug"
        await pilot.press(*"one two", "ctrl+w", "ctrl+a", "delete", "ctrl+e", *"x")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "ne x")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert [r.messages[-1].text for r in backend.model.requests] == ["please fix the bug"]


async def test_up_typed_while_circle_starts_brings_back_no_earlier_message(clock: FixedClock) -> None:
    """↑ in the box brings back the last message sent; typed before the box is there it does
    nothing, so an enter typed after it sends nothing nobody saw."""
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    history = InputHistory()
    history.add("rm the old build")
    app = CircleApp(backend, options(), clock=clock, history=history)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("up", "enter", "left", "home")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.pause(0.1)
        assert screen.composer.text == "" and not backend.model.requests
        assert not screen.conversation.query(TurnLine)


def test_arrows_and_deletes_read_before_the_app_started_edit_the_text() -> None:
    assert EarlyKeys("helo\x1b[Dl").release() == Typed((), "hello", 1)
    assert EarlyKeys("ab\x1b[Hx\x1b[Fy\x1b[D\x1b[D\x1b[3~").release() == Typed((), "xay", 1)
    assert EarlyKeys("one two\x17\x01\x0b\x7fz").release() == Typed((), "z", 0)
    assert EarlyKeys("a b\x1b[1;5Dc\r").release() == Typed((Sent("a cb", typed="a cb"),), "", 0)


def test_the_edit_keys_act_on_the_line_the_cursor_is_on() -> None:
    assert edited("ab\ncd", 4, "home") == ("ab\ncd", 3)
    assert edited("ab\ncd", 1, "end") == ("ab\ncd", 2)
    assert edited("ab\ncd", 4, "ctrl+u") == ("ab\nd", 3)
    assert edited("ab\ncd", 3, "ctrl+u") == ("abcd", 2)  # at a line's start: joined to the one above
    assert edited("ab\ncd", 2, "ctrl+k") == ("abcd", 2)
    assert edited("ab\ncd", 0, "ctrl+k") == ("\ncd", 0)
    assert edited("one  two", 8, "ctrl+left") == ("one  two", 5)
    assert edited("one  two", 0, "ctrl+right") == ("one  two", 3)
    assert Typed((), "ab\ncd", 1).location == (1, 1)
