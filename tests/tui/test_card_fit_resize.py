"""An approval card beside the plan box keeps its options in sight through a terminal resize: the
first frame drawn at the new size already shows them (its body shrinks to what the frame leaves),
not a frame later, when the card has been fitted again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.console import RenderableType
from textual.screen import Screen

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

TODOS = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Write the fix", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
    {"content": "Check the resize", "status": "pending"},
]
COMMAND = "\n".join(f"touch made_{n}" for n in range(40))
SIZES = [
    (50, 16),
    (140, 45),
    (80, 24),
    (140, 45),
    (100, 30),
    (100, 24),
    (80, 45),
    (80, 24),
    (50, 16),
    (140, 45),
    (50, 16),
    (80, 24),
]


def drawn_at(frames: list[list[str]], rows: int) -> Callable[[], bool]:
    return lambda: bool(frames) and len(frames[-1]) == rows


@pytest.mark.parametrize("plan", [True, False])
async def test_every_frame_after_a_resize_shows_the_options(
    make_app: Callable[..., CircleApp], backend: FakeBackend, plan: bool
) -> None:
    if plan:
        backend.model.add(answer("", Call("write_todos", {"todos": TODOS})))
    backend.model.add(answer("", Call("execute", {"command": COMMAND})), answer("Done."))
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await card_ready(pilot, screen, ApprovalCard)
        await until(pilot, lambda: "3. Deny" in "\n".join(screen_lines(app)))
        assert ("Todos 1/4" in "\n".join(screen_lines(app))) is plan
        frames: list[list[str]] = []
        display = app._display

        def drawn(on: Screen[object], renderable: RenderableType | None) -> None:
            if renderable is not None:
                frames.append(screen_lines(app))
            display(on, renderable)

        app._display = drawn  # type: ignore[method-assign]
        for size in SIZES:
            frames.clear()
            await pilot.resize_terminal(*size)
            await until(pilot, drawn_at(frames, size[1]))
            await pilot.pause(0.1)
            sized = [frame for frame in frames if len(frame) == size[1] and len(frame[0]) == size[0]]
            assert sized, size
            for frame in sized:
                shown = "\n".join(frame)
                assert "1. Allow once" in shown and "3. Deny" in shown, f"{size}\n{shown}"
                assert "pgdn scroll" in shown, f"{size}\n{shown}"
                if size[1] >= 24:  # on a shorter screen the plan box gives its rows to the card
                    assert ("Todos 1/4" in shown) is plan, shown
        await pilot.press("n")
        await until(pilot, lambda: screen.card is None)
