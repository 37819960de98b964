"""/undo keeps the lines said before the turn it takes back (the turn lines, a notice, an earlier
'Undone' line), whether it draws the conversation again or changes only the last turn's rows."""

from __future__ import annotations

from collections.abc import Callable

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
