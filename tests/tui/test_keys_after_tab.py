"""Printable keys reach the input box whatever has the focus: after Tab moved it to a row, after
esc closed the find bar, while the transcript is open."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.tool_row import ToolRow
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, main_screen, send, until

OUTPUT = "".join(f"out {n}\n" for n in range(40))


@pytest.mark.parametrize("where", ["row", "conversation"])
async def test_keys_typed_in_a_burst_after_tab_reach_the_input_box_and_enter_sends(
    make_app: Callable[..., CircleApp], backend: FakeBackend, where: str
) -> None:
    backend.processes = FakeProcessRunner(
        {"ls": ProcessResult(exit_code=0, output=OUTPUT)}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "ls"})), answer("Listed."), answer("Hi."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "list")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert row.folds
        screen.set_focus(row if where == "row" else screen.conversation)
        await pilot.pause(0.1)
        for key, character in (("h", "h"), ("i", "i"), ("enter", "\r")):  # one burst, as a terminal sends
            app.post_message(events.Key(key, character))
        await pilot.pause(0.5)
        await until(pilot, lambda: len(backend.model.requests) == 3)
        assert not row.expanded, "enter went to the row"
        assert screen.composer.has_focus and screen.composer.text == ""


async def test_keys_typed_while_the_transcript_is_open_go_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    backend.model.add(answer("First."), answer("Second."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "one")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        for key in ("q", "u", "i"):  # one burst, as a terminal sends
            app.post_message(events.Key(key, key))
        await until(pilot, lambda: app.screen is screen and screen.composer.text == "qui")
        assert screen.composer.has_focus


@pytest.mark.parametrize("esc", ["\x1bf1f2", "\x1b"])
async def test_after_esc_closes_the_find_bar_the_next_keys_go_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend, esc: str
) -> None:
    from circle.entrypoints.tui._esc_keys import EscapeFirstParser, esc_acts
    from circle.entrypoints.tui.widgets.find_bar import FindBar

    backend.model.add(answer("hello there"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "one")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+f", *"hello", "enter")
        bar = screen.query_one(FindBar)
        assert bar.field.value == "hello"
        # esc and the next keys in one burst, read as the interface's driver reads the terminal
        # (Textual alone reads "esc f" as the meta key alt+f); after a lone esc, keys sent one by one
        if esc == "\x1b":
            keys = [events.Key("escape", esc), *(events.Key(key, key) for key in "1f2")]
        else:
            keys = list(EscapeFirstParser(lambda: esc_acts(app)).feed(esc))
        for key in keys:
            app.post_message(key)
        await until(pilot, lambda: screen.composer.text == ("f1f2" if len(esc) > 1 else "1f2"))
        assert not bar.display and bar.field.value == "hello" and screen.composer.has_focus


async def test_a_shown_only_command_unfolds_by_click_and_by_enter_and_is_in_the_transcript(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen
    from circle.entrypoints.tui.widgets.shell_row import ShellRow

    seq = "".join(f"{n}\n" for n in range(1, 61))
    backend.processes = FakeProcessRunner(
        {"seq 1 60": ProcessResult(exit_code=0, output=seq)}, files=backend.files
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!!seq 1 60")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        row = screen.conversation.query_one(ShellRow)
        assert "36 more lines" in str(row.render()) and row.folds
        await pilot.click(row, offset=(2, row.size.height - 1))  # its last line, in sight
        await until(pilot, lambda: row.expanded and "more lines" not in str(row.render()))
        assert screen.composer.has_focus
        screen.set_focus(row)
        await pilot.press("enter")
        await until(pilot, lambda: not row.expanded)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        assert "!! seq 1 60" in transcript.text and "\n60" in transcript.text


async def test_tab_goes_from_the_box_to_the_newest_row_then_up_then_back_to_the_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Textual's order went to the session's oldest row first: tab from the box reached the
    first command of the session, however many came after it."""
    backend.processes = FakeProcessRunner(
        {f"echo {n}": ProcessResult(exit_code=0, output=f"{n}\n") for n in range(3)}, files=backend.files
    )
    backend.model.add(
        *(answer("", Call("execute", {"command": f"echo {n}"})) for n in range(3)), answer("Echoed.")
    )
    backend.mode = "auto"
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "echo")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        rows = list(screen.conversation.query(ToolRow))
        assert [row.args["command"] for row in rows] == ["echo 0", "echo 1", "echo 2"]
        went = []
        for _ in range(4):
            await pilot.press("tab")
            went.append(app.focused)
        assert went == [rows[2], rows[1], rows[0], screen.composer]
