"""At 80x24 a card gives its rows to its content: the plan card's "Accept this plan? (saved to …)"
took two rows of the plan's and a blank one (it is the card's title now, where it was saved one
row cut to the width) and the card kept its usual share though only 3 rows were left for the
plan (below 6 it goes tight: the plan box gives way, the frame grows); the edit card's diff
showed mostly its headers (``--- a/…``, ``+++ b/…``, ``@@``), the changed lines a pgdn away."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard, QuestionCard, without_file_lines
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

PLAN = "# The plan\n\n" + "\n".join(f"{n}. step number {n}" for n in range(1, 6))


def shown(app: CircleApp) -> str:
    return "\n".join(screen_lines(app))


async def test_the_edit_cards_diff_shows_its_changed_lines_not_its_file_headers_at_80x24(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("", Call("write_file", {"file_path": "new.txt", "content": "a\nb\nc\n"})))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        await until(pilot, lambda: "3. Deny" in shown(app))
        rows = screen_lines(app)
        top = next(n for n, row in enumerate(rows) if "Allow this change? new.txt" in row)
        card = "\n".join(rows[top:])  # the conversation's row above shows the diff too
        assert "+a" in card and "+c" in card, card
        assert "+++ b/new.txt" not in card and "--- a/new.txt" not in card
        assert "pgdn scroll" in card


async def test_the_plan_card_shows_the_plan_first_at_80x24(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": PLAN})))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        await until(pilot, lambda: "3. No, keep planning" in shown(app))
        rows = screen_lines(app)
        top = next(n for n, row in enumerate(rows) if "● Accept this plan?" in row)  # the title
        card = "\n".join(rows[top:])
        assert "saved to /" in rows[top + 1] or "saved to /" in rows[top + 2], card  # one row
        assert "The plan" in card and "(saved to" not in card, card
        assert all(f"step number {n}" in card for n in range(1, 6)), card  # the whole plan, here
        assert "pgdn scroll" in card and "plan mode" in rows[-1]


def test_only_the_file_lines_before_a_hunk_go() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a/y\n+++ b/y\n keep\n--- a/z\n+++ b/z\n@@ -5 +5 @@\n-q\n+r"
    assert without_file_lines(diff) == "@@ -1,2 +1,2 @@\n--- a/y\n+++ b/y\n keep\n@@ -5 +5 @@\n-q\n+r"
