"""How /tree and the find bar look, with a scripted model, a fixed clock and a fixed size."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.tree import TreeScreen
from circle.entrypoints.tui.widgets.find_bar import FindBar
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, until

SnapCompare = Callable[..., bool]


async def settle(pilot: Pilot[object]) -> None:
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()


async def branched(pilot: Pilot[object], app: CircleApp) -> None:
    """Two turns, a branch from the first answer with a turn of its own, a label, and /tree open."""
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    for text in ("plan the change", "now write it"):
        await send(pilot, screen, text)
        await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
    await send(pilot, screen, "/tree")
    await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
    await pilot.press("up", "up", "enter")
    await until(pilot, lambda: app.screen is screen and not screen.host.session.is_busy)
    await send(pilot, screen, "try another way")
    await until(
        pilot, lambda: len(screen.host.session.conversation.messages) == 4 and not screen.busy.display
    )
    await send(pilot, screen, "/tree")
    await until(pilot, lambda: isinstance(app.screen, TreeScreen) and bool(app.screen.rows))
    await pilot.press("up", "up", "up", "up", "l", *"the plan", "enter")
    await until(pilot, lambda: isinstance(app.screen, TreeScreen) and "the plan" in app.screen.rows[1].tags)
    await settle(pilot)


def script(backend: FakeBackend) -> None:
    backend.model.add(answer("Here is a plan."), answer("Written."), answer("Another way, done."))


def test_the_tree(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    script(backend)
    app = make_app(session_id="snapshot-tree")

    async def run_before(pilot: Pilot[object]) -> None:
        await branched(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_tree_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    script(backend)
    app = make_app(session_id="snapshot-tree")

    async def run_before(pilot: Pilot[object]) -> None:
        await branched(pilot, app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_find_bar(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for text in ("find the needle", "a NEEDLE again"):
            await send(pilot, screen, text)
            await until(pilot, lambda: not screen.host.session.is_busy and not screen.busy.display)
        await pilot.press("ctrl+f", *"needle", "enter")
        await until(pilot, lambda: str(screen.query_one(FindBar).count.content) == "2 of 2")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
