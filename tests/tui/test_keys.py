"""Keys and status: esc cancels, the busy line (what runs, retries), ctrl+b, the footer, the strip
of subagents and jobs, ctrl+c twice, and the lines left in the terminal after Circle leaves."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.events import RetryScheduled
from circle.entrypoints.tui._quitting import QUIT_HINT, QUIT_WINDOW_S
from circle.entrypoints.tui.app import CircleApp, exit_lines
from circle.entrypoints.tui.screens.picker import PickerScreen, TextScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, FixedClock, card_ready, main_screen, screen_lines, send, texts, until


def hanging(backend: FakeBackend, command: str) -> FakeProcessRunner:
    backend.mode = "auto"
    runner = FakeProcessRunner({command: Hang("working…\n")}, files=backend.files)
    backend.processes = runner
    return runner


async def test_esc_cancels_the_turn_and_the_busy_line_says_what_ran(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    hanging(backend, "sleep 100")
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        assert screen.busy.display
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "cancelled" in str(screen.conversation.query_one(TurnLine).content)
        assert not screen.busy.display
        assert app.host is not None and not app.host.session.is_running


async def test_the_busy_line_counts_the_retry_down(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        app.sink.emit(
            RetryScheduled(kind="timeout", attempt=3, max_attempts=10, delay_ms=4000, error="no answer")
        )
        await until(pilot, lambda: bool(screen.busy.retry))
        assert screen.busy.retry == "timeout · retrying in 4s (3/10)"
        clock.now += 2.5
        await until(pilot, lambda: screen.busy.retry == "timeout · retrying in 2s (3/10)")
        clock.now += 2
        await until(pilot, lambda: screen.busy.retry == "timeout · retrying now (3/10)")
        assert "retrying now (3/10) · esc cancels" in str(screen.busy.content)


async def test_ctrl_b_moves_the_waited_on_command_to_the_background(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = hanging(backend, "npm run dev")
    backend.model.add(answer("", Call("execute", {"command": "npm run dev"})), answer("It runs on."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve")
        await until(pilot, lambda: bool(runner.started))
        await pilot.press("ctrl+b")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "moved to the background" in texts(screen)
        assert app.host is not None and [j for j, _ in app.host.running_jobs()] == ["job-1"]
        await until(pilot, lambda: screen.strip.display)
        assert "npm run dev" in screen.strip.items[0].label
        await pilot.press("down")
        assert screen.strip.has_focus
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "working…" in app.screen.text
        await pilot.press("escape")
        await pilot.press("up")
        assert screen.composer.has_focus


async def test_the_footer_counts_the_session(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        footer = str(screen.footer.content)
        assert footer.startswith("scripted · thinking off · context –")
        await send(pilot, screen, "first")
        clock.now += 2.5
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        await send(pilot, screen, "second")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        lines = [str(line.content) for line in screen.conversation.query(TurnLine)]
        assert lines[1].startswith("✓ 0.0s · 15 tokens · $0.02")
        footer = str(screen.footer.content)
        assert "30 tokens" in footer and "$0.04" in footer
        assert "context 0.0%" in footer


async def test_ctrl_c_twice_leaves_with_130_and_the_reopen_command(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await send(pilot, main_screen(app), "hello")
        await until(pilot, lambda: bool(main_screen(app).conversation.query(TurnLine)))
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        assert main_screen(app).composer.text == "", "the first ctrl+c clears the draft"
        await pilot.press("ctrl+c")
        assert app.is_running
        clock.now += 0.5
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 130
    session_id = app.host.session.session_id if app.host else ""
    assert app.exit_lines == [f"Continue this session with: circle --session {session_id}"]


async def test_quit_names_the_jobs_it_stopped(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    hanging(backend, "tail -f log")
    backend.model.add(
        answer("", Call("execute", {"command": "tail -f log", "background": True})), answer("ok")
    )
    app = make_app(no_session=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "watch")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, "/quit")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 0
    assert app.exit_lines == ["Stopped 1 background job:", "  job-1 (tail -f log)"]


async def test_armed_ctrl_c_says_leaving_stops_the_jobs_running(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """It said 'Press ctrl+c again to leave Circle.' and only once Circle had left that it had
    stopped a job."""
    hanging(backend, "tail -f log")
    backend.model.add(
        answer("", Call("execute", {"command": "tail -f log", "background": True})), answer("ok")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "watch")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+c")
        said = "Press ctrl+c again to leave Circle and stop 1 background job."
        await until(pilot, lambda: str(screen.footer.content) == said)


async def test_quit_after_new_names_the_session_worked_in(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """After a conversation, /new and /quit printed no way back to it: the new session stores
    nothing until its first message, so no line was printed at all."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        worked_in = app.host.session.session_id if app.host else ""
        await send(pilot, screen, "/new")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != worked_in)
        await send(pilot, screen, "/quit")
        await until(pilot, lambda: not app.is_running)
    assert app.exit_lines == [f"Continue this session with: circle --session {worked_in}"]


def test_exit_lines_name_the_session_unless_nothing_is_kept() -> None:
    assert exit_lines([], "abc", ephemeral=False) == ["Continue this session with: circle --session abc"]
    assert exit_lines(["job-1 (x)", "job-2 (y)"], "abc", ephemeral=True) == [
        "Stopped 2 background jobs:",
        "  job-1 (x)",
        "  job-2 (y)",
    ]


async def test_a_message_sent_during_a_turn_steers_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = hanging(backend, "make build")
    backend.model.add(answer("", Call("execute", {"command": "make build"})), answer("Noted."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await until(pilot, lambda: bool(runner.started))
        await send(pilot, screen, "use the release profile")
        assert "the model reads this before its next step" in texts(screen)
        runner.started[0].finish(0, "built\n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = [m.text for m in backend.model.requests[-1].messages if m.role == "user"]
        assert sent[-1] == "use the release profile"


async def test_a_setup_problem_is_one_line_not_a_traceback(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.domain.errors import ConfigError

    async def broken(**_: object) -> object:
        raise ConfigError("settings.json: model: not a string")

    backend.build = broken  # type: ignore[method-assign,assignment]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1
    assert app.error == "settings.json: model: not a string"


async def test_shift_tab_cycles_the_mode_and_the_model_hears_of_plan_mode(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Planning."), answer("Changing."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        host = app.host
        assert host is not None
        await pilot.press("shift+tab")
        assert host.policy.mode == "accept-edits" and not host.plan_mode
        assert str(screen.footer.content).endswith("accept-edits")
        await pilot.press("shift+tab")
        assert host.policy.mode == "default" and host.plan_mode
        assert str(screen.footer.content).endswith("plan mode")
        await send(pilot, screen, "how would you do it?")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = backend.model.requests[-1].messages[-1].text
        assert sent.startswith("[The person turned plan mode on") and sent.endswith("how would you do it?")
        await pilot.press("shift+tab")
        assert host.policy.mode == "default" and not host.plan_mode
        assert "Default mode" in texts(screen)


async def test_shift_tab_pressed_again_says_the_mode_on_one_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Each shift+tab added a line: two rounds of the three modes left six."""
    from circle.entrypoints.tui.widgets.rows import Notice

    said = ("Default mode:", "Accept edits:", "Plan mode:")
    backend.model.add(answer("Fine."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)

        def lines() -> list[str]:
            shown = (str(notice.content) for notice in screen.conversation.query(Notice))
            return [line for line in shown if line.startswith(said)]

        await pilot.press(*["shift+tab"] * 5)  # accept edits, plan, default, accept edits, plan
        await pilot.pause(0.1)
        assert len(lines()) == 1 and lines()[0].startswith("Plan mode"), lines()
        await send(pilot, screen, "now")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("shift+tab")  # after the turn: a line of its own, below it
        await pilot.pause(0.1)
        assert len(lines()) == 2 and lines()[-1].startswith("Default mode"), lines()


async def test_the_strip_and_the_job_record_show_a_command_and_its_output_escaped(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    command = "npm run dev [/x] [red]# \x1b[2K\r\x1b[1Als"
    backend.mode = "auto"
    runner = FakeProcessRunner({command: Hang("\x1b[2Jworking\u202e…\n")}, files=backend.files)
    backend.processes = runner
    backend.model.add(answer("", Call("execute", {"command": command})), answer("It runs on."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve")
        await until(pilot, lambda: bool(runner.started) or screen.card is not None)
        if screen.card is not None:
            await card_ready(pilot, screen)
            await pilot.press("1")
            await until(pilot, lambda: bool(runner.started))
        await until(pilot, lambda: "esc cancels" in str(screen.busy.content))
        assert "npm run dev [/x] [red]# \\x1b[2K\\x0d\\x1b[1Als" in str(screen.busy.content)
        await pilot.press("ctrl+b")
        await until(pilot, lambda: screen.strip.display)
        await pilot.pause(0.1)
        assert not [line for line in screen_lines(app) if "\x1b" in line]
        assert "npm run dev [/x] [red]# \\x1b[2K" in str(screen.strip.content)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        record = app.screen
        assert isinstance(record, TextScreen)
        assert "\\x1b[2Jworking\\u202e…" in record.text and "\x1b" not in record.title_text
        await pilot.pause(0.1)
        lines = screen_lines(app)
        assert not [line for line in lines if "\x1b" in line or "\u202e" in line]
        assert any("Background job job-1: npm run dev [/x] [red]#" in line for line in lines)
        await pilot.press("escape")  # the record closes and the input box has the focus again
        await send(pilot, screen, "/jobs")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.pause(0.1)
        assert any("npm run dev [/x] [red]# \\x1b[2K" in line for line in screen_lines(app))


async def test_ctrl_c_during_a_turn_only_stops_it_and_the_next_one_arms_leaving(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    """Before, the ctrl+c that stopped the turn also armed leaving: a second one, meant for what
    came next, left Circle."""
    hanging(backend, "sleep 100")
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "cancelled" in str(screen.conversation.query_one(TurnLine).content)
        assert screen.last_interrupt == float("-inf") and QUIT_HINT[0] not in screen_lines(app)[-1]
        clock.now += 0.5
        await pilot.press("ctrl+c")  # nothing runs now: this one arms
        await until(pilot, lambda: QUIT_HINT[0] in screen_lines(app)[-1])
        assert app.is_running
        clock.now += 0.5
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 130


async def test_the_ctrl_c_hint_takes_the_footers_line_and_covers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Before, it was a toast over the input box's right half."""
    from textual.widgets._toast import Toast

    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        footer = str(screen.footer.content)
        await pilot.press(*"draft")
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: str(screen.footer.content) == QUIT_HINT[0])
        await pilot.pause(0.1)
        assert not screen.query(Toast) and not app.screen.query(Toast)
        lines = screen_lines(app)
        assert lines[-1].strip() == QUIT_HINT[0] and any(line.startswith(" ╰─") for line in lines)
        await until(pilot, lambda: str(screen.footer.content) == footer, within=QUIT_WINDOW_S + 2)
        assert app.is_running


async def test_the_ctrl_c_hint_fits_a_narrow_footer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=(30, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: str(screen.footer.content) == QUIT_HINT[1])


async def test_ctrl_c_armed_then_a_turn_begun_stops_the_turn_and_not_circle(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    hanging(backend, "sleep 100")
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("ctrl+c")  # armed
        assert screen.quit_hint
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        clock.now += 0.5
        await pilot.press("ctrl+c")  # within the while, yet for the turn begun since
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert app.is_running and not screen.quit_hint
        assert QUIT_HINT[0] not in str(screen.footer.content)
