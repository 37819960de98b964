"""At 50x16 a card whose command scrolls keeps pgup pgdn in its keys line with words typed above
it: it read 'enter sends the words, the card waits · esc' as they were typed and 'enter sends
the words · 1-3 pick · esc stop' once the typing paused, and nothing said how to reach the rest of
the command. A card whose body does not scroll keeps its line as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until
from .test_card_keys_typing import keys
from .test_card_typing_hint import keys_row

LONG = "touch " + " ".join(f"file{i:02d}xxxxxxxxxx" for i in range(1, 31))


@pytest.mark.parametrize(
    ("command", "typing", "paused"),
    [
        (LONG, "enter sends, card waits · esc · pgup pgdn", "enter sends · 1-3 pick · esc · pgup pgdn"),
        (
            "touch x",
            "enter sends the words, the card waits · esc",
            "enter sends the words · 1-3 pick · esc stop",
        ),
    ],
)
async def test_a_narrow_cards_keys_line_keeps_the_scroll_keys_while_its_body_scrolls(
    make_app: Callable[..., CircleApp], backend: FakeBackend, command: str, typing: str, paused: str
) -> None:
    backend.model.add(answer("", Call("execute", {"command": command})), answer("Done."))
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch them")
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        assert isinstance(card, ApprovalCard)
        assert card.body_scrolls == (command == LONG)
        keys(app, "no wait")
        await until(pilot, lambda: screen.composer.text == "no wait")
        await pilot.pause(0.1)
        lines = screen_lines(app)
        assert keys_row(lines) == typing, "\n".join(lines)
        await pilot.pause(TYPING_PAUSE_S + 0.1)
        lines = screen_lines(app)
        assert keys_row(lines) == paused, "\n".join(lines)
        assert all(len(line) <= 50 for line in lines)
        assert "╰" in lines[lines.index(next(line for line in lines if paused in line)) + 1]  # one row
