"""What the rows and the busy line say agrees with what happens: a folded output counts ``1 more
line``, ctrl+o marks each call as its row does, thinking reads finished once the answer starts, and
a retry being waited out is not called thinking."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ToolRow, TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, main_screen, send, texts, until


async def test_a_folded_output_one_line_over_says_one_more_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    output = "".join(f"row {i}\n" for i in range(13))  # one over the twelve shown (the exit line apart)
    backend.processes = FakeProcessRunner(
        {"cat rows": ProcessResult(exit_code=0, output=output)}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "cat rows"})), answer("Twelve."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        body = str(screen.conversation.query_one(ToolRow).body.content)
        assert "row 11\n… 1 more line\n[exit code 0]\n" in body and "more lines" not in body


async def test_ctrl_o_marks_each_call_as_its_row_does(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {"make": Hang("step 1\n"), "ls": ProcessResult(exit_code=0, output="a\n")}, files=backend.files
    )
    ls, make = Call("execute", {"command": "ls"}), Call("execute", {"command": "make"})
    backend.model.add(answer("", ls), answer("", make))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build")
        await until(pilot, lambda: "step 1" in texts(screen))
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        heads = [str(row.header.content) for row in screen.conversation.query(ToolRow)]
        assert [head[0] for head in heads] == ["✓", "⏹"]
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        await until(pilot, lambda: "$ make" in transcript.text)
        assert f"{heads[0]}\n$ ls" in transcript.text and f"{heads[1]}\n$ make" in transcript.text


async def test_thinking_reads_finished_once_the_answer_starts(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.application.events import MessageStarted, MessageUpdated, TurnStarted
    from circle.entrypoints.tui.widgets.rows import Answer, Thinking

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        app.sink.emit(MessageStarted(message=None, role="assistant"))
        app.sink.emit(MessageUpdated(kind="thinking", delta="Look at the rows first.", content_index=0))
        await until(pilot, lambda: bool(screen.conversation.query(Thinking)))
        thinking = screen.conversation.query_one(Thinking)
        assert thinking.title == "Thinking…"
        app.sink.emit(MessageUpdated(kind="text", delta="The rows", content_index=1))
        await until(pilot, lambda: bool(screen.conversation.query(Answer)))
        assert thinking.title == "Thought (5 words)"
        app.sink.emit(MessageUpdated(kind="text", delta=" are fine.", content_index=1))
        await pilot.pause(0.05)
        assert thinking.title == "Thought (5 words)"


async def test_the_busy_line_says_it_waits_out_a_retry_not_that_it_thinks(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.application.events import MessageUpdated, RetryScheduled, TurnStarted

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        await until(pilot, lambda: "Working…" in str(screen.busy.content))  # thinking is off
        app.sink.emit(
            RetryScheduled(kind="rate_limit", attempt=1, max_attempts=5, delay_ms=4000, error="429")
        )
        await until(pilot, lambda: bool(screen.busy.retry))
        shown = str(screen.busy.content)
        assert "Working…" not in shown and "Waiting…" in shown and "retrying in 4s (1/5)" in shown
        app.sink.emit(MessageUpdated(kind="text", delta="Here", content_index=0))
        await until(pilot, lambda: "Answering…" in str(screen.busy.content))
        assert not screen.busy.retry
