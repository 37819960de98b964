"""The footer and the turn lines say the cost the same way; /resume keeps the thinking level and
shows the resumed session's full totals (tokens and cost)."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.catalog import ModelInfo
from circle.domain.messages import Usage
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import InMemoryCatalog, answer

from .conftest import SIZE, FakeBackend, main_screen, send, until


async def test_resume_keeps_the_thinking_level_and_shows_the_sessions_totals(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one", usage=Usage(input=1000, output=500)), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/thinking high")
        await send(pilot, screen, "first")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        assert app.host is not None
        first = app.host.session.session_id
        before = str(screen.footer.content)
        assert "1.5k tokens" in before and "$2.00" in before and "thinking high" in before
        await send(pilot, screen, "/new")
        await send(pilot, screen, f"/resume {first}")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id == first)
        await pilot.pause()
        assert str(screen.footer.content) == before


async def test_an_unpriced_model_says_cost_unknown_in_the_footer_as_under_turns(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.catalog = InMemoryCatalog([ModelInfo(id="scripted", provider="p", context_window=100_000)])
    backend.model.add(answer("one"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        assert "cost unknown" in str(screen.footer.content)
        await send(pilot, screen, "first")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "cost unknown" in str(screen.conversation.query_one(TurnLine).content)
        assert "cost unknown" in str(screen.footer.content)
