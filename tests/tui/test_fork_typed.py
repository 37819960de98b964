"""/fork and /tree at a person's message give back what the person typed, never the notices that
went to the model with it (plan mode's, a command's output)."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen
from circle.entrypoints.tui.screens.tree import TreeScreen
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, until

TYPED = "after mode cycle"


async def _sent_in_plan_mode(pilot: object, app: CircleApp, backend: FakeBackend, *, index: int = 0) -> str:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    backend.model.add(answer("planned"))
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    await pilot.press("shift+tab", "shift+tab")
    await until(pilot, lambda: screen.host.plan_mode)
    await send(pilot, screen, TYPED)
    await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
    sent = screen.host.session.conversation.messages[index].text
    assert "plan mode" in sent and sent != TYPED  # the model was told
    return screen.host.session.session_id


async def test_fork_at_a_message_sent_in_plan_mode_gives_back_only_the_typed_text(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        source = await _sent_in_plan_mode(pilot, app, backend)
        screen = main_screen(app)
        await send(pilot, screen, "/fork")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("down", "enter")
        await until(pilot, lambda: screen.host.session.session_id != source)
        await until(pilot, lambda: bool(screen.composer.text))
        assert screen.composer.text == TYPED


async def test_tree_at_a_message_sent_in_plan_mode_gives_back_only_the_typed_text(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "first")
        await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        await _sent_in_plan_mode(pilot, app, backend, index=2)
        await send(pilot, screen, "/tree")
        await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
        await pilot.press("up", "enter")  # the message sent in plan mode
        await until(pilot, lambda: app.screen is screen and bool(screen.composer.text))
        assert screen.composer.text == TYPED
