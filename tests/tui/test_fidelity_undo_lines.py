"""/undo keeps the lines said before the turn it takes back (the turn lines, a notice, an earlier
'Undone' line), whether it draws the conversation again or changes only the last turn's rows."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widget import Widget

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Answer, Notice, TurnLine, UserRow
from circle.entrypoints.tui.widgets.welcome import Welcome
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


def rows(app: CircleApp) -> list[str]:
    """The conversation's rows below the welcome: the person's, answers, and the lines."""
    said: list[str] = []
    for row in main_screen(app).conversation.children:
        if isinstance(row, Welcome):
            continue
        if isinstance(row, UserRow):
            said.append(f"you {str(row.content).split(' ', 1)[1].strip()}")
        elif isinstance(row, Answer):
            said.append(f"answer {row.source}")
        elif isinstance(row, TurnLine):
            said.append("turn " + row.text.split(" · ")[0][0])
        elif isinstance(row, Notice):
            said.append(f"notice {str(row.content).split(':')[0]}")
        else:
            said.append(type(row).__name__)
    return said


def first_row(app: CircleApp) -> Widget:
    return main_screen(app).conversation.query(UserRow).first()


async def test_both_ways_of_undoing_keep_the_lines_said_before_the_turn_taken_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(*(answer(f"Answer {n}.") for n in ("one", "two", "three", "three again")))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        await send(pilot, screen, "one")
        await until(pilot, lambda: len(view.query(TurnLine)) == 1)
        await send(pilot, screen, "/thinking high")
        await until(pilot, lambda: any("hinking" in str(n.content) for n in view.query(Notice)))
        await send(pilot, screen, "two")
        await until(pilot, lambda: len(view.query(TurnLine)) == 2)
        await send(pilot, screen, "three")
        await until(pilot, lambda: len(view.query(TurnLine)) == 3)
        live = rows(app)
        kept = live[: live.index("you three")]
        first = ["you one", "answer Answer one.", "turn ✓", "notice Thinking"]
        assert kept == [*first, "you two", "answer Answer two.", "turn ✓"], live

        await send(pilot, screen, "/undo")  # rows shown live: drawn again from the stored messages
        await until(pilot, lambda: rows(app)[-1:] == ["notice Undone 'three'"])
        await pilot.pause(0.2)
        assert rows(app) == [*kept, "notice Undone 'three'"]

        await send(pilot, screen, "three")
        await until(pilot, lambda: len(view.query(TurnLine)) == 3)
        await send(pilot, screen, "/redo")  # nothing to redo after a new message
        await until(pilot, lambda: "notice Nothing to redo" in rows(app))
        before = first_row(app)
        await send(pilot, screen, "/undo")  # the rows drawn before: only the last turn's change
        await until(pilot, lambda: rows(app).count("notice Undone 'three'") == 2)
        await pilot.pause(0.2)
        assert first_row(app) is before  # changed in place, not drawn again
        assert rows(app) == [*kept, "notice Undone 'three'", "notice Undone 'three'"]


@pytest.mark.parametrize("way", ["ctrl+home", "scrolling up"])
async def test_the_lines_of_turns_above_a_long_sessions_tail_come_back_with_their_turns(
    make_app: Callable[..., CircleApp], backend: FakeBackend, way: str
) -> None:
    turns = 30  # 60 messages: far more than the tail a redraw draws first at this height
    backend.model.add(*(answer(f"Answer {n}.") for n in range(turns)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        for n in range(turns):
            await send(pilot, screen, f"turn {n}")
            await until(pilot, lambda n=n: len(view.query(TurnLine)) == n + 1)  # type: ignore[misc]
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: rows(app)[-1:] == [f"notice Undone 'turn {turns - 1}'"])
        assert view.earlier is not None  # the first turns wait above the tail
        if way == "ctrl+home":  # all at once
            await pilot.press("ctrl+home")
        while view.earlier is not None:  # a batch each time the view reaches its top
            view.scroll_home(animate=False)
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        said = [[f"you turn {n}", f"answer Answer {n}.", "turn ✓"] for n in range(turns - 1)]
        assert rows(app) == [*(row for turn in said for row in turn), f"notice Undone 'turn {turns - 1}'"]
