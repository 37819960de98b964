"""The plan card (plan_exit's question) fits what the screen leaves its frame: at 50x16, beside the
busy line, its keys and the footer stay in sight and the plan scrolls."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import QuestionCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

PLAN = "# The plan\n\n" + "\n".join(f"{n}. step number {n}" for n in range(1, 13))


@pytest.mark.parametrize("size", [(80, 24), (50, 16)])
async def test_the_plan_card_fits_the_screen_and_its_plan_scrolls(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    backend.model.add(answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": PLAN})))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        await until(pilot, lambda: "3. No, keep planning" in "\n".join(screen_lines(app)))
        await until(pilot, lambda: "pgdn scroll" in "\n".join(screen_lines(app)))
        shown = screen_lines(app)
        assert "plan mode" in shown[-1], "\n".join(shown)  # the footer, on the last row
        assert any("or type an answer" in line for line in shown), shown
        assert "step number 12" not in "\n".join(shown)
        for _ in range(6):
            await pilot.press("pagedown")
        await until(pilot, lambda: "step number 12" in "\n".join(screen_lines(app)))
        shown = screen_lines(app)
        assert "plan mode" in shown[-1] and "3. No, keep planning" in "\n".join(shown)
        await pilot.press("3")  # no, keep planning: the card goes, plan mode stays on
        await until(pilot, lambda: screen.card is None)
        await until(pilot, lambda: "plan mode" in screen_lines(app)[-1])
