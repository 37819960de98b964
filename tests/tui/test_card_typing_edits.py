"""While the input box shows the words typed above a card, the editing keys edit them: left,
right, home, end, ctrl+a/e/w/k and delete went to the card, which has no use for them, so
``no wait``, left ×4 and ``X`` read ``no waitX``. The card keeps what it needs: esc, and ↑ ↓ to
move its choice once the typing has paused; enter and its number keys stay the box's while the
box holds words."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens._keys_at_card import LETTER_WAIT_S
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S

from .conftest import FakeBackend, until
from .test_card_keys_typing import NEW_FILE, keys, ready_card


async def test_the_editing_keys_edit_the_words_above_a_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        box = screen.composer
        keys(app, "no wait")
        await until(pilot, lambda: box.text == "no wait")
        await pilot.press(*["left"] * 4)
        await until(pilot, lambda: box.cursor_location == (0, 3))
        keys(app, "X")
        await until(pilot, lambda: box.text == "no Xwait")
        await pilot.press("right", "delete")  # the a
        await until(pilot, lambda: box.text == "no Xwit")
        await pilot.press("home")
        await until(pilot, lambda: box.cursor_location == (0, 0))
        await pilot.press("end")
        await until(pilot, lambda: box.cursor_location == (0, 7))
        await pilot.press("ctrl+w")
        await until(pilot, lambda: box.text == "no ")
        keys(app, "go on")
        await until(pilot, lambda: box.text == "no go on")
        await pilot.press("ctrl+a")
        await until(pilot, lambda: box.cursor_location == (0, 0))
        await pilot.press(*["right"] * 3, "ctrl+k")
        await until(pilot, lambda: box.text == "no ")
        await pilot.press("ctrl+e", "backspace")
        await until(pilot, lambda: box.text == "no")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and screen.card is card and card.has_focus
        assert NEW_FILE not in backend.files.files


async def test_the_arrows_up_and_down_still_move_the_cards_choice(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """The box's ↑ would bring back an earlier message in place of the words."""
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "no wait")
        await until(pilot, lambda: screen.composer.text == "no wait")
        await pilot.pause(TYPING_PAUSE_S + 0.1)  # the typing paused
        await pilot.press("down")
        await until(pilot, lambda: card.selected == 1)
        assert screen.composer.text == "no wait"
        await pilot.press("enter")  # the words', not the card's
        await until(pilot, lambda: screen.composer.text == "")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and NEW_FILE not in backend.files.files
        await pilot.press("escape")
        await until(pilot, lambda: card.answered)
