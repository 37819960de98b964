"""A card's own keys answer it again once the typing of the words above it has paused, and its
keys line says which: after 'draft two', a pause, a stray 'y', '1' went into the box
('│draft twoy11') however long after, and the line said typing goes to the box while a draft typed
before the card let '1' approve it. Once ctrl+u let go of the words, a digit typed within 1.2 s
came back in the box as '│1', and the enter after it sent '1' to the model."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens._keys_at_card import LETTER_WAIT_S
from circle.entrypoints.tui.widgets.card_keys import APPROVAL_KEYS, paused_keys, typing_keys
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until
from .test_card_keys_typing import NEW_FILE, keys, ready_card
from .test_card_typing_hint import keys_row

TYPING = typing_keys("esc stop")
PAUSED = paused_keys(APPROVAL_KEYS)


def says(app: CircleApp) -> str:
    """What the card's keys line says: ``typing`` (goes to the box), ``paused`` (its own keys)."""
    row = keys_row(screen_lines(app)).strip()
    return "typing" if row in TYPING else "paused" if row in PAUSED and "1 once" in row else row


async def test_after_a_stray_key_and_a_pause_the_cards_keys_answer_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        box = screen.composer
        keys(app, "draft two")
        await until(pilot, lambda: box.text == "draft two")
        await pilot.pause(0.1)
        assert says(app) == "typing"
        await pilot.pause(TYPING_PAUSE_S + 0.1)
        assert says(app) == "paused"
        keys(app, "y")  # a stray key: not the card's
        await until(pilot, lambda: box.text == "draft twoy")
        await pilot.pause(0.1)
        assert says(app) == "typing"
        await pilot.pause(TYPING_PAUSE_S + 0.1)
        assert says(app) == "paused"
        await pilot.press("down")
        await until(pilot, lambda: card.selected == 1)
        await pilot.press("up")
        await until(pilot, lambda: card.selected == 0)
        keys(app, "1")
        await until(pilot, lambda: card.answered, within=3)
        await until(pilot, lambda: NEW_FILE in backend.files.files)
        assert box.text == "draft twoy"


async def test_a_digit_typed_on_in_the_words_stays_with_them(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "draft")
        await until(pilot, lambda: screen.composer.text == "draft")
        await pilot.pause(0.3)
        keys(app, "1")
        await until(pilot, lambda: screen.composer.text == "draft1")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered


async def test_a_draft_typed_before_the_card_its_keys_line_gives_its_keys_and_they_answer_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from .test_card_keys_safety import Held

    model = Held([answer("", Call("execute", {"command": "touch x"})), answer("Done.")])
    backend.model = model
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        keys(app, "keep me")
        await until(pilot, lambda: screen.composer.text == "keep me")
        model.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        screen.composer.last_typed = float("-inf")  # the person stopped typing: the card shows
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        await pilot.pause(0.2)
        assert says(app) == "paused"
        keys(app, "1")
        assert card is not None
        await until(pilot, lambda: card.answered, within=3)
        assert screen.composer.text == "keep me"


async def test_once_ctrl_u_let_go_of_the_words_a_digit_answers_the_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        box = screen.composer
        keys(app, "draft two")
        await until(pilot, lambda: box.text == "draft two")
        await pilot.press("ctrl+u")
        await until(pilot, lambda: not box.display)
        await pilot.pause(0.3)  # well within TYPING_PAUSE_S of the ctrl+u
        keys(app, "1")
        await until(pilot, lambda: card.answered, within=3)
        await until(pilot, lambda: NEW_FILE in backend.files.files)
        assert box.text == "" and screen.at_card.drafted_at == float("-inf")
