"""At narrow widths the line under a turn keeps to one line: an unknown cost, the word "tokens", a
known cost, the token count and the time give way in turn; the mark and the state word stay, and
what gave way comes back when the terminal is widened."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.domain.catalog import ModelInfo
from circle.entrypoints.tui import _format
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, Hang, InMemoryCatalog, answer

from .conftest import FakeBackend, FixedClock, main_screen, screen_lines, send, until

CANCELLED = "⏹ 2.6s · ~191 tokens · cost unknown · cancelled"


@pytest.mark.parametrize(
    ("line", "width", "fitted"),
    [
        (CANCELLED, 47, CANCELLED),
        (CANCELLED, 46, "⏹ 2.6s · ~191 tokens · cancelled"),
        (CANCELLED, 30, "⏹ 2.6s · ~191 tok · cancelled"),
        (CANCELLED, 20, "⏹ 2.6s · cancelled"),
        (CANCELLED, 12, "⏹ cancelled"),
        ("✓ 3.2s · 1.2k tokens · $0.012", 28, "✓ 3.2s · 1.2k tok · $0.012"),
        ("✓ 3.2s · 1.2k tokens · $0.012", 20, "✓ 3.2s · 1.2k tok"),
        ("! 1m 5s · 12k tokens · $1.20 · incomplete", 30, "! 1m 5s · 12k tok · incomplete"),
        ("⏹ cancelled", 40, "⏹ cancelled"),
    ],
)
def test_a_turn_line_gives_up_its_least_telling_parts_first(line: str, width: int, fitted: str) -> None:
    assert _format.fit_turn_line(line, width) == fitted


async def test_a_cancelled_turns_line_keeps_to_one_line_at_50_columns_and_comes_back_whole(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    backend.catalog = InMemoryCatalog([ModelInfo(id="scripted", provider="p", context_window=100_000)])
    backend.mode = "auto"
    backend.processes = FakeProcessRunner({"sleep 100": Hang("working…\n")}, files=backend.files)
    backend.model.add(answer("", Call("execute", {"command": "sleep 100"}), thinking="Wait for it " * 20))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "wait")
        await until(pilot, lambda: "execute  sleep 100" in screen.busy.activity)
        clock.now += 75
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        whole = screen.conversation.query_one(TurnLine).text
        assert whole == "⏹ 1m 15s · 15 tokens · cost unknown · cancelled"
        await pilot.pause(0.2)
        shown = [line.strip() for line in screen_lines(app)]
        turn = [line for line in shown if line.startswith("⏹ ") and "tok" in line]
        assert turn == ["⏹ 1m 15s · 15 tokens · cancelled"], shown
        assert "cancelled" not in [line.strip("▁▂▃▄▅▆▇█ ") for line in shown]
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: any(line.strip() == whole for line in screen_lines(app)))
        await pilot.resize_terminal(50, 16)
        await until(pilot, lambda: not any(line.strip() == whole for line in screen_lines(app)))
        assert any(line.strip().startswith("⏹ ") and line.strip().endswith(" · cancelled") for line in shown)
