"""A picker fits the screen: with more items than rows its list scrolls to keep the highlighted
row in sight, its keys line always shows and nothing of it is drawn over the input box."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen

from .conftest import screen_lines, until

KEYS = "↑↓ move · enter picks · esc closes"


def picker_box(app: CircleApp) -> list[str]:
    """The picker's lines, its top border to its bottom one."""
    lines = screen_lines(app)
    top = next(index for index, line in enumerate(lines) if "╭" in line)
    bottom = next(index for index, line in enumerate(lines) if index > top and "╰" in line)
    return lines[top : bottom + 1]


@pytest.mark.parametrize("size", [(80, 24), (50, 16)])
async def test_a_picker_taller_than_the_screen_fits_and_follows_the_highlight(
    make_app: Callable[..., CircleApp], size: tuple[int, int]
) -> None:
    items = [(f"id{number}", f"item number {number}") for number in range(30)]
    picked: list[str | None] = []
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.pause(0.1)
        app.push_screen(PickerScreen("Fork: a new session up to this message", items), picked.append)
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.pause(0.1)
        for presses in range(1, 26):
            await pilot.press("down")
            await pilot.pause(0.02)
            box = picker_box(app)
            assert len(box) <= size[1], box
            assert any(KEYS in line for line in box), "\n".join(screen_lines(app))
            assert any(f"item number {presses}" in line for line in box), (presses, box)
            assert box[-1].strip().startswith("╰") and box[-1].strip().endswith("╯"), box
            assert box[-1].count("╰") == 1 and "╭" not in box[-1], box
        await pilot.resize_terminal(*((50, 16) if size == (80, 24) else (80, 24)))
        await pilot.pause(0.2)
        box = picker_box(app)
        assert any(KEYS in line for line in box), box
        assert any("item number 25" in line for line in box), box
        await pilot.press("enter")
        await until(pilot, lambda: bool(picked))
        assert picked == ["id25"]
