"""Printable keys read in one burst while the focus is on a part that takes no text (the strip of
jobs, a row, the conversation) all reach the input box, in order: the first moves the focus there,
the ones read with it follow it rather than being dropped or taken by the part left."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual._xterm_parser import XTermParser
from textual.widget import Widget

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.screens.picker import TextScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


def typed(app: CircleApp, data: str) -> None:
    """Give ``data`` to the app as one terminal read: the parser's key events, all at once."""
    reader = XTermParser()
    for event in [*reader.feed(data), *reader.feed("")]:
        app.post_message(event)


async def job_in_the_strip(app: CircleApp, pilot: object, backend: FakeBackend) -> MainScreen:
    """A command moved to the background with ctrl+b: a job shows in the strip."""
    screen = main_screen(app)
    await send(pilot, screen, "serve")
    runner = backend.processes
    assert runner is not None
    await until(pilot, lambda: bool(runner.started))
    await pilot.press("ctrl+b")  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(screen.conversation.query(TurnLine)) and screen.strip.display)
    return screen


def shows(screen: MainScreen, text: str) -> Callable[[], bool]:
    return lambda: screen.composer.text == text


def with_a_job(backend: FakeBackend) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"npm run dev": Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "npm run dev"})), answer("It runs on."))


async def test_a_burst_typed_after_down_to_the_strip_reaches_the_input_box_whole(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        for burst in ("typed", "hello world"):
            screen.composer.clear_all()
            await pilot.press("down")
            await until(pilot, lambda: screen.strip.has_focus)
            typed(app, burst)
            await until(pilot, shows(screen, burst), within=3)
            assert screen.composer.has_focus
            assert not screen.strip.has_focus


async def test_a_burst_reaches_the_input_box_from_every_part_the_focus_can_rest_on(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        parts: list[Widget] = [w for w in screen.focus_chain if w is not screen.composer]
        assert screen.strip in parts and len(parts) >= 3  # the strip, the conversation, its rows
        for part in parts:
            screen.composer.clear_all()
            screen.set_focus(part)
            await pilot.pause(0.05)
            typed(app, "abcde")
            await until(pilot, lambda: screen.composer.text == "abcde", within=3)
            assert screen.composer.has_focus, part


async def test_a_burst_typed_as_a_record_closes_reaches_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        await pilot.press("down", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        typed(app, "\x1b")
        typed(app, "after record")
        await until(pilot, lambda: screen.composer.text == "after record", within=3)
        assert screen.composer.has_focus


async def test_the_strip_marks_its_row_while_it_has_the_focus_and_not_after(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        await pilot.press("down")
        await until(pilot, lambda: str(screen.strip.content).startswith("❯ ⚙ job-1"))
        typed(app, "ok")
        await until(pilot, shows(screen, "ok"), within=3)
        await until(pilot, lambda: str(screen.strip.content).startswith("  ⚙ job-1"))


async def test_text_read_with_the_down_that_selects_the_strip_keeps_the_focus_in_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    backend.model.add(answer("Got it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        typed(app, "\x1b[Bhi")  # ↓ then "hi", read at once
        await until(pilot, shows(screen, "hi"), within=3)
        await pilot.pause(0.1)
        assert screen.composer.has_focus
        assert not screen.strip.has_focus
        assert not str(screen.strip.content).startswith("❯")
        typed(app, "\r")
        said = lambda: [m.text for m in screen.host.session.conversation.messages if m.role == "user"]  # noqa: E731
        await until(pilot, lambda: "hi" in said())
        assert not isinstance(app.screen, TextScreen)


async def test_down_alone_still_selects_the_strip_and_up_enter_act_on_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        typed(app, "\x1b[B")
        await until(pilot, lambda: screen.strip.has_focus)
        typed(app, "\x1b[A")
        await until(pilot, lambda: screen.composer.has_focus)
        typed(app, "\x1b[B")
        await until(pilot, lambda: screen.strip.has_focus)
        typed(app, "\r")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))


async def test_a_key_queued_at_the_input_box_before_the_strip_took_the_focus_brings_it_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = await job_in_the_strip(app, pilot, backend)
        screen.set_focus(screen.strip)  # the ↓ was handled before the keys queued behind it
        screen.composer.post_message(events.Key("h", "h"))
        await until(pilot, shows(screen, "h"), within=3)
        await pilot.pause(0.1)
        assert screen.composer.has_focus
        assert not screen.strip.has_focus
