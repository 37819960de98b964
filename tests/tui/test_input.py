"""The input box: new lines, large pastes, the history (up, down, ctrl+r), @file completion and
attachments, and the person's own !commands."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.application.ports.process_runner import ProcessResult
from circle.domain.messages import DocumentPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.widgets.conversation import Notice, ShellRow, TurnLine
from circle.testing import FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


def sent_text(backend: FakeBackend, request: int = -1) -> str:
    return backend.model.requests[request].messages[-1].text


async def test_ctrl_j_and_a_trailing_backslash_start_new_lines(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*"one", "ctrl+j", *"two\\", "enter", *"three")
        assert screen.composer.text == "one\ntwo\nthree"
        await pilot.press("enter")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert sent_text(backend) == "one\ntwo\nthree"


async def test_a_large_paste_is_folded_and_sent_whole(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("ok"))
    pasted = "".join(f"line {n}\n" for n in range(40))  # a final line feed ends the last line
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*"look: ")
        screen.composer.post_message(events.Paste(pasted))
        await pilot.pause()
        assert screen.composer.text == "look: [pasted text #1, 40 lines]"
        await pilot.press("enter")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert sent_text(backend) == "look: " + pasted


async def test_up_and_down_walk_the_history(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for text in ("first", "second"):
            await pilot.press(*text, "enter")
            await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert screen.composer.text == "second"
        await pilot.press("up")
        assert screen.composer.text == "first"
        await pilot.press("down", "down")
        assert screen.composer.text == "draft"


async def test_ctrl_r_finds_an_earlier_message(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    app.history.entries += ["deploy the docs", "run the tests", "deploy the site"]
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"docs", "enter")
        await until(pilot, lambda: app.screen is screen)
        assert screen.composer.text == "deploy the docs"


async def test_at_completes_paths_and_attaches_the_file(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/src/app.py", "print('hi')\n")
    backend.files.put("/work/README.md", "# readme\n")
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*"see @s")
        await until(pilot, lambda: screen.completions.open)
        assert [c.label for c in screen.completions.choices] == ["src/"]
        await pilot.press("tab")
        await until(
            pilot, lambda: screen.completions.open and screen.completions.choices[0].label == "src/app.py"
        )
        await pilot.press("tab")
        assert screen.composer.text == "see @src/app.py "
        await send(pilot, screen, "please")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = sent_text(backend)
        assert sent.startswith("<file path=\"src/app.py\">\nprint('hi')\n</file>")
        assert sent.endswith("see @src/app.py please")


async def test_quoted_and_escaped_mentions_complete_names_with_spaces(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/my notes.txt", "notes\n")
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*"@my")
        await until(pilot, lambda: screen.completions.open)
        await pilot.press("tab")
        assert screen.composer.text == "@my\\ notes.txt "
        screen.composer.clear_all()
        await pilot.press(*'@"my')
        await until(pilot, lambda: screen.completions.open)
        await pilot.press("tab")
        assert screen.composer.text == '@"my notes.txt" '
        await pilot.press("enter")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert sent_text(backend).startswith('<file path="my notes.txt">\nnotes\n')


async def test_bang_runs_a_command_and_sends_its_output_with_the_next_message(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"git status": ProcessResult(exit_code=0, output="clean\n")})
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!git status")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert "clean" in str(screen.conversation.query_one(ShellRow).content)
        assert backend.model.requests == []
        await send(pilot, screen, "what now")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = sent_text(backend)
        assert "$ git status\nclean" in sent
        assert sent.endswith("what now")


async def test_double_bang_output_is_only_shown(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner({"ls": ProcessResult(exit_code=0, output="secret-plans.txt\n")})
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "!!ls")
        await until(pilot, lambda: bool(screen.conversation.query(ShellRow)))
        assert "not sent to the model" in str(screen.conversation.query_one(ShellRow).content)
        await send(pilot, screen, "hi")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert sent_text(backend) == "hi"


async def test_a_mentioned_pdf_goes_as_a_document_and_a_binary_file_is_refused(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/paper.pdf", b"%PDF-1.7\nnot text")
    backend.files.put("/work/blob.bin", b"\x00\x01\x02" * 10)
    backend.model.add(answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "what is @blob.bin please")
        await until(
            pilot, lambda: any("binary" in str(n.render()) for n in screen.conversation.query(Notice))
        )
        assert not backend.model.requests
        await send(pilot, screen, "read @paper.pdf please")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = backend.model.requests[-1].messages[-1]
        assert "%PDF" not in sent.text and "PDF paper.pdf (17 bytes)" in sent.text
        assert app.host is not None
        stored = [m for m in app.host.session.conversation.messages if m.role == "user"][-1]
        assert [p.name for p in stored.parts if isinstance(p, DocumentPart)] == ["paper.pdf"]
