"""A tool row's title wider than the row wraps under its own start, never back under its mark, and
is one line again when the terminal is widened."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

COMMAND = "sleep 3; echo done with a-rather-wide-command-line-here and more words after it"


async def test_a_long_tool_title_wraps_under_itself_and_is_one_line_when_widened(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {COMMAND: ProcessResult(exit_code=0, output="done\n")}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": COMMAND})), answer("Done."))
    app = make_app()
    async with app.run_test(size=(50, 30)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "run it")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert str(row.header.content).startswith("✓ execute  sleep 3;")
        await pilot.pause(0.1)
        shown = screen_lines(app)
        top = next(index for index, line in enumerate(shown) if "✓ execute  sleep 3;" in line)
        start = shown[top].index("execute")
        under = [line for line in shown[top + 1 : top + 4] if line.strip() and "$ " not in line]
        assert under and all(line[:start].strip() == "" for line in under), shown[top : top + 4]
        title = " ".join(line.strip() for line in [shown[top], *under]).removeprefix("✓ ")
        assert title == f"execute  {COMMAND}", title
        await pilot.resize_terminal(140, 30)
        await until(pilot, lambda: any(f"✓ execute  {COMMAND}" in line for line in screen_lines(app)))
        assert str(row.header.content) == f"✓ execute  {COMMAND}"
