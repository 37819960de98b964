"""How the plan card looks at 50x16: fitted to what the footer and the busy line leave, the plan
box giving way, the plan scrolled inside the card."""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import VerticalScroll
from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import QuestionCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until
from .test_snapshots import SnapCompare, settle

PLAN = "# The plan\n\n" + "\n".join(f"{n}. step number {n}" for n in range(1, 9))


def test_the_plan_card_at_50x16(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": PLAN})))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        await until(pilot, lambda: "pgdn scroll" in "\n".join(screen_lines(app)))
        card = screen.card
        await until(pilot, lambda: app.focused is not None and card in app.focused.ancestors_with_self)
        # a page down scrolls only once the card is fitted and its plan box can scroll
        plan_box = card.query_one(".card-question-scroll", VerticalScroll)
        await until(pilot, lambda: plan_box.max_scroll_y > 0)
        await pilot.press("pagedown")
        await until(pilot, lambda: "step number" in "\n".join(screen_lines(app)))
        screen.busy.hide()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(50, 16), run_before=run_before)
