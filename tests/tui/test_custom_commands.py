"""Custom commands: ``/review a.py`` sends the template of .circle/commands/review.md, filled, as
the person's message (their row shows what they typed); the completion list and /help list the
commands; a built-in command wins by name; a bad file is said in one line."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.person import UserRow

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, send, texts, until

HOME = "/home/person"
REVIEW = "---\ndescription: Review a file, bugs first\n---\nReview $ARGUMENTS: bugs first, then style.\n"


def user_rows(app: CircleApp) -> list[str]:
    return [str(row.content) for row in main_screen(app).conversation.query(UserRow)]


async def test_a_custom_command_sends_its_template_and_the_row_shows_what_was_typed(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/commands/review.md", REVIEW)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/review a.py")
        await until(pilot, lambda: bool(backend.model.requests) and not screen.host.session.is_busy)
        sent = backend.model.requests[-1].messages[-1]
        assert sent.role == "user"
        assert sent.text.endswith("Review a.py: bugs first, then style.")
        assert "/review" not in sent.text
        assert any(row.endswith("/review a.py") for row in user_rows(app)), user_rows(app)
        assert "Unknown command" not in texts(screen)
        assert any("/review a.py" in line for line in screen_lines(app))


async def test_a_paste_folded_in_a_custom_command_stays_folded_in_the_persons_row(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/commands/review.md", REVIEW)
    pasted = "\n".join(f"def f{n}(): return {n}" for n in range(12))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        screen.composer.insert("/review ")
        screen.composer.post_message(events.Paste(pasted))
        await pilot.pause()
        assert screen.composer.text == "/review [pasted text #1, 12 lines]"
        await pilot.press("enter")
        await until(pilot, lambda: bool(backend.model.requests) and not screen.host.session.is_busy)
        sent = backend.model.requests[-1].messages[-1].text
        assert sent.endswith(f"Review {pasted}: bugs first, then style.")  # the paste put back
        assert user_rows(app) == ["› /review [pasted text #1, 12 lines]"]  # as an ordinary message's
        person = next(m for m in screen.host.session.conversation.messages if m.role == "user")
        assert person.typed == "/review [pasted text #1, 12 lines]"  # so it is reopened as it was


async def test_the_persons_own_command_runs_with_its_words_after_the_body(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{HOME}/.circle/commands/fix-tests.md", "Fix the failing tests.\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/fix-tests only the unit ones")
        await until(pilot, lambda: bool(backend.model.requests))
        sent = backend.model.requests[-1].messages[-1].text
        assert sent.endswith("Fix the failing tests.\nonly the unit ones"), sent


async def test_the_completion_list_and_help_list_the_custom_commands_a_builtin_winning(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/commands/review.md", REVIEW)
    backend.files.put(f"{WORKSPACE}/.circle/commands/help.md", "Shadow the help.\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: bool(screen.composer.custom_commands))
        await pilot.press("/", "r", "e")
        labels = [c.label for c in screen.completions.choices]
        assert "/review  Review a file, bugs first" in labels, labels
        assert [c.replacement for c in screen.completions.choices][-1] == "/review "
        await pilot.press("escape")
        screen.composer.clear_all()
        await pilot.press("/", "h", "e")
        assert [c.replacement for c in screen.completions.choices] == ["/help "]
        screen.composer.clear_all()
        await send(pilot, screen, "/help")
        await until(pilot, lambda: "/review" in texts(screen))
        assert "Review a file, bugs first (custom)" in texts(screen)
        assert "/resume" in texts(screen)  # the built-in /help ran, not help.md
        said = "Left out the command file .circle/commands/help.md: /help is Circle's own"
        assert texts(screen).count(said) == 1
        assert not backend.model.requests


async def test_a_bad_command_file_is_said_in_one_line_and_the_others_run(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put(f"{WORKSPACE}/.circle/commands/review.md", REVIEW)
    backend.files.put(f"{WORKSPACE}/.circle/commands/broken.md", "---\ndescription: never closed\n")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: "Left out the command file" in texts(screen))
        line = next(t for t in texts(screen).splitlines() if "Left out the command file" in t)
        assert line.startswith("Left out the command file .circle/commands/broken.md: "), line
        assert "Traceback" not in texts(screen)
        await send(pilot, screen, "/broken x")
        await until(pilot, lambda: "/broken: .circle/commands/broken.md is left out" in texts(screen))
        assert not backend.model.requests
        await send(pilot, screen, "/revew a.py")
        await until(pilot, lambda: "Unknown command /revew" in texts(screen))
        assert "Did you mean /review" in texts(screen)
