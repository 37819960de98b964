"""A card's keys line stays one line at a narrow width, in shorter words: at 50x16 the approval
card's ``1 once · 2 this session · n deny · esc stop`` / ``· ↑↓ enter · pgup pgdn scroll`` took
two rows (three at 40 columns) from what it asks about."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard, QuestionCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

WIDE = "1 once · 2 this session · n deny · esc stop · ↑↓ enter · pgup pgdn scroll"


def under(lines: list[str], option: str) -> list[str]:
    """The card's rows from its last option's to its bottom border."""
    at = max(index for index, line in enumerate(lines) if option in line)
    end = next(index for index in range(at, len(lines)) if "╰" in lines[index])
    return [line.strip(" │") for line in lines[at + 1 : end]]


@pytest.mark.parametrize(
    ("size", "keys"),
    [
        ((140, 40), WIDE),
        ((80, 24), WIDE),
        ((50, 16), "1-3 pick · esc stop · pgup pgdn scroll"),
        ((40, 16), "1-3 pick · esc stop · pgup pgdn"),
    ],
)
async def test_an_approval_cards_keys_take_one_line_at_any_width(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int], keys: str
) -> None:
    backend.model.add(answer("", Call("execute", {"command": "touch x"})), answer("Done."))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.1)
        lines = screen_lines(app)
        shown = "\n".join(lines)
        assert "$ touch x" in shown and "1. Allow once" in shown, shown
        assert under(lines, "3. Deny") == [keys], shown
        assert lines[-1].strip() and "──" not in lines[-1], shown  # the footer keeps the last row


@pytest.mark.parametrize("size", [(50, 16), (40, 16)])
async def test_a_questions_keys_take_one_line_at_a_narrow_width(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    ask = {"questions": [{"question": "Which colour?", "options": ["red", "green", "blue"]}]}
    backend.model.add(answer("", Call("question", ask)), answer("Done."))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "ask me")
        await card_ready(pilot, screen, QuestionCard)
        await pilot.pause(0.1)
        lines = screen_lines(app)
        rows = under(lines, "3. blue")
        assert len(rows) == 1 and rows[0].startswith("1-9 ↑↓ enter · esc"), "\n".join(lines)


def test_a_keys_line_is_drawn_in_the_longest_wording_that_fits() -> None:
    from circle.entrypoints.tui.widgets.card_keys import APPROVAL_KEYS, KeysLine, pick

    assert pick(APPROVAL_KEYS, 200) == WIDE
    assert pick(APPROVAL_KEYS, 44) == "1-3 pick · esc stop · pgup pgdn scroll"
    assert pick(APPROVAL_KEYS, 3) == "1-3 · esc"  # the last shows whole, never cut
    assert str(KeysLine(APPROVAL_KEYS)) == WIDE
    assert all(len(a) > len(b) for a, b in pairwise(APPROVAL_KEYS))
