"""Slash commands: the completion list, close matches, and what each command does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.screens.tree import TreeScreen
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, main_screen, screen_lines, send, texts, until


async def started(app: CircleApp, pilot: object) -> None:
    await until(pilot, lambda: app.host is not None)


async def test_slash_opens_the_completion_list(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await pilot.press("/", "r")
        assert screen.completions.open
        shown = [c.replacement for c in screen.completions.choices]
        assert shown == ["/resume ", "/rewind ", "/redo ", "/reload "]
        await pilot.press("down", "tab")
        assert screen.composer.text == "/rewind "


async def test_a_misspelt_command_gets_close_matches(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "/hlep")
        await until(pilot, lambda: "Unknown command /hlep" in texts(screen))
        assert "Did you mean /help?" in texts(screen)


async def test_help_and_hotkeys(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "/help")
        await until(pilot, lambda: "/resume" in texts(screen))
        await send(pilot, screen, "/hotkeys")
        await until(pilot, lambda: "ctrl+r" in texts(screen))
        assert "/compact [INSTRUCTIONS]" in texts(screen)


async def test_models_switches_the_model(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "/models")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("down", "enter")
        await until(pilot, lambda: "Model: model-b" in texts(screen))
        assert app.host is not None and app.host.model == "model-b"
        assert str(screen.footer.content).startswith("model-b ·")


async def test_thinking_sets_the_level(make_app: Callable[..., CircleApp]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "/thinking high")
        await until(pilot, lambda: "Thinking" in texts(screen))
        assert "thinking high" in str(screen.footer.content)
        await send(pilot, screen, "/thinking loud")
        await until(pilot, lambda: "unknown thinking level 'loud'" in texts(screen))


async def test_new_starts_an_empty_session_and_resume_goes_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("first answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert app.host is not None
        first = app.host.session.session_id
        await send(pilot, screen, "/new")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != first)
        await until(pilot, lambda: "first answer" not in texts(screen))
        await send(pilot, screen, "/resume")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id == first)
        await until(pilot, lambda: "first answer" in texts(screen))


async def test_tree_and_fork(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        for text in ("alpha", "beta"):
            await pilot.press(*text, "enter")
            await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen))
        await until(pilot, lambda: "● you    beta" not in "\n".join(screen_lines(app)))
        assert "● circle two" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        assert app.host is not None
        source = app.host.session.session_id
        await send(pilot, screen, "/fork")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"one", "enter")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != source)
        assert [m.text for m in app.host.session.conversation.messages] == ["alpha", "one"]


async def test_rewind_and_undo_put_files_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.mode = "auto"
    backend.files.put("/work/a.txt", "before\n")
    backend.model.add(
        answer("", Call("write_file", {"file_path": "a.txt", "content": "after\n"})),
        answer("Changed."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "change")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert backend.files.files["/work/a.txt"] == b"after\n"
        await send(pilot, screen, "/rewind")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert any("· 1 file" in line and "1 files" not in line for line in screen_lines(app))
        await pilot.press("enter")
        await until(pilot, lambda: "Rewound turn 1" in texts(screen))
        assert backend.files.files["/work/a.txt"] == b"before\n"
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Undone 'change': 4 messages taken back" in texts(screen))
        assert backend.files.files["/work/a.txt"] == b"before\n"


async def test_compact_summarizes(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.model.add(answer("one"), answer("two"), answer("A summary of it all."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        for text in ("alpha", "beta"):
            await pilot.press(*text, "enter")
            await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        await send(pilot, screen, "/compact")
        await until(pilot, lambda: "Compacted" in texts(screen) and not screen.busy.display)
        await pilot.pause(0.1)
        lines = [line for line in texts(screen).splitlines() if "Compact" in line]
        assert len(lines) == 1, lines
        assert lines[0].startswith("Compacted: 2 messages summarized")


async def test_the_completion_list_shows_argument_names_in_brackets(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await pilot.press(*"/compa")
        await until(pilot, lambda: screen.completions.open)
        shown = str(screen.completions.get_option_at_index(0).prompt)
        lines = screen_lines(app)
        assert "/compact [INSTRUCTIONS]" in shown
        assert any("/compact [INSTRUCTIONS]" in line for line in lines), lines


async def test_export_name_jobs_agents_skills_reload(
    make_app: Callable[..., CircleApp], backend: FakeBackend, tmp_path: Path
) -> None:
    backend.model.add(answer("hi there"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        target = tmp_path / "out.md"
        await send(pilot, screen, f"/export {target}")
        await until(pilot, lambda: "Exported the session" in texts(screen))
        assert "hi there" in target.read_text()
        await send(pilot, screen, "/name my work")
        await until(pilot, lambda: "Named the session" in texts(screen))
        assert app.host is not None
        info = await backend.store.get_session(app.host.session.session_id)
        assert info is not None and info.name == "my work"
        await send(pilot, screen, "/jobs")
        await until(pilot, lambda: "No background jobs" in texts(screen))
        await send(pilot, screen, "/agents")
        await until(pilot, lambda: "explore" in texts(screen))
        await send(pilot, screen, "/skills")
        await until(pilot, lambda: "Skills:" in texts(screen))
        assert "pr-review" in texts(screen)
        await send(pilot, screen, "/reload")
        await until(pilot, lambda: "again" in texts(screen))


async def test_export_writes_the_branch_on_screen(
    make_app: Callable[..., CircleApp], backend: FakeBackend, tmp_path: Path
) -> None:
    """After /tree continued from an earlier answer, /export wrote main's messages, not the ones
    shown and sent to the model."""
    backend.model.add(answer("Here is a plan."), answer("Written."), answer("Another way, done."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        for text in ("plan the change", "now write it"):
            await send(pilot, screen, text)
            await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        await pilot.press("up", "up", "enter")
        await until(pilot, lambda: app.screen is screen and not screen.host.session.is_busy)
        await send(pilot, screen, "try another way")
        await until(pilot, lambda: "Another way, done." in texts(screen) and not screen.busy.display)
        for done, name in enumerate(("out.md", "out.html"), start=1):
            await send(pilot, screen, f"/export {tmp_path / name}")
            await until(pilot, lambda: texts(screen).count("Exported the session") == done)  # noqa: B023
            written = (tmp_path / name).read_text()
            assert "Another way, done." in written and "try another way" in written, name
            assert "Written." not in written and "now write it" not in written, name
            assert "main" in written  # named among the other branches


async def test_commands_wait_for_the_turn(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"sleep 9": Hang()}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "sleep 9"})))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: bool(backend.processes and backend.processes.started))
        await send(pilot, screen, "/new")
        await until(pilot, lambda: "/new waits until the turn has ended" in texts(screen))
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
