"""/tree opened at 50 columns cuts its rows to the list's width, and cuts them again when the
terminal is widened or narrowed: a wider terminal shows more of each message, one line a row; the
keys line is said short where it would wrap."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import OptionList

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.tree import KEYS, SHORT_KEYS, TreeScreen
from circle.testing import answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until

ASKED = "plan the change to the parser so that every long line of the file is read whole at last"
ANSWERED = "Here is a plan: read the file a block at a time and keep the partial line for the next block."


def tree_lines(app: CircleApp) -> list[str]:
    return [line for line in screen_lines(app) if " you " in line or " circle " in line]


async def test_the_trees_rows_are_cut_again_when_the_terminal_is_widened(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(ANSWERED))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, ASKED)
        await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        tree = app.screen
        await pilot.pause(0.2)
        rows = tree_lines(app)
        assert len(rows) == 2 and all("…" in row and len(row.rstrip()) <= 50 for row in rows), rows
        assert tree.query_one(OptionList).virtual_size.height == 2
        assert any(SHORT_KEYS in line for line in screen_lines(app))  # the keys on one line too
        assert not any("esc close" in line for line in screen_lines(app))
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: any(ASKED in row for row in tree_lines(app)))
        assert any(ANSWERED in row for row in tree_lines(app)), tree_lines(app)
        assert any(KEYS in line for line in screen_lines(app))
        await pilot.resize_terminal(50, 16)
        await until(pilot, lambda: not any(ASKED in row for row in tree_lines(app)))
        rows = tree_lines(app)
        assert len(rows) == 2 and all("…" in row for row in rows), rows
        assert tree.query_one(OptionList).virtual_size.height == 2
        await pilot.press("enter")  # the rows still pick what they did
        await until(pilot, lambda: app.screen is screen)
