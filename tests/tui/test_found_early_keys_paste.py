"""Found in tmux: a paste and a trailing backslash typed while Circle starts do not act as in the box.

A terminal sends a paste's line breaks as carriage returns (tmux's paste-buffer does); the input
box reads them as new lines, the held keys kept them as they came: after an early two-line paste
the cursor was left at the end of the first line ('one twoX' / 'three' once 'X' was typed), home
went to the start of the whole paste, and enter sent 'one two\\rthree' to the endpoint. A trailing
backslash and enter starts a new line in the box; typed while Circle starts, they sent 'first line\\'.
"""

from __future__ import annotations

from textual import events

from circle.entrypoints.tui._early_keys import EarlyKeys, Sent
from circle.entrypoints.tui.widgets.conversation import TurnLine, UserRow
from circle.testing import answer

from .conftest import SIZE, FixedClock, main_screen, until
from .test_early_keys import starting_app


def test_a_paste_held_while_circle_starts_breaks_its_lines_as_the_box_does() -> None:
    keys = EarlyKeys()
    keys.hold(events.Paste("one two\rthree"))
    typed = keys.written()
    assert (typed.text, typed.location) == ("one two\nthree", (1, 5))
    keys.hold(events.Key("home", None))
    keys.hold(events.Key("X", "X"))
    assert keys.written().text == "one two\nXthree"  # home goes to the start of the paste's last line
    keys.hold(events.Key("enter", "\r"))
    assert keys.release().sent == (Sent("one two\nXthree", typed="one two\nXthree"),)


async def test_the_cursor_is_at_the_end_of_a_two_line_paste_made_while_circle_starts(
    clock: FixedClock,
) -> None:
    backend, app = starting_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        app.early.hold(events.Paste("one two\rthree"))
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text.endswith("three"))
        await pilot.press("X")
        await until(pilot, lambda: "X" in screen.composer.text)
        assert screen.composer.text == "one two\nthreeX"


async def test_a_trailing_backslash_and_enter_typed_while_circle_starts_begin_a_new_line(
    clock: FixedClock,
) -> None:
    backend, app = starting_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "backslash", "enter", *"second")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text.endswith("second"))
        await pilot.pause(0.1)
        assert not backend.model.requests
        assert screen.composer.text == "first\nsecond"


async def test_a_long_paste_made_while_circle_starts_is_folded_as_the_box_folds_it(
    clock: FixedClock,
) -> None:
    backend, app = starting_app(clock)
    pasted = "\r".join(f"line {n}" for n in range(30))
    async with app.run_test(size=SIZE) as pilot:
        app.early.hold(events.Paste(pasted))
        app.early.hold(events.Key("space", " "))
        app.early.hold(events.Key("x", "x"))
        assert app.early.written().text == "[pasted text #1, 30 lines] x"
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "[pasted text #1, 30 lines] x")
        assert screen.composer.expanded(screen.composer.text) == pasted.replace("\r", "\n") + " x"
        await pilot.press("enter")
        await until(pilot, lambda: bool(backend.model.requests))
        sent = [m.text for m in backend.model.requests[0].messages if m.role == "user"]
        assert sent[-1] == pasted.replace("\r", "\n") + " x"


def test_a_long_paste_sent_with_an_early_enter_goes_whole() -> None:
    keys = EarlyKeys()
    pasted = "\n".join(f"line {n}" for n in range(30))
    keys.hold(events.Paste(pasted))
    keys.hold(events.Key("enter", "\r"))
    assert keys.release().sent == (Sent(pasted, typed="[pasted text #1, 30 lines]"),)


async def test_a_long_paste_sent_while_circle_starts_shows_folded_in_the_persons_row(
    clock: FixedClock,
) -> None:
    """Found in tmux: the model got the whole paste, and so did the person's row (30 lines of it),
    where a paste sent from the box shows folded."""
    backend, app = starting_app(clock)
    backend.model.add(answer("read it"))
    pasted = "\r".join(f"line {n}" for n in range(30))
    async with app.run_test(size=SIZE) as pilot:
        app.early.hold(events.Paste(pasted))
        app.early.hold(events.Key("enter", "\r"))
        assert app.early.shown() == "› [pasted text #1, 30 lines]   (sent once Circle is up)\n› ▏"
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        rows = [str(row.content) for row in screen.conversation.query(UserRow)]
        assert rows == ["› [pasted text #1, 30 lines]"]
        sent = [m.text for m in backend.model.requests[0].messages if m.role == "user"]
        assert sent[-1] == pasted.replace("\r", "\n")
