"""A message steered into a turn that is stopped before the model read it comes back to the input
box (as in pi and Claude Code): it had stayed queued under 'the model reads this before its next
step' and went to the model after the person's next message. Once the model reads one, its hint
goes."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import STEERED
from circle.entrypoints.tui.widgets.rows import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, texts, until


def _asked(backend: FakeBackend) -> list[list[str]]:
    return [[m.text for m in r.messages if m.role == "user"] for r in backend.model.requests]


def _command_then(backend: FakeBackend, answered: str) -> FakeProcessRunner:
    """The model runs ``sleep 60`` (it hangs till the test ends it), then answers ``answered``."""
    backend.mode = "auto"
    runner = FakeProcessRunner({"sleep 60": Hang("")}, files=backend.files)
    backend.processes = runner
    backend.model = ScriptedModel([answer("", Call("execute", {"command": "sleep 60"})), answer(answered)])
    return runner


async def _steered(pilot: Pilot[object], app: CircleApp, runner: FakeProcessRunner, words: str) -> MainScreen:
    """``words`` sent while the command runs, shown with the hint under them."""
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    await send(pilot, screen, "wait a minute")
    await until(pilot, lambda: bool(runner.started))
    await send(pilot, screen, words)
    await until(pilot, lambda: STEERED in texts(screen))
    return screen


async def test_words_steered_into_a_stopped_turn_come_back_to_the_box_and_are_not_sent(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = _command_then(backend, "Hello.")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _steered(pilot, app, runner, "use the staging server")
        assert "use the staging server" in texts(screen)
        await pilot.press("escape")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        await until(pilot, lambda: screen.composer.text == "use the staging server")
        shown = texts(screen)
        assert STEERED not in shown and "use the staging server" not in shown
        screen.composer.insert(", then deploy")
        await pilot.press("enter")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        assert _asked(backend)[-1][-1] == "use the staging server, then deploy"
        assert "use the staging server" not in _asked(backend)[-1][:-1]


async def test_the_hint_under_a_steered_message_goes_once_the_model_read_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = _command_then(backend, "Hurried.")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _steered(pilot, app, runner, "please hurry")
        runner.started[0].finish(0, "")
        await until(pilot, lambda: "Hurried." in texts(screen))
        shown = texts(screen)
        assert "please hurry" in shown
        assert STEERED not in shown
        lines = [line.strip() for line in screen_lines(app)]
        assert lines[lines.index("↳ please hurry") + 1] == ""  # a blank line under it, as between rows
        assert _asked(backend)[-1][-1] == "please hurry"
        assert screen.composer.text == ""


async def test_words_put_back_go_before_what_the_box_holds_and_a_long_one_is_folded(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        composer = main_screen(app).composer
        composer.insert("half typed")
        long = "\n".join(f"line {n}" for n in range(40))
        composer.put_back(["first", long])
        assert composer.text == "first\n[pasted text #1, 40 lines]\nhalf typed"
        assert composer.expanded(composer.text) == f"first\n{long}\nhalf typed"
        assert composer.cursor_location == composer.document.end
