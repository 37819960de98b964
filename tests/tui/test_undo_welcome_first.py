"""/undo in a new session whose tail is drawn again in slices (two long answers): the welcome
stays first, above every message's rows, as the slices go in above the rows on screen."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine, UserRow
from circle.entrypoints.tui.widgets.welcome import Welcome
from circle.testing import answer

from .conftest import FakeBackend, main_screen, send, until

LONG = "\n".join(f"Line {n} of the long answer." for n in range(1, 121))


async def test_the_welcome_stays_above_the_rows_drawn_in_slices_after_undo(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """The welcome was put back above the first row on screen, and the slices drawn after went
    in above it: 'one', 'two' and 'long one' showed above the welcome."""
    backend.model.add(answer("ok one."), answer("ok two."), answer(LONG), answer(LONG), answer("ok three."))
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        view = screen.conversation
        for n, text in enumerate(("one", "two", "long one", "long two", "three"), start=1):
            await send(pilot, screen, text)
            await until(pilot, lambda n=n: len(view.query(TurnLine)) == n)
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Undone" in str(list(view.children)[-1].render()))
        await until(pilot, lambda: not view.drawing_above)
        await pilot.pause(0.3)
        rows = list(view.children)
        assert isinstance(rows[0], Welcome), [type(row).__name__ for row in rows]
        said = [str(row.render()) for row in rows if isinstance(row, UserRow)]
        assert [text.split("›")[-1].strip() for text in said] == ["one", "two", "long one", "long two"]
        assert view.following and view.scroll_y == view.max_scroll_y
