"""Every picker (/resume, /models, /thinking, ctrl+r's history search, the -r picker) keeps to the
rows above the input box with its keys line in sight, at 50x16 and 80x24 and after a resize
between them while it is open."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.domain.messages import Message
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import PickerScreen

from .conftest import FakeBackend, FixedClock, main_screen, options, screen_lines, send, until

KEYS = "↑↓ move · enter picks · esc closes"
SIZES = [(50, 16), (80, 24)]


def _fits(app: CircleApp, *, input_box: bool = True) -> None:
    """The picker's border and keys line are whole, above the input box's top border."""
    lines = screen_lines(app)
    tops = [row for row, line in enumerate(lines) if "╭" in line]
    bottoms = [row for row, line in enumerate(lines) if "╰" in line]
    shown = "\n".join(lines)
    assert len(tops) == len(bottoms) == (2 if input_box else 1), shown
    assert all(line.count("╭") + line.count("╰") <= 1 for line in lines), shown
    assert tops[0] < bottoms[0] and (not input_box or bottoms[0] < tops[1]), shown
    assert any(KEYS in line for line in lines[tops[0] : bottoms[0]]), shown


async def _stored(backend: FakeBackend) -> None:
    for number in range(30):
        info = await backend.store.create_session(workspace="/work", session_id=f"s{number}")
        await backend.store.append(info.id, Message.user(f"session number {number} about the parser"))
    backend.probe_models = tuple(f"model-{number}-with-a-rather-long-name" for number in range(30))


@pytest.mark.parametrize("opened", ["/resume", "/models", "/thinking", "ctrl+r"])
@pytest.mark.parametrize("size", SIZES)
async def test_a_picker_keeps_above_the_input_box_with_its_keys(
    backend: FakeBackend, clock: FixedClock, opened: str, size: tuple[int, int]
) -> None:
    await _stored(backend)
    history = InputHistory([f"earlier message {number}" for number in range(30)])
    app = CircleApp(backend, options(), clock=clock, history=history, cursor_blink=False)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        if opened == "ctrl+r":
            await pilot.press("ctrl+r")
        else:
            await send(pilot, main_screen(app), opened)
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.pause(0.05)
        _fits(app)
        for _ in range(8):
            await pilot.press("down")
        await pilot.pause(0.05)
        _fits(app)
        await pilot.resize_terminal(*next(other for other in SIZES if other != size))
        await pilot.pause(0.3)
        _fits(app)
        await pilot.resize_terminal(*size)
        await pilot.pause(0.3)
        _fits(app)


@pytest.mark.parametrize("size", SIZES)
async def test_the_resume_flags_picker_fits_before_the_session_screen(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    await _stored(backend)
    app = make_app(resume=True)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.pause(0.05)
        _fits(app, input_box=False)
        await pilot.resize_terminal(*next(other for other in SIZES if other != size))
        await pilot.pause(0.3)
        _fits(app, input_box=False)
        assert len(screen_lines(app)) == next(other for other in SIZES if other != size)[1]
