"""The view follows the end through a tall card opening and closing, and a message sent while
scrolled up goes to the end: only the person scrolling up lets it go."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import FakeBackend, card_ready, main_screen, send, until
from .test_follow import at_end, wheel_up

OLD = "".join(f"old line {i}\n" for i in range(1, 61))
NEW = "".join(f"new line {i}\n" for i in range(1, 61))


def edits(backend: FakeBackend, count: int, *, key: str) -> None:
    """Edits of a 60-line file (each a tall card); after each, a last answer unless esc stops it.
    Allowed edits swap the lines back and forth; denied ones ask for the same change again."""
    backend.files.put("/work/big.txt", OLD)
    for n in range(count):
        old, new = (NEW, OLD) if n % 2 and key == "1" else (OLD, NEW)
        backend.model.add(
            answer("", Call("edit_file", {"file_path": "big.txt", "old_string": old, "new_string": new}))
        )
        if key != "escape":
            backend.model.add(answer(f"FINAL AFTER TOOL {n}"))


def at_bottom(screen: MainScreen) -> bool:
    view = screen.conversation
    return view.scroll_y >= view.max_scroll_y


@pytest.mark.parametrize(("size", "key"), [((140, 45), "1"), ((80, 24), "n"), ((50, 16), "escape")])
async def test_the_view_follows_after_a_tall_card_closes(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int], key: str
) -> None:
    edits(backend, 2, key=key)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for n in range(2):
            await send(pilot, screen, f"edit {n}")
            await card_ready(pilot, screen, ApprovalCard)
            await pilot.pause(0.1)
            await pilot.press(key)
            await until(pilot, lambda n=n: len(screen.conversation.query(TurnLine)) > n)
            await pilot.pause(0.2)
            assert screen.conversation.following, f"let go after card {n}"
            await until(pilot, lambda: at_bottom(screen))
            assert not screen.below.display


async def test_a_message_sent_while_scrolled_up_brings_the_view_to_the_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("\n\n".join(f"line {n}" for n in range(80))), answer("the second answer"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "first")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: at_end(screen))
        await wheel_up(pilot, screen)
        assert not screen.conversation.following
        await send(pilot, screen, "again")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        await until(pilot, lambda: at_end(screen) and screen.conversation.following)
        assert not screen.below.display


@pytest.mark.parametrize("typed", ["!!echo hi", "!echo hi", "/hotkeys"])
async def test_a_command_sent_while_scrolled_up_brings_the_view_to_the_end(
    typed: str, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.processes = FakeProcessRunner(
        {"echo hi": ProcessResult(exit_code=0, output="hi\n")}, files=backend.files
    )
    backend.model.add(answer("\n\n".join(f"line {n}" for n in range(80))))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "first")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: at_end(screen))
        await wheel_up(pilot, screen)
        assert not screen.conversation.following
        rows = len(screen.conversation.children)
        await send(pilot, screen, typed)
        await until(pilot, lambda: len(screen.conversation.children) > rows)
        await until(pilot, lambda: at_end(screen) and screen.conversation.following)
