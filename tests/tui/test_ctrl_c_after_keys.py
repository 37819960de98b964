"""ctrl+c acts after the keys read before it, as when typed slowly: it is a priority binding, run
as it is read, while those keys still waited in the input box's queue. 'hello world' and ctrl+c in
one read left '│hello world' and armed leaving; 'more' and ctrl+c during a turn stopped the turn
and left '│more'."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui._quitting import QUIT_HINT
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until
from .test_burst_after_focus_move import typed
from .test_keys import hanging


async def test_ctrl_c_read_with_words_lets_go_of_them_and_arms_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        typed(app, "hello world\x03")
        await until(pilot, lambda: screen.composer.text == "" and screen.last_interrupt == float("-inf"))
        await pilot.pause(0.2)
        assert screen.composer.text == "" and not screen.quit_hint
        assert QUIT_HINT[0] not in screen_lines(app)[-1]


async def test_ctrl_c_read_with_words_during_a_turn_lets_go_of_them_and_the_turn_goes_on(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    hanging(backend, "sleep 100")
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        typed(app, "more\x03")
        await until(pilot, lambda: screen.composer.text == "")
        await pilot.pause(0.3)
        assert screen.composer.text == "" and not screen.cancelled
        assert not screen.conversation.query(TurnLine) and screen.host.session.is_running
        typed(app, "\x03")  # alone, with the box empty: it stops the turn
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
