"""esc stops the person's running ``!command``: the busy line said "esc cancels", yet esc did
nothing and the command ran to its end. A command still running once a message's turn ended showed
no row and no busy line. Now esc (and ctrl+c) stop it, its row says it stopped, and while it runs a
line says so and the busy line shows it, also after a turn in between."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ShellRow, TurnLine
from circle.testing import FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, FixedClock, main_screen, send, texts, until


async def test_esc_stops_a_running_bang_command_and_its_row_says_so(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"sleep 6; echo headbang": Hang("half\n")})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!sleep 6; echo headbang")
        await until(pilot, lambda: "sleep 6; echo headbang" in screen.busy.activity)
        assert "Running !" in texts(screen)  # a line says it runs
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert backend.processes.cancelled == ["sleep 6; echo headbang"]
        row = screen.conversation.query_one(ShellRow)
        assert "stopped" in str(row.content)
        assert not screen.busy.display
        assert "esc stops it" not in texts(screen)  # the running line went with it


async def test_ctrl_c_stops_a_running_bang_command(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"sleep 6": Hang()})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!!sleep 6")
        await until(pilot, lambda: "sleep 6" in screen.busy.activity)
        assert screen.busy.activity == "!! sleep 6" and "Running !! sleep 6" in texts(screen)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert backend.processes.cancelled == ["sleep 6"]


async def test_a_bang_command_running_past_a_turn_stays_in_sight(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"sleep 6; echo bang2": Hang()})
    backend.model.add(answer("Hi."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!sleep 6; echo bang2")
        await until(pilot, lambda: "sleep 6; echo bang2" in screen.busy.activity)
        await send(pilot, screen, "msg during bang")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.2)
        assert screen.busy.display and "sleep 6; echo bang2" in screen.busy.activity
        assert "Running !" in texts(screen)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert backend.processes.cancelled == ["sleep 6; echo bang2"]
        assert not screen.busy.display


async def test_ctrl_c_that_stops_a_bang_command_does_not_arm_leaving(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    backend.processes = FakeProcessRunner({"sleep 6": Hang()})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!sleep 6")
        await until(pilot, lambda: "sleep 6" in screen.busy.activity)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert screen.last_interrupt == float("-inf") and not screen.quit_hint
        clock.now += 0.5
        await pilot.press("ctrl+c")  # it stopped: this one arms, the next leaves
        assert screen.quit_hint and app.is_running
        clock.now += 0.5
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
