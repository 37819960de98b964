"""Tool rows: a short title, the state the turn left them in, and the change's real diff."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.domain.model import ModelEvent, ModelRequest, ThinkingDelta
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import Thinking, ToolRow, TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, until

PATCH = (
    "*** Begin Patch\n*** Add File: notes.txt\n+hello\n"
    "*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
)


async def _turn(app: CircleApp, pilot: object, text: str) -> None:
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    await send(pilot, screen, text)
    await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))


async def test_tool_rows_show_a_short_title_not_the_arguments_as_json(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/app.py", "x = 1\n")
    backend.model.add(
        answer("", Call("ls", {}), Call("apply_patch", {"patch": PATCH})),
        answer("Done."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _turn(app, pilot, "go")
        titles = [str(row.header.content) for row in main_screen(app).conversation.query(ToolRow)]
        assert titles == ["✓ ls  .", "✓ apply_patch  A notes.txt, M app.py"]


async def test_a_file_row_shows_the_cards_diff_with_context_and_the_old_content(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/app.py", "a = 0\nb = 0\nx = 1\nc = 0\n")
    backend.files.put("/work/old.txt", "old line\n")
    edit = {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    write = {"file_path": "old.txt", "content": "new line\n"}
    backend.model.add(
        answer("", Call("edit_file", edit)), answer("", Call("write_file", write)), answer("ok")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "change")
        for _ in range(2):
            await card_ready(pilot, screen, ApprovalCard)
            card = screen.card
            await pilot.press("1")
            await until(pilot, lambda card=card: screen.card is not card)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)
        edited, written = (str(row.body.content) for row in main_screen(app).conversation.query(ToolRow))
        assert " b = 0\n-x = 1\n+x = 2\n c = 0" in edited
        assert "@@ -1 +1 @@" in written
        assert "-old line\n+new line" in written


async def test_without_a_card_a_file_row_shows_the_real_diff_and_so_does_the_transcript(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/app.py", "a = 0\nb = 0\nx = 1\nc = 0\n")
    backend.files.put("/work/old.txt", "old line\nkept\n")
    edit = {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    write = {"file_path": "old.txt", "content": "new line\nkept\n"}
    backend.model.add(answer("", Call("edit_file", edit), Call("write_file", write)), answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _turn(app, pilot, "change")
        screen = main_screen(app)
        edited, written = screen.conversation.query(ToolRow)
        await until(pilot, lambda: edited.diff is not None and written.diff is not None)
        assert " b = 0\n-x = 1\n+x = 2\n c = 0" in str(edited.body.content)
        assert "-old line\n+new line\n kept" in str(written.body.content)
        assert "@@ -0,0" not in str(written.body.content)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: type(app.screen).__name__ == "TranscriptScreen")
        shown = app.screen.text  # type: ignore[attr-defined]
        assert " b = 0\n-x = 1\n+x = 2\n c = 0" in shown and "-old line\n+new line" in shown


async def test_after_esc_a_running_command_row_says_it_was_stopped(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"sleep 100": Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        assert not row.has_class("running")
        assert str(row.header.content).startswith("⏹ execute  sleep 100")
        assert str(row.body.content).count("stopped before it finished") == 1


class ThinksForever(ScriptedModel):
    """Thinks a few words, then never finishes."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        yield ThinkingDelta(text="weighing the options")
        await asyncio.Event().wait()


async def test_after_esc_cut_thinking_is_no_longer_thinking(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model = ThinksForever()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: bool(screen.conversation.query(Thinking)))
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        title = str(screen.conversation.query_one(Thinking).title)
        assert title == "Thought (3 words, cut)", title


async def test_a_resumed_sessions_write_file_row_shows_the_diff_it_showed_when_it_ran(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/old.txt", "old line\nkept\n")
    write = {"file_path": "old.txt", "content": "new line\nkept\n"}
    backend.model.add(answer("", Call("write_file", write)), answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _turn(app, pilot, "change")
        assert app.host is not None
        first = app.host.session.session_id
        screen = main_screen(app)
        await send(pilot, screen, "/new")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != first)
        await send(pilot, screen, f"/resume {first}")
        await until(pilot, lambda: bool(screen.conversation.query(ToolRow)))
        written = str(screen.conversation.query_one(ToolRow).body.content)
        assert "-old line\n+new line\n kept" in written, written
        assert "@@ -0,0" not in written


async def test_the_plan_exit_row_is_titled_by_the_plans_first_line_not_the_plan(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    plan = "# Rename x to y\n\n1. Read app.py\n2. Change x\n"
    backend.model.add(answer("", Call("plan_exit", {"plan": plan})), answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await until(pilot, lambda: bool(screen.conversation.query(ToolRow)))
        title = str(screen.conversation.query_one(ToolRow).header.content)
        assert title[2:] == "plan_exit  Rename x to y  (+3 more lines)", title


async def test_a_write_todos_row_marks_its_items_as_the_todo_box_does(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    todos = [
        {"content": "first thing", "status": "in_progress"},
        {"content": "second", "status": "pending"},
        {"content": "third", "status": "completed"},
    ]
    backend.model.add(answer("", Call("write_todos", {"todos": todos})), answer("ok"))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await _turn(app, pilot, "plan")
        body = str(main_screen(app).conversation.query_one(ToolRow).body.content)
        assert "◐ first thing\n☐ second\n☑ third" in body, body
        assert "[>]" not in body and "[ ]" not in body
        stored = [p for c in backend.store.stored.values() for p in c.message.parts]
        assert any("[>] first thing" in str(getattr(p, "text", "")) for p in stored)
