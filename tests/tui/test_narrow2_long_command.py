"""A long command folds in its row as long output does: a denied 40-line command shows its first
lines and ``… N more lines`` (a count of the lines not shown), unfolds whole on enter and folds
again; no ``(+N more lines)`` beside a first line whose lines are printed below it."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.entrypoints.tui.widgets.shell_row import ShellRow
from circle.entrypoints.tui.widgets.tool_row import COMMAND_LINES
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, card_ready, main_screen, send, until

COMMAND = "\n".join(f"mkdir -p /tmp/dd/{number}" for number in range(1, 41))


async def test_a_denied_long_command_folds_and_says_truly_what_it_hides(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": COMMAND})), answer("Left it."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "make them")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        body = str(row.body.content)
        lines = body.split("\n")
        assert lines[0] == "$ mkdir -p /tmp/dd/1", lines  # nothing said hidden that shows below
        assert f"mkdir -p /tmp/dd/{COMMAND_LINES}" in body and f"/tmp/dd/{COMMAND_LINES + 1}\n" not in body
        assert f"  … {40 - COMMAND_LINES} more lines" in lines, lines
        assert "denied" in body and "[click or enter unfolds]" in body
        assert len(lines) <= COMMAND_LINES + 4, lines
        row.focus()
        await pilot.press("enter")
        await until(pilot, lambda: "/tmp/dd/40" in str(row.body.content))
        whole = str(row.body.content)
        assert "more line" not in whole and "[click or enter folds]" in whole, whole
        await pilot.press("enter")
        await until(pilot, lambda: "/tmp/dd/40" not in str(row.body.content))


async def test_a_long_bang_command_folds_too(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({}, files=backend.files)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!!" + COMMAND)
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        row = screen.conversation.query_one(ShellRow)
        content = str(row.content)
        assert content.split("\n")[0] == "!! mkdir -p /tmp/dd/1", content
        lines = content.split("\n")
        assert lines[COMMAND_LINES] == f"   … {40 - COMMAND_LINES} more lines", lines
        assert "   mkdir -p /tmp/dd/40" not in lines and row.folds
        row.toggle()
        assert "   mkdir -p /tmp/dd/40" in str(row.content).split("\n")
