"""A click that opens or folds a row (a thinking block, a tool's output, a command's output) leaves
the cursor in the input box: enter sends, ctrl+u clears and the arrows move in the box; a row the
focus reached by tab still opens with enter."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Thinking, ToolRow, TurnLine
from circle.entrypoints.tui.widgets.shell_row import ShellRow
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, main_screen, send, until

ROWS = "".join(f"row {i}\n" for i in range(40))


async def test_a_click_on_a_thinking_block_leaves_enter_and_ctrl_u_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("The answer.", thinking="Let me weigh the options carefully"), answer("Hi."))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        thinking = screen.conversation.query_one(Thinking)
        screen.composer.insert("a draft")
        await pilot.click(thinking, offset=(2, 0))
        await until(pilot, lambda: not thinking.collapsed)
        assert screen.composer.has_focus
        await pilot.press("ctrl+u")
        assert screen.composer.text == ""
        screen.composer.insert("sent after a click")
        screen.conversation.scroll_to_widget(thinking, animate=False, top=True)
        await pilot.pause(0.1)
        await pilot.click(thinking, offset=(2, 0))
        await until(pilot, lambda: thinking.collapsed)
        assert screen.composer.has_focus
        await pilot.press("left", "left", "X")
        assert screen.composer.text == "sent after a cliXck"
        await pilot.press("enter")
        await until(pilot, lambda: len(backend.model.requests) == 2)
        assert backend.model.requests[1].messages[-1].text == "sent after a cliXck"
        assert thinking.collapsed  # enter went to the box, not to the block


async def test_a_thinking_block_reached_by_keys_still_opens_with_enter(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("The answer.", thinking="Let me weigh the options carefully"))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        thinking = screen.conversation.query_one(Thinking)
        title = next(w for w in screen.focus_chain if thinking in w.ancestors)
        screen.set_focus(title)
        await pilot.press("enter")
        await until(pilot, lambda: not thinking.collapsed)
        await pilot.press("enter")
        await until(pilot, lambda: thinking.collapsed)


async def test_a_click_that_unfolds_a_tool_or_command_output_leaves_keys_to_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner(
        {command: ProcessResult(exit_code=0, output=ROWS) for command in ("cat rows", "seq rows")},
        files=backend.files,
    )
    backend.model.add(
        answer("", Call("execute", {"command": "cat rows"})), answer("Forty rows."), answer("Hi.")
    )
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, "!!seq rows")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        for row in (screen.conversation.query_one(ToolRow), screen.conversation.query_one(ShellRow)):
            screen.composer.insert("a draft")
            screen.conversation.scroll_to_widget(row, animate=False, top=True)
            await pilot.pause(0.1)
            await pilot.click(row, offset=(4, 0))
            await until(pilot, lambda row=row: row.expanded)
            assert screen.composer.has_focus, screen.focused
            await pilot.press("ctrl+u")
            assert screen.composer.text == ""
            screen.set_focus(row)  # reached by keys: enter folds it again
            await pilot.press("enter")
            await until(pilot, lambda row=row: not row.expanded)
            screen.set_focus(screen.composer)
        screen.composer.insert("done")
        await pilot.press("enter")
        await until(pilot, lambda: len(backend.model.requests) == 3)
        assert backend.model.requests[2].messages[-1].text.endswith("done")


async def test_a_click_on_an_answers_text_leaves_the_cursor_in_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Before, the click gave the focus to the conversation: ctrl+u and enter no longer reached the
    box (only printable keys went back to it)."""
    from circle.entrypoints.tui.widgets.conversation import Answer

    backend.model.add(answer("A plain answer, long enough to click on."), answer("Hi."))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "say something")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        said = screen.conversation.query(Answer).last()
        screen.composer.insert("a draft")
        await pilot.click(said, offset=(3, 0))
        await pilot.pause()
        assert screen.composer.has_focus
        await pilot.press("ctrl+u")
        assert screen.composer.text == ""
        await pilot.press(*"next", "enter")
        await until(pilot, lambda: len(backend.model.requests) == 2)
        assert backend.model.requests[1].messages[-1].text == "next"
