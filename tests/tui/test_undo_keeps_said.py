"""/undo and /redo keep the rows the person's commands said (the welcome, /help's list) where they
were: only the rows of the turn taken back or brought back change."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.key_list import KeyList
from circle.entrypoints.tui.widgets.welcome import Welcome
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


def kinds(app: CircleApp) -> list[str]:
    return [type(row).__name__ for row in main_screen(app).conversation.children]


async def test_undo_and_redo_keep_the_welcome_and_the_help_where_they_were(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("First answer."), answer("Second answer."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await send(pilot, screen, "/help")
        await until(pilot, lambda: bool(view.query(KeyList)))
        await send(pilot, screen, "one")
        await until(pilot, lambda: len(view.query(TurnLine)) == 1)
        await send(pilot, screen, "two")
        await until(pilot, lambda: len(view.query(TurnLine)) == 2)
        said = (str(view.query_one(Welcome).content), str(view.query_one(KeyList).content))
        before = kinds(app)
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Second answer." not in str([a.source for a in view.query("Answer")]))
        await pilot.pause(0.2)
        after = kinds(app)
        assert after[:2] == ["Welcome", "KeyList"], (before, after)
        assert (str(view.query_one(Welcome).content), str(view.query_one(KeyList).content)) == said
        await send(pilot, screen, "/redo")
        await until(pilot, lambda: "Second answer." in str([a.source for a in view.query("Answer")]))
        await pilot.pause(0.2)
        assert kinds(app)[:2] == ["Welcome", "KeyList"], kinds(app)


async def test_the_help_said_between_two_turns_stays_between_them_and_after_the_first_once_undone(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("First answer."), answer("Second answer."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await send(pilot, screen, "one")
        await until(pilot, lambda: len(view.query(TurnLine)) == 1)
        await send(pilot, screen, "/hotkeys")
        await until(pilot, lambda: bool(view.query(KeyList)))
        await send(pilot, screen, "two")
        await until(pilot, lambda: len(view.query(TurnLine)) == 2)
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Undone" in str(list(view.children)[-1].render()))
        await pilot.pause(0.2)
        # the first turn's line stays under it (the redraw drew only the stored messages, and
        # took it away; see tests/tui/test_fidelity_undo_lines.py)
        assert kinds(app) == ["Welcome", "UserRow", "Answer", "TurnLine", "KeyList", "Notice"], kinds(app)
        await send(pilot, screen, "/redo")
        await until(pilot, lambda: "Second answer." in str([a.source for a in view.query("Answer")]))
        await pilot.pause(0.2)
        shown = kinds(app)  # the 'Undone' line said after the first turn stays there too
        assert shown[:6] == ["Welcome", "UserRow", "Answer", "TurnLine", "KeyList", "Notice"] and shown[
            6:8
        ] == ["UserRow", "Answer"], shown


async def test_a_new_session_does_not_keep_what_was_said_in_the_one_before(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("First answer."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await send(pilot, screen, "/help")
        await until(pilot, lambda: bool(view.query(KeyList)))
        await send(pilot, screen, "one")
        await until(pilot, lambda: len(view.query(TurnLine)) == 1)
        await send(pilot, screen, "/new")
        await until(pilot, lambda: "New session" in str(list(view.children)[-1].render()))
        await pilot.pause(0.2)
        assert kinds(app) == ["Notice"], kinds(app)
