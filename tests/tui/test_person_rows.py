"""The person's row shows what they typed: plan-mode notices as notices (and only the net change
told to the model), a ``!command`` as a command row, ``@file`` as a chip, a folded paste folded,
a job's notice as a notice, a steering message once."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.application.ports.process_runner import ProcessResult
from circle.domain.messages import Message, Shown
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Notice, ShellRow, TurnLine, UserRow
from circle.entrypoints.tui.widgets.person import person_rows
from circle.testing import Call, FakeProcessRunner, Hang, InMemoryFileSystem, answer

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, send, texts, until


def _sent(backend: FakeBackend) -> str:
    return backend.model.requests[-1].messages[-1].text


def _users(app: CircleApp) -> list[str]:
    return [str(row.content) for row in main_screen(app).conversation.query(UserRow)]


async def test_plan_mode_switched_back_tells_nothing_and_a_switch_shows_as_a_notice(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for _ in range(3):  # accept-edits, plan mode, default: back where it began
            await pilot.press("shift+tab")
        await send(pilot, screen, "hello")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        assert _sent(backend) == "hello"
        await pilot.press("shift+tab", "shift+tab")
        await send(pilot, screen, "plan it")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        assert _sent(backend).startswith("[The person turned plan mode on")
        assert _users(app) == ["› hello", "› plan it"]
        shown = texts(screen)
        assert "[The person turned" not in shown
        said = [str(n.content) for n in screen.conversation.query(Notice) if "plan" in str(n.content).lower()]
        assert said == ["Plan mode: nothing changes until you accept a plan."]  # shift+tab's line, once


async def test_a_command_an_attached_file_and_a_paste_show_as_typed(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files = InMemoryFileSystem({f"{WORKSPACE}/notes.txt": "SECRET BODY OF THE FILE\n"})
    backend.processes = FakeProcessRunner(
        {"ls": ProcessResult(exit_code=0, output="notes.txt\n")}, files=backend.files
    )
    backend.model.add(answer("seen"))
    pasted = "\n".join(f"line {n}" for n in range(40))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!ls")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        await pilot.press(*"read @notes.txt ")
        screen.composer.post_message(events.Paste(pasted))
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = _sent(backend)
        assert '<command ran-by="person"' in sent and "SECRET BODY" in sent and "line 39" in sent
        assert _users(app) == ["› read  @notes.txt  [pasted text #1, 40 lines]"]
        shown = texts(screen)
        assert "ran-by" not in shown and "SECRET BODY" not in shown and "line 39" not in shown
        assert len(screen.conversation.query(ShellRow)) == 1  # shown when it ran, not again
        assert app.host is not None
        session_id = app.host.session.session_id
        await send(pilot, screen, "/new")
        await app.host.resume(session_id)
        screen.conversation.remove_children()
        screen.conversation.replay(app.host.session.conversation.messages)
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        replayed = str(screen.conversation.query_one(ShellRow).content)
        assert "! ls" in replayed and "went to the model with the message below" in replayed
        assert _users(app) == ["› read  @notes.txt  [pasted text #1, 40 lines]"]


def test_a_jobs_notice_is_a_notice_not_the_persons() -> None:
    [row] = person_rows(Message.user("job-1 has ended", shown=Shown(source="job")), live=True)
    assert isinstance(row, Notice) and not isinstance(row, UserRow)


async def test_a_steering_message_shows_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"sleep 5": Hang("")}, files=backend.files)
    backend.processes = runner
    backend.model.add(answer("", Call("execute", {"command": "sleep 5"})), answer("done"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "sleep 5" in screen.busy.activity)
        await send(pilot, screen, "also this")
        runner.started[0].finish(0, "")  # the model reads it before its next request
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause()
        assert [row for row in _users(app) if "also this" in row] == ["↳ also this"]


async def test_a_steering_messages_hint_is_right_under_its_row(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"sleep 5": Hang("")}, files=backend.files)
    backend.processes = runner
    backend.model.add(answer("", Call("execute", {"command": "sleep 5"})), answer("done"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "sleep 5" in screen.busy.activity)
        await send(pilot, screen, "also this")
        await pilot.pause(0.1)
        lines = [line.strip() for line in screen_lines(app)]
        at = lines.index("↳ also this")
        assert lines[at + 1] == "↳ the model reads this before its next step"  # its hint, under it
        assert lines[at + 2] == ""  # then the blank line between rows
        rows = list(screen.conversation.children)
        steered = next(row for row in rows if isinstance(row, UserRow) and "also this" in str(row.content))
        above, hint = rows[rows.index(steered) - 1], rows[rows.index(steered) + 1]
        assert isinstance(hint, Notice) and hint.region.y == steered.region.bottom
        assert steered.region.y == above.region.bottom + 1  # one blank line above it, as between rows
        runner.started[0].finish(0, "")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
