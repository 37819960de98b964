"""Narrow terminals: the footer keeps context, tokens, cost and the mode by shortening the model's
name first; an approval card for a long diff keeps its options in sight."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.domain.catalog import ModelInfo
from circle.entrypoints.tui import _format
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, InMemoryCatalog, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, texts, until

LONG = "openrouter/anthropic/claude-sonnet-4-5-20250929-experimental"


@pytest.mark.parametrize("size", [(80, 24), (50, 16)])
async def test_a_long_model_name_gives_way_so_the_footer_keeps_context_tokens_cost_and_mode(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    backend.probe_models = ("model-a", LONG)
    backend.model.add(answer("one"))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "first")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, f"/models {LONG}")
        await until(pilot, lambda: f"Model: {LONG}" in texts(screen))
        await pilot.press("shift+tab")
        await until(pilot, lambda: str(screen.footer.content).endswith("accept-edits"))
        footer = str(screen.footer.content)
        assert "ctx 0.0% · 15 tok · $0.02 · accept-edits" in footer
        assert len(footer) <= size[0] - 4
        if size[0] == 80:
            assert "…" in footer and "openrouter/" not in footer
        shown = [line for line in screen_lines(app) if "accept-edits" in line]
        assert shown and shown[-1].rstrip().endswith("accept-edits")
        await pilot.resize_terminal(140, 45)
        await until(pilot, lambda: str(screen.footer.content).startswith(LONG))


async def test_at_50_columns_an_unpriced_models_footer_shows_the_mode_whole(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.catalog = InMemoryCatalog([ModelInfo(id="scripted", provider="p", context_window=100_000)])
    backend.model.add(answer("one"))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("shift+tab")
        await until(pilot, lambda: "accept-ed" in str(screen.footer.content))
        await send(pilot, screen, "first")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        footer = str(screen.footer.content)
        assert footer.endswith(" · accept-edits") and "…" not in footer
        assert footer == "ctx 0.0% · 15 tok · $? · accept-edits"
        shown = [line for line in screen_lines(app) if "accept-edits" in line]
        assert shown and shown[-1].rstrip().endswith("accept-edits")


def test_the_footer_drops_cost_tokens_and_context_before_it_cuts_the_mode() -> None:
    def line(width: int, amount: float | None = None) -> str:
        return _format.footer_line(
            model="scripted",
            thinking=None,
            context_pct=0.0,
            session_tokens=105,
            session_cost=amount,
            mode="accept-edits",
            width=width,
        )

    assert line(61) == "scripted · ctx 0.0% · 105 tok · cost unknown · accept-edits"
    assert line(46) == "ctx 0.0% · 105 tok · $? · accept-edits"
    assert line(46, 0.02) == "ctx 0.0% · 105 tok · $0.02 · accept-edits"
    assert line(36) == "ctx 0.0% · 105 tok · accept-edits"
    assert line(30) == "ctx 0.0% · accept-edits"
    assert line(12) == "accept-edits"
    assert line(10) == "accept-ed…"


def test_the_footer_cuts_the_model_name_in_the_middle_before_anything_else() -> None:
    line = _format.footer_line(
        model="anthropic/claude-sonnet-4-5-20250929",
        thinking="high",
        context_pct=12.3,
        session_tokens=45_000,
        session_cost=1.23,
        width=77,
    )
    assert line == "claude-sonnet-4-5-20250929 · thinking high · context 12% · 45k tokens · $1.23"
    line = _format.footer_line(
        model="anthropic/claude-sonnet-4-5-20250929",
        thinking="high",
        context_pct=12.3,
        session_tokens=45_000,
        session_cost=1.23,
        mode="accept-edits",
        width=76,
    )
    assert line == "claude-son…-20250929 · think high · ctx 12% · 45k tok · $1.23 · accept-edits"
    assert _format.middle_cut("claude-sonnet-4-5-20250929", 16) == "claude-s…0250929"


@pytest.mark.parametrize("size", [(80, 24), (50, 16)])
async def test_an_approval_card_for_a_long_diff_keeps_its_options_in_sight(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    from circle.entrypoints.tui.widgets.cards import ApprovalCard

    content = "".join(f"line {i}\n" for i in range(60))
    backend.model.add(
        answer("", Call("write_file", {"file_path": "/tmp/outside.txt", "content": content})),
        answer("No."),
    )
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write it")
        await card_ready(pilot, screen, ApprovalCard)
        await until(pilot, lambda: "3. Deny" in "\n".join(screen_lines(app)))
        shown = "\n".join(screen_lines(app))
        assert "1. Allow once" in shown and "@@ " in shown and "pgup pgdn" in shown
        await pilot.press("pagedown", "pagedown")
        await until(pilot, lambda: "@@ " not in "\n".join(screen_lines(app)))
        assert "3. Deny" in "\n".join(screen_lines(app))
        await pilot.press("n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
