"""Counts of one are said in the singular: a running command's '… 1 line above', a thought of
one word, a compaction of one message."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.events import CompactionEnded
from circle.entrypoints.tui._format import compaction_line
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import ToolRow
from circle.entrypoints.tui.widgets.rows import Thinking
from circle.entrypoints.tui.widgets.tool_row import LIVE_LINES
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import FakeBackend, main_screen, send, until


def test_a_thought_of_one_word_and_a_compaction_of_one_message() -> None:
    thinking = Thinking("hmm")
    thinking.finish()
    assert thinking.title == "Thought (1 word)"
    thinking = Thinking("hmm, well")
    thinking.finish()
    assert thinking.title == "Thought (2 words)"
    line, _ = compaction_line(CompactionEnded(session_id="s", reason="manual", summarized=1, kept=2))
    assert line.startswith("Compacted: 1 message summarized, 2 kept"), line


async def test_a_running_command_says_one_line_above(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    output = "".join(f"step {number}\n" for number in range(LIVE_LINES + 1))
    backend.processes = FakeProcessRunner({"build": Hang(output)}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "build"})), answer("done"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await until(pilot, lambda: bool(screen.conversation.query(ToolRow)))
        row = screen.conversation.query_one(ToolRow)
        await until(pilot, lambda: f"step {LIVE_LINES}" in str(row.body.content))
        assert "… 1 line above\n" in str(row.body.content), str(row.body.content)
        await pilot.press("escape")
