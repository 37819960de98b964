"""Thinking cut by esc before any text is stored: a resumed session draws it cut, as the live view did."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.model import ThinkingDelta
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Thinking, TurnLine

from .conftest import SIZE, FakeBackend, main_screen, send, until
from .test_resumed_rows import resumed
from .test_stopped_answer import StallsAfter


def _turn_lines(app: CircleApp) -> list[str]:
    return [str(row.content) for row in main_screen(app).conversation.query(TurnLine)]


async def test_thinking_cut_by_esc_is_drawn_cut_when_the_session_is_resumed(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(40))
    backend.model = StallsAfter([[ThinkingDelta(text=words[:100]), ThinkingDelta(text=words[100:])]])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: screen.busy.tokens == len(words) // 4)
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))
        assert screen.conversation.query_one(Thinking).title == "Thought (40 words, cut)"
        rows = await resumed(app, pilot)
        assert rows[1:] == ["thinking Thought (40 words, cut)"], rows
        assert rows[0].startswith("UserRow")
        await until(pilot, lambda: _turn_lines(app) == ["⏹ cancelled"])
        assert main_screen(app).conversation.query_one(Thinking).collapsed
