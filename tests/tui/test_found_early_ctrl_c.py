"""Found in tmux: ctrl+c pressed while Circle starts put up Textual's own 'Do you want to quit?' toast.

Under 'Starting Circle…' ctrl+c reached the app's default binding, whose toast ('Do you want to
quit?' / 'Press ctrl+q to quit the app') then stayed some 5 s over the right half of the input box
once the session screen was up (80x24 and 50x16), the toast d7fc889 took away for ctrl+c, naming a
key the README does not give. What Circle says about ctrl+c goes in the footer's line.
"""

from __future__ import annotations

from textual.widgets import Static

from circle.entrypoints.tui._quitting import QUIT_HINT

from .conftest import SIZE, FixedClock, main_screen, until
from .test_early_keys import starting_app


async def test_ctrl_c_while_circle_starts_puts_up_no_quit_toast(clock: FixedClock) -> None:
    """With words typed, ctrl+c lets go of them, as it empties the input box once it is up."""
    backend, app = starting_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h", "i", "ctrl+c", "o", "k")
        await pilot.pause(0.05)
        assert str(app.screen.query_one("#early-typed", Static).render()) == "› ok▏"
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "ok")
        await pilot.pause(0.1)
        said = [f"{n.title} {n.message}" for n in app._notifications]
        assert not [s for s in said if "quit" in s.lower()], said
        assert app.return_code is None


async def test_ctrl_c_twice_while_circle_starts_leaves_saying_so_under_starting(clock: FixedClock) -> None:
    _, app = starting_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        hint = app.screen.query_one("#starting-hint", Static)
        await pilot.press("ctrl+c")
        await pilot.pause(0.05)
        assert str(hint.render()) == QUIT_HINT[0]
        assert not app._notifications
        await pilot.press("ctrl+c")
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 130


async def test_one_ctrl_c_while_circle_starts_leaves_it_starting(clock: FixedClock) -> None:
    backend, app = starting_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        assert app.return_code is None
        assert main_screen(app).composer.text == ""


def test_ctrl_c_read_before_the_app_runs_lets_go_of_the_text_before_it_or_counts() -> None:
    from circle.entrypoints.tui._early_keys import EarlyKeys

    keys = EarlyKeys("hi\x03ok")
    assert (keys.written().text, keys.interrupts) == ("ok", 0)
    assert EarlyKeys("\x03\x03").interrupts == 2


async def test_two_ctrl_c_read_before_the_app_runs_leave(clock: FixedClock) -> None:
    _, app = starting_app(clock, typed="\x03\x03")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 130
