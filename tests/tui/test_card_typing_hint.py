"""Where typing at a card goes is said in the card's keys line, and nothing covers its options: at
80x24 the toast ``What you type goes to the input box: enter sends it, the card waits.`` lay over
``2. Allow for this session`` and the keys line (``│ 1 once · 2 this session · n deny · e▌ enter
sends it, the card waits.``), at 50x16 over every option and the keys. Once the box is empty and
goes, the line gives the card's own keys again."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from textual.pilot import Pilot

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until
from .test_card_after_typing import told
from .test_card_keys_typing import keys

OPTIONS = ("1. Allow once", "2. Allow for this session", "3. Deny")


@asynccontextmanager
async def card_at(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> AsyncIterator[tuple[CircleApp, Pilot[object], MainScreen, ApprovalCard]]:
    """The app at ``size``, toasts shown, once an execute call's card (``touch x``) takes keys."""
    backend.model.add(answer("", Call("execute", {"command": "touch x"})), answer("Done."))
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        await card_ready(pilot, screen, ApprovalCard)
        assert isinstance(screen.card, ApprovalCard)
        yield app, pilot, screen, screen.card


def keys_row(lines: list[str]) -> str:
    """The card's row under its last option."""
    at = max(index for index, line in enumerate(lines) if "3. Deny" in line)
    return lines[at + 1].strip(" │")


@pytest.mark.parametrize(
    ("size", "hint"),
    [
        ((140, 40), "what you type goes to the input box: enter sends it, the card waits · esc stop"),
        ((80, 24), "what you type goes to the box: enter sends it, the card waits · esc stop"),
        ((50, 16), "enter sends the words, the card waits · esc"),
    ],
)
async def test_typing_at_a_card_is_told_in_its_keys_line_and_its_options_show(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int], hint: str
) -> None:
    async with card_at(make_app, backend, size) as (app, pilot, screen, card):
        keys(app, "no wait")
        await until(pilot, lambda: screen.composer.text == "no wait")
        await pilot.pause(0.5)
        lines = screen_lines(app)
        shown = "\n".join(lines)
        assert not told(app), shown  # no toast over the card
        for option in OPTIONS:
            assert any(line.strip(" │").rstrip().endswith(option) for line in lines), shown
        assert keys_row(lines).strip() == hint, shown
        assert not card.answered


async def test_the_keys_line_gives_the_cards_keys_again_once_the_box_goes(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with card_at(make_app, backend, (80, 24)) as (app, pilot, screen, _card):
        before = keys_row(screen_lines(app)).strip()
        keys(app, "no")
        await until(pilot, lambda: screen.composer.text == "no")
        await pilot.press("ctrl+u")
        await until(pilot, lambda: not screen.composer.display)
        await pilot.pause(0.2)
        assert (
            keys_row(screen_lines(app)).strip()
            == before
            == "1 once · 2 this session · n deny · esc stop · ↑↓ enter · pgup pgdn scroll"
        )


async def test_words_typed_before_the_card_are_told_in_its_keys_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """The box above a card that came while words waited in it (it shows once the typing
    paused): the keys line gives the card's keys, which answer it, and says enter sends the words."""
    from .test_card_keys_safety import Held

    model = Held([answer("", Call("execute", {"command": "touch x"})), answer("Done.")])
    backend.model = model
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        keys(app, "wait")
        await until(pilot, lambda: screen.composer.text == "wait")
        model.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        screen.composer.last_typed = float("-inf")  # the person stopped typing: the card shows
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.2)
        row = keys_row(screen_lines(app)).strip()
        assert row.startswith("enter sends") and "1 once · 2 session · n deny · esc stop" in row
