"""A card answered while its fitting waits for the next frame: the fitting finds it gone and does
nothing (it raised NoScreen, and the interface ended)."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.card_fit import fit_card
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, until


async def test_a_card_fitted_after_it_went_is_left_alone(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(
        answer("", Call("write_file", {"file_path": "new.txt", "content": "x\n"})), answer("ok")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        assert card is not None
        await pilot.press("1")
        await until(pilot, lambda: card.parent is None and bool(screen.conversation.query(TurnLine)))
        fit_card(card)  # what a refresh callback queued before the card went does
