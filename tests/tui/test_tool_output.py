"""Tool output: a folded output unfolds in place and folds again; a running command shows its last
lines live; ctrl+o shows the whole transcript and esc or ctrl+o closes it."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, screen_lines, send, until

LONG = "".join(f"row {i}\n" for i in range(40))


def long_output(backend: FakeBackend) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {"cat rows": ProcessResult(exit_code=0, output=LONG)}, files=backend.files
    )
    backend.model.add(
        answer("", Call("execute", {"command": "cat rows"}), thinking="Read every row."),
        answer("Forty rows."),
    )


def body(row: ToolRow) -> str:
    return str(row.body.content)


async def test_a_folded_output_unfolds_in_place_and_folds_again(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    long_output(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert "row 11" in body(row) and "row 12" not in body(row) and "… 28 more lines" in body(row)
        assert "[click or enter unfolds]" in body(row)
        screen.conversation.scroll_to_widget(row, animate=False, top=True)
        await pilot.pause(0.1)
        await pilot.click(row)
        await until(pilot, lambda: "row 39" in body(row))
        assert "more lines" not in body(row) and "[click or enter folds]" in body(row)
        assert screen.composer.has_focus  # a click leaves the cursor in the input box
        screen.conversation.scroll_to_widget(row, animate=False, top=True)
        await pilot.pause(0.1)
        await pilot.click(row)
        await until(pilot, lambda: "row 39" not in body(row))
        await pilot.press("tab")  # from the box to the newest row: this one, below the thinking block
        assert row.has_focus
        await pilot.press("enter")
        await until(pilot, lambda: "row 39" in body(row))
        await pilot.press("enter")
        await until(pilot, lambda: "row 39" not in body(row))
        await pilot.press("o", "k")
        assert screen.composer.has_focus and screen.composer.text == "ok"


async def test_a_folded_output_counts_the_commands_lines_not_its_exit_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    twelve = "".join(f"row {i}\n" for i in range(12))
    backend.processes = FakeProcessRunner(
        {
            "cat twelve": ProcessResult(exit_code=0, output=twelve),
            "cat rows": ProcessResult(exit_code=0, output=LONG),
        },
        files=backend.files,
    )
    backend.model.add(
        answer("", Call("execute", {"command": "cat twelve"}), Call("execute", {"command": "cat rows"})),
        answer("Read them."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        whole, folded = screen.conversation.query(ToolRow)
        assert body(whole).endswith("row 11\n[exit code 0]") and not whole.folds  # twelve lines: all
        assert "more line" not in body(whole) and "unfolds" not in body(whole)
        assert "row 11\n… 28 more lines\n[exit code 0]\n[click or enter unfolds]" in body(folded)
        await pilot.click(folded)
        await until(pilot, lambda: "row 39" in body(folded))
        assert body(folded).endswith("row 39\n[exit code 0]\n[click or enter folds]")


async def test_a_running_command_shows_its_last_lines_live(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"make": Hang("".join(f"step {i}\n" for i in range(9)))}, files=backend.files)
    backend.processes = runner
    backend.model.add(answer("", Call("execute", {"command": "make"})), answer("Built."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build")
        await until(pilot, lambda: bool(screen.conversation.query(ToolRow)))
        row = screen.conversation.query_one(ToolRow)
        await until(pilot, lambda: "step 8" in body(row))
        assert "$ make" in body(row) and "… 4 lines above" in body(row) and "step 3" not in body(row)
        assert "step 4" in "\n".join(screen_lines(app))
        runner.started[0].finish(0, "done\n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "step 0" in body(row) and "done" in body(row)


async def test_ctrl_o_shows_the_whole_transcript_and_esc_or_ctrl_o_closes_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    long_output(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        for said in ("show the rows", "Read every row.", "$ cat rows", "row 0", "row 39", "Forty rows."):
            assert said in transcript.text, said
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert screen.composer.has_focus
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("h", "i")
        assert screen.composer.has_focus and screen.composer.text == "hi"


async def test_the_transcript_shows_a_file_change_with_its_real_diff(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen
    from circle.entrypoints.tui.widgets.cards import ApprovalCard

    backend.files.put("/work/app.py", "import os\n\n\ndef main():\n    return 1\n")
    edit = {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}
    backend.model.add(answer("", Call("edit_file", edit)), answer("Changed."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "change it")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        await until(pilot, lambda: row.diff is not None and "def main" in row.diff)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        assert " def main():" in transcript.text and "+    return 2" in transcript.text


async def test_the_transcript_shows_each_call_its_own_diff_when_calls_share_an_id(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    backend.mode = "auto"
    backend.files.put("/work/a.py", "def a():\n    return 1\n")
    backend.files.put("/work/b.py", "def b():\n    return 5\n")
    first = {"file_path": "a.py", "old_string": "return 1", "new_string": "return 2"}
    second = {"file_path": "b.py", "old_string": "return 5", "new_string": "return 6"}
    backend.model.add(answer("", Call("edit_file", first, id="call_1")), answer("Changed a."))
    backend.model.add(answer("", Call("edit_file", second, id="call_1")), answer("Changed b."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "change a")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        await send(pilot, screen, "change b")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        rows = list(screen.conversation.query(ToolRow))
        await until(pilot, lambda: all(row.diff is not None and "def " in row.diff for row in rows))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        head, _, tail = transcript.text.partition("Changed a.")
        assert "+    return 2" in head and "def b" not in head, head
        assert "+    return 6" in tail and "def a" not in tail, tail
