"""Found by trying the interface in tmux: ctrl+f did not look in a tool row's folded output
('cmd seq 100 160', then '140': 'no match'); the read_file row lost its first line's leading
spaces ('   1       line 1' over '        2  line 2'); the ctrl+o transcript put two calls'
headers first and both outputs after them, unlabelled."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.content import Content

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.entrypoints.tui.widgets.find_bar import CURRENT_STYLE, FindBar
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

SEQ = "".join(f"{n}\n" for n in range(100, 161))


def body(row: ToolRow) -> str:
    return str(row.body.content)


def current_in(row: ToolRow) -> str:
    """The text of ``row``'s body the find bar marks as the current match ('' when none)."""
    visual = row.body.visual
    if not isinstance(visual, Content):
        return ""
    return "".join(visual.plain[s.start : s.end] for s in visual.spans if str(s.style) == CURRENT_STYLE)


async def test_ctrl_f_finds_in_a_folded_output_and_unfolds_the_row_at_the_match(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {"seq 100 160": ProcessResult(exit_code=0, output=SEQ)}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "seq 100 160"})), answer("Counted."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "count")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert "140" not in body(row) and "[click or enter unfolds]" in body(row)
        bar = screen.query_one(FindBar)
        await pilot.press("ctrl+f", *"140")
        await until(pilot, lambda: str(bar.count.content) == "1 of 1")
        assert row.expanded and "160" in body(row) and current_in(row) == "140"
        await until(pilot, lambda: any(line.strip() == "140" for line in screen_lines(app)))
        await pilot.press("backspace", "backspace", "backspace", *"108")  # seen folded: stays folded
        await until(pilot, lambda: str(bar.count.content) == "1 of 1")
        assert not row.expanded and current_in(row) == "108"
        await pilot.press("backspace", "backspace", "backspace", *"155")
        await until(pilot, lambda: str(bar.count.content) == "1 of 1" and row.expanded)
        await pilot.press("escape")  # closed at the match: the row stays open
        await until(pilot, lambda: not bar.display)
        assert row.expanded and "160" in body(row) and current_in(row) == ""
        assert any(line.strip() == "155" for line in screen_lines(app))


async def test_a_read_file_row_keeps_its_first_lines_indentation(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/a.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    backend.model.add(answer("", Call("read_file", {"file_path": "a.txt"})), answer("Read."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "read it")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        lines = screen_lines(app)
        first = next(line for line in lines if line.rstrip().endswith("line 1"))
        second = next(line for line in lines if line.rstrip().endswith("line 2"))
        assert first.index("line 1") == second.index("line 2"), (first, second)
        assert first.index("1") == second.index("2")  # the numbers right-aligned alike


async def test_the_transcript_puts_each_calls_output_under_its_own_header(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    backend.mode = "auto"
    backend.files.put("/work/a.txt", "alpha\n")
    backend.files.put("/work/b.txt", "bravo\n")
    backend.model.add(
        answer("", Call("read_file", {"file_path": "a.txt"}), Call("read_file", {"file_path": "b.txt"})),
        answer("Both read."),
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "read both")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.done)
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        text = transcript.text
        order = [text.index(said) for said in ("read_file  a.txt", "alpha", "read_file  b.txt", "bravo")]
        assert order == sorted(order), text
        assert text.index("Both read.") > order[-1]


async def test_backspaces_and_letters_typed_in_one_burst_edit_the_find_field_in_order(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        bar = screen.query_one(FindBar)
        await pilot.press("ctrl+f", *"140")
        await until(pilot, lambda: bar.field.value == "140")
        for key, character in [("backspace", None)] * 3 + [(c, c) for c in "108"]:  # as tmux sends them
            app.post_message(events.Key(key, character))
        await until(pilot, lambda: bar.field.value == "108")
        app.post_message(events.Key("backspace", None))
        app.post_message(events.Key("9", "9"))
        await until(pilot, lambda: bar.field.value == "109")
        assert screen.composer.text == ""


async def test_ctrl_f_finds_in_a_bang_commands_folded_output(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """A !command's row folds its output too; the find bar looked only at what it showed."""
    from circle.entrypoints.tui.widgets.shell_row import ShellRow

    backend.processes = FakeProcessRunner({"seq 100 160": ProcessResult(exit_code=0, output=SEQ)})
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!seq 100 160")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        row = screen.conversation.query_one(ShellRow)
        await until(pilot, lambda: row.folds)
        assert "150" not in str(row.render())
        bar = screen.query_one(FindBar)
        await pilot.press("ctrl+f", *"150")
        await until(pilot, lambda: str(bar.count.content) == "1 of 1")
        assert row.expanded
        await until(pilot, lambda: any(line.strip().startswith("150") for line in screen_lines(app)))
