"""A resumed session draws each row as the live view left it: a call stopped by esc (with the last
lines it had printed, kept with its result), one stopped on its card, a denied one (the parts a
stored session keeps: not the turn lines and notices)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from textual.widgets import Static

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import Answer, Notice, Thinking, ToolRow, TurnLine
from circle.entrypoints.tui.widgets.earlier import Earlier
from circle.entrypoints.tui.widgets.welcome import Welcome
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, until


def drawn(app: CircleApp) -> list[str]:
    """Each stored part's row as it shows, in order: its kind, then its text."""
    rows = []
    for row in main_screen(app).conversation.children:
        if isinstance(row, (TurnLine, Notice, Earlier, Welcome)):
            continue
        if isinstance(row, ToolRow):
            rows.append(f"tool {row.header.content}\n{row.body.content}")
        elif isinstance(row, Thinking):
            rows.append(f"thinking {row.title}")
        elif isinstance(row, Answer):
            rows.append(f"answer {row.source}")
        elif isinstance(row, Static):
            rows.append(f"{type(row).__name__} {row.content}")
        else:
            rows.append(type(row).__name__)
    return rows


async def resumed(app: CircleApp, pilot: object) -> list[str]:
    """What the session shows once opened again (/new, then /resume)."""
    assert app.host is not None
    first = app.host.session.session_id
    screen = main_screen(app)
    await send(pilot, screen, "/new")
    await until(pilot, lambda: app.host is not None and app.host.session.session_id != first)
    await send(pilot, screen, f"/resume {first}")
    await until(pilot, lambda: app.host is not None and app.host.session.session_id == first)
    await until(pilot, lambda: bool(drawn(app)))
    await asyncio.sleep(0.2)
    return drawn(app)


def _stop_running(backend: FakeBackend) -> None:
    backend.mode = "auto"
    printed = "".join(f"step {i}\n" for i in range(9))
    backend.processes = FakeProcessRunner({"sleep 100": Hang(printed)}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"})))


def _on_card(backend: FakeBackend) -> None:
    backend.files.put("/work/old.txt", "old line\n")
    backend.model.add(answer("", Call("write_file", {"file_path": "old.txt", "content": "new\n"})))


CASES = {
    "a command stopped with esc": (_stop_running, "escape"),
    "a call stopped on its card with esc": (_on_card, "escape"),
    "a call denied on its card": (_on_card, "n"),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_resumed_session_draws_its_rows_as_the_live_view_left_them(
    make_app: Callable[..., CircleApp], backend: FakeBackend, case: str
) -> None:
    prepare, key = CASES[case]
    prepare(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(
            pilot,
            lambda: isinstance(screen.card, ApprovalCard) or "sleep 100" in screen.busy.activity,
        )
        if prepare is _stop_running:  # it has printed what it prints: its last lines show
            await until(pilot, lambda: "step 8" in str(screen.conversation.query_one(ToolRow).body.content))
        else:
            await card_ready(pilot, screen)
        await pilot.pause(0.1)
        await pilot.press(key)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)
        live = drawn(app)
        again = await resumed(app, pilot)
        assert again == live
        if prepare is _stop_running:
            assert "step 8" in again[-1] and "… 4 lines above" in again[-1], again[-1]


async def test_a_compacted_sessions_summary_is_not_drawn_as_the_persons_message(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.domain.compaction import summary_message
    from circle.domain.messages import Message, StopReason, TextPart

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        said = Message(role="assistant", parts=(TextPart(text="Understood."),), stop_reason=StopReason.END)
        await screen.conversation.redraw([summary_message("They set up the project."), said])
        rows = drawn(app)
        assert not any(row.startswith("UserRow") for row in rows), rows
        notices = [str(n.content) for n in screen.conversation.query(Notice)]
        assert any("They set up the project." in said for said in notices), notices
