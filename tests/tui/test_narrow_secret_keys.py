"""The secret card's keys line stays one line at any width, in shorter words: at 80x24 it took two
rows (``… · the model only sees`` / ``%NAME%``), and at 50x16 it did not show at all, the two blank
rows of the card's empty options line taking its place in the frame."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import SecretCard

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

WIDE = "enter saves it in secrets.json (0600) · esc cancels · the model only sees %NAME%"


def keys_rows(lines: list[str]) -> list[str]:
    """The card's rows from its input's (``value (hidden)``) to its bottom border, blank ones left out."""
    at = next(index for index, line in enumerate(lines) if "value (hidden)" in line)
    end = next(index for index in range(at, len(lines)) if "╰" in lines[index])
    return [row for line in lines[at + 1 : end] if (row := line.strip(" │▔▁"))]


@pytest.mark.parametrize(
    ("size", "keys"),
    [
        ((140, 40), WIDE),
        ((80, 24), "enter saves it in secrets.json · esc cancels · the model only sees %NAME%"),
        ((50, 16), "enter saves it in secrets.json · esc cancels"),
        ((40, 16), "enter saves · esc cancels"),
    ],
)
async def test_the_secret_cards_keys_take_one_line_at_any_width(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int], keys: str
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/secret TOKEN")
        await card_ready(pilot, screen, SecretCard)
        await pilot.pause(0.1)
        lines = screen_lines(app)
        assert keys_rows(lines) == [keys], "\n".join(lines)


def test_the_secret_cards_wordings_grow_shorter() -> None:
    from circle.entrypoints.tui.widgets.card_keys import SECRET_KEYS

    assert SECRET_KEYS[0] == WIDE
    assert all(len(a) > len(b) for a, b in pairwise(SECRET_KEYS))
