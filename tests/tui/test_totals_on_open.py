"""A session opened again shows the totals it showed before it was closed: everything its model
calls used, on the branch shown and off it (a /tree branch left behind, a turn undone, what a
compaction summarized and the compaction's own call)."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.messages import Usage
from circle.entrypoints.tui import _branches
from circle.entrypoints.tui.app import CircleApp
from circle.testing import answer

from .conftest import SIZE, FakeBackend, main_screen, send, texts, until


def _used(tokens: int) -> Usage:
    return Usage(input=tokens - 100, output=100)


async def test_the_totals_on_open_are_the_totals_before_closing_after_a_compaction_a_branch_and_an_undo(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(
        answer("one", usage=_used(3_000)),
        answer("two", usage=_used(4_000)),
        answer("three", usage=_used(5_000)),
        answer("The summary.", usage=_used(6_000)),  # the compaction's own call
        answer("four", usage=_used(1_500)),
        answer("on the branch", usage=_used(2_000)),
        answer("undone", usage=_used(2_500)),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        for text in ("first", "second", "third"):
            await send(pilot, screen, text)
            await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        await send(pilot, screen, "/compact")
        await until(pilot, lambda: "Compacted" in texts(screen) and not screen.busy.display)
        await send(pilot, screen, "fourth")
        await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        host = screen.host
        stored = await host.session.conversation.checkpoints()
        one = next(cp for cp in stored if cp.message.role == "assistant" and cp.message.text == "one")
        await _branches.go_on_from(host, one.id)  # /tree: on from the first answer, the rest left behind
        for text in ("on a branch", "to undo"):
            await send(pilot, screen, text)
            await until(pilot, lambda: not screen.busy.display and not screen.host.session.is_busy)
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "taken back" in texts(screen))
        await pilot.pause()
        screen.refresh_footer()
        live = str(screen.footer.content)
        assert "24k tokens" in live, live  # 3 + 4 + 5 + 6 + 1.5 + 2 + 2.5: all the calls made
        session_id = host.session.session_id
        await send(pilot, screen, "/new")
        await send(pilot, screen, f"/resume {session_id}")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id == session_id)
        await pilot.pause()
        assert str(screen.footer.content) == live
