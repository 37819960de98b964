"""A command's output shows as a terminal would show it: colours as colours, other escape sequences
dropped, a carriage return writing over its line (a progress bar in its last state); in tool rows,
in ``!`` rows and while a command runs. The model is sent the output as it came."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui._format import terminal_text
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.entrypoints.tui.widgets.shell_row import ShellRow
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

OUTPUT = (
    "\x1b[32mgreen\x1b[0m and\rover\nprogress 10%\rprogress 100%\n"
    "\x1b]0;title\x07\x1b[01;34msub\x1b[0m\x1b[K\n"
)


def shown(content: object) -> Text:
    assert isinstance(content, Text), content
    return content


def styled(text: Text, word: str) -> set[str]:
    """The styles over ``word`` in ``text``."""
    start = text.plain.index(word)
    return {str(span.style) for span in text.spans if span.start <= start and span.end >= start + len(word)}


def test_terminal_text_writes_over_after_a_return_and_keeps_colours() -> None:
    text = terminal_text(OUTPUT.rstrip("\n"))
    assert text.plain == "overn and\nprogress 100%\nsub"
    assert any("color(2)" in style for style in styled(text, "n and"[0]))
    assert any("bold" in style and "color(4)" in style for style in styled(text, "sub"))
    assert terminal_text("a\x07b\x1b").plain == "a\\x07b\\x1b"  # other control characters escaped


async def test_an_execute_rows_output_shows_colours_and_its_last_progress(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {"colours": ProcessResult(exit_code=0, output=OUTPUT)}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "colours"})), answer("done"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "run it")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        body = shown(screen.conversation.query_one(ToolRow).body.content)
        assert "overn and\nprogress 100%\nsub" in body.plain, body.plain
        assert "\\x1b" not in body.plain and "\\x0d" not in body.plain and "\\x07" not in body.plain
        assert any("color(4)" in style for style in styled(body, "sub"))
        lines = screen_lines(app)
        assert any(line.strip() == "progress 100%" for line in lines), lines
        sent = backend.model.requests[-1].messages[-1].tool_results[0].text
        assert "\x1b[32mgreen\x1b[0m and\rover" in sent and "progress 10%\rprogress 100%" in sent


async def test_a_bang_rows_output_shows_colours_and_the_model_gets_it_as_it_came(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"colours": ProcessResult(exit_code=0, output=OUTPUT)})
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!colours")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        row = screen.conversation.query_one(ShellRow)
        content = shown(row.content)
        assert "overn and\nprogress 100%\nsub" in content.plain, content.plain
        assert "\\x1b" not in content.plain and "\\x0d" not in content.plain
        assert "\\x1b" not in row.whole().plain
        await send(pilot, screen, "what now")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = backend.model.requests[-1].messages[-1].text
        assert "\x1b[32mgreen\x1b[0m and\rover" in sent, repr(sent)


async def test_a_running_commands_live_lines_show_the_last_progress(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {"build": Hang("step one\n\x1b[33mprogress 10%\rprogress 60%\x1b[0m\n")}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "build"})), answer("done"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await until(pilot, lambda: bool(screen.conversation.query(ToolRow)))
        row = screen.conversation.query_one(ToolRow)
        await until(pilot, lambda: "progress 60%" in str(row.body.content))
        body = shown(row.body.content)
        assert "progress 10%" not in body.plain and "\\x" not in body.plain, body.plain
        assert any("color(3)" in style for style in styled(body, "progress 60%"))
        await pilot.press("escape")
