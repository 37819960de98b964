"""The conversation: streamed answers, folded thinking, tool rows with their results, subagents,
the plan box and the todo list, and a resumed session's history."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import JsonValue

from circle.application.events import SubagentEvent, ToolExecutionEnded, ToolExecutionStarted
from circle.application.ports.process_runner import ProcessResult
from circle.domain.errors import ProviderProtocolError
from circle.domain.messages import Message
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Thinking, ToolRow, TurnLine
from circle.entrypoints.tui.widgets.markdown import ChatMarkdown
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, screen_lines, send, texts, until

PADDED = "ls -la" + "\n" * 60 + "; rm -rf build"


async def test_an_answer_streams_in_as_markdown_and_the_turn_line_follows(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Here is **bold** and `code`."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        answers = list(screen.conversation.query(ChatMarkdown))
        assert [a.source for a in answers] == ["Here is **bold** and `code`."]
        assert "› hello" in texts(screen)
        line = str(screen.conversation.query_one(TurnLine).content)
        assert line.startswith("✓ 0.0s · 15 tokens · $")


async def test_thinking_is_shown_folded(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.model.add(answer("The answer.", thinking="Let me weigh the options carefully"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        thinking = screen.conversation.query_one(Thinking)
        assert thinking.collapsed
        assert thinking.text == "Let me weigh the options carefully"
        assert thinking.title.startswith("Thought")


async def test_a_command_row_shows_the_command_and_its_output(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"make test": ProcessResult(exit_code=0, output="4 passed\n")})
    backend.model.add(answer("", Call("execute", {"command": "make test"})), answer("Tests pass."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "test")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        body = str(row.body.content)
        assert "$ make test" in body
        assert "4 passed" in body
        assert "✓" in str(row.header.content)


async def test_a_file_change_row_shows_its_diff(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/app.py", "x = 1\ny = 2\n")
    edit = {"file_path": "app.py", "old_string": "y = 2", "new_string": "y = 3"}
    backend.model.add(answer("", Call("edit_file", edit)), answer("Changed."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "change")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        body = str(screen.conversation.query_one(ToolRow).body.content)
        assert "-y = 2" in body
        assert "+y = 3" in body
        assert backend.files.files["/work/app.py"] == b"x = 1\ny = 3\n"


async def test_todos_fill_the_plan_box(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    todos = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Write the fix", "status": "in_progress"},
        {"content": "Run the tests", "status": "pending"},
    ]
    backend.model.add(answer("", Call("write_todos", {"todos": todos})), answer("On it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert screen.plan.display
        shown = str(screen.plan.content)
        assert "Todos 1/3" in shown
        assert "◐ Write the fix" in shown
        assert "☐ Run the tests" in shown


async def test_a_subagent_row_carries_its_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    task = {"description": "look around", "prompt": "List the files", "subagent_type": "explore"}
    backend.model.add(answer("", Call("task", task)), answer("Two files."), answer("The helper found two."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert "task  look around" in str(row.header.content)
        assert "Two files." in str(row.body.content)
        runs = app.host.subagent_runs() if app.host else []
        assert [(r.subagent_type, r.status) for r in runs] == [("explore", "done")]


async def test_a_resumed_session_shows_what_was_said(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    info = await backend.store.create_session(workspace="/work", session_id="old")
    await backend.store.append(info.id, Message.user("the earlier question"))
    await backend.store.append(info.id, Message(role="assistant", parts=(), model="scripted"))
    app = make_app(session="old")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        assert "› the earlier question" in texts(screen)
        assert app.host is not None and app.host.session.session_id == "old"


async def test_events_it_does_not_know_are_ignored(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    class Steered:
        text = "something new"

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        before = len(screen.conversation.children)
        app.sink.emit(Steered())
        await pilot.pause()
        assert len(screen.conversation.children) == before


async def test_a_failed_turn_shows_its_error_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(ProviderProtocolError("the endpoint sent data that is not JSON: b'<html>'"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        shown = texts(screen)
        assert shown.count("the endpoint sent data that is not JSON") == 1
        assert str(screen.conversation.query_one(TurnLine).content).startswith("✗")


async def test_a_running_subagent_shows_its_current_step_under_its_task_row(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        conversation = main_screen(app).conversation
        args: dict[str, JsonValue] = {
            "description": "look around",
            "prompt": "List",
            "subagent_type": "explore",
        }
        conversation.apply(ToolExecutionStarted(tool_call_id="t1", tool_name="task", args=args))
        step = ToolExecutionStarted(tool_call_id="s1", tool_name="grep", args={"pattern": "TODO"})
        conversation.apply(SubagentEvent("run1", "explore", "look around", step, parent_call_id="t1"))
        conversation.apply(SubagentEvent("run2", "explore", "elsewhere", step, parent_call_id="t9"))
        await pilot.pause()
        row = conversation.query_one(ToolRow)
        assert str(row.body.content) == "↳ grep  TODO"
        conversation.apply(
            ToolExecutionEnded(tool_call_id="t1", tool_name="task", result="Done.", is_error=False)
        )
        await pilot.pause()
        assert "Done." in str(row.body.content) and "↳" not in str(row.body.content)


async def test_a_command_row_shows_a_padded_command_whole_and_says_how_many_lines_it_has(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({PADDED: ProcessResult(exit_code=0, output="total 0\n")})
    backend.model.add(answer("", Call("execute", {"command": PADDED})), answer("Listed."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "list")
        await card_ready(pilot, screen)
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert str(row.header.content) == "✓ execute  ls -la ⏎ ; rm -rf build  (+60 more lines)"
        assert str(row.body.content).splitlines()[:3] == [
            "$ ls -la",  # its lines follow: the count is the title's, not said again here
            "  ⋯ 59 blank lines",
            "  ; rm -rf build",
        ]
        shown = "\n".join(screen_lines(app))
        assert "; rm -rf build" in shown and "total 0" in shown


async def test_control_characters_in_a_command_output_and_a_subagent_step_are_escaped(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        conversation = main_screen(app).conversation
        args: dict[str, JsonValue] = {"description": "look", "prompt": "List", "subagent_type": "explore"}
        conversation.apply(ToolExecutionStarted(tool_call_id="t1", tool_name="task", args=args))
        step = ToolExecutionStarted(
            tool_call_id="s1", tool_name="execute", args={"command": "echo \u202egnp.exe\x1b[2K\nrm -rf ~"}
        )
        conversation.apply(SubagentEvent("run1", "explore", "look", step, parent_call_id="t1"))
        conversation.apply(
            ToolExecutionStarted(tool_call_id="t2", tool_name="execute", args={"command": "ls"})
        )
        conversation.apply(
            ToolExecutionEnded(
                tool_call_id="t2", tool_name="execute", result="\x1b[31mred\x1b[0m\rok", is_error=False
            )
        )
        await pilot.pause()
        first, second = conversation.query(ToolRow)
        step_line = "↳ execute  echo \\u202egnp.exe\\x1b[2K ⏎ rm -rf ~  (+1 more line)"
        assert str(first.body.content) == step_line
        assert str(second.body.content) == "$ ls\nokd"  # as a terminal shows it: red, then "ok" over it
        assert not [line for line in screen_lines(app) if "\x1b" in line or "\u202e" in line]
