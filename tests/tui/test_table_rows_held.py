"""A streamed table shows a row once its line ends: a row half streamed would lay the table's
columns out again at each delta, and the terminal would get all its rows again each time."""

from __future__ import annotations

from collections.abc import Callable

from circle.application.events import MessageUpdated, TurnStarted
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Answer
from circle.entrypoints.tui.widgets.markdown import held_row

from .conftest import FakeBackend, main_screen, until

TABLE = "Counts:\n\n| name | count |\n|---|---:|\n| first | 12 |\n"


def drawn(screen: object) -> str:
    rows = screen.conversation.query(Answer)  # type: ignore[attr-defined]
    return "".join(str(row.visual) for row in rows)


async def test_a_streamed_table_row_shows_once_its_line_ends(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        app.sink.emit(MessageUpdated(kind="text", delta=TABLE, content_index=0))
        await until(pilot, lambda: "first" in drawn(screen))
        for delta in ("| seco", "nd_row_is_much_longer | 3"):
            app.sink.emit(MessageUpdated(kind="text", delta=delta, content_index=0))
            await pilot.pause(0.2)  # more than a draw's interval (DRAWS_PER_S)
        assert "seco" not in drawn(screen) and "first" in drawn(screen)
        app.sink.emit(MessageUpdated(kind="text", delta="4 |\n\nAfter.", content_index=0))
        await until(pilot, lambda: "After." in drawn(screen))
        assert "second_row_is_much_longer" in drawn(screen)


def test_only_a_table_row_is_held() -> None:
    assert held_row("text\n| a | b") == "text\n"
    assert held_row("text\nmore words") == "text\nmore words"
    assert held_row("| a | b |\n") == "| a | b |\n"
