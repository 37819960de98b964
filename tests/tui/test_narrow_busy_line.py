"""The busy line saying a card waits (held back by the words being typed) fits the width in fewer
words, keeping that a card waits and the key that shows it: at 50 columns it read ``a card waits
· it shows wh…``, at 80 ``a card waits · it shows when you pause or s…``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest

from circle.domain.messages import Usage
from circle.domain.model import ModelEvent, ModelRequest
from circle.entrypoints.tui import screens
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets import composer
from circle.testing import Call, ScriptedModel, answer

from .conftest import FakeBackend, FixedClock, main_screen, screen_lines, send, until

WRITE = Call("write_file", {"file_path": "new.txt", "content": "x\n"})


@pytest.mark.parametrize(
    ("size", "said"),
    [
        ((140, 40), "a card waits · it shows when you pause or send · 5s · ↓ 1.2k tokens · esc cancels"),
        ((80, 24), "a card waits · pause or enter shows it · 5s · ↓ 1.2k tokens · esc cancels"),
        ((50, 16), "card waits · pause or enter · 5s · esc cancels"),
        ((40, 16), "card waits · enter · esc cancels"),
    ],
)
async def test_the_busy_line_says_a_card_waits_in_words_that_fit_the_width(
    make_app: Callable[..., CircleApp],
    backend: FakeBackend,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
    said: str,
) -> None:
    monkeypatch.setattr(composer, "TYPING_PAUSE_S", 60.0)  # the person goes on typing meanwhile

    class Held(ScriptedModel):
        go = asyncio.Event()

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            await self.go.wait()
            async for event in super().stream(request):
                yield event

    backend.model = Held([answer("", WRITE, usage=Usage(input=10, output=1234)), answer("Done.")])
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await pilot.press("h", "m")
        Held.go.set()
        await until(pilot, lambda: screen.busy.activity == screens.main.CARD_WAITS)
        clock.now += 5.2
        await pilot.pause(0.3)  # the busy line's tick draws it again
        assert screen.card is None
        row = next(line for line in screen_lines(app) if "esc cancels" in line)
        assert row.strip()[2:] == said, row
