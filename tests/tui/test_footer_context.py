"""The footer's context figure after a turn that no endpoint counted: a cancelled answer keeps
the figure of the newest counted answer, with what came after it estimated, never '–'."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.domain.messages import Usage
from circle.domain.model import Finished, ModelEvent, ModelRequest, TextDelta
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import ScriptedModel, answer

from .conftest import FakeBackend, main_screen, send, until


class StallsAfter(ScriptedModel):
    """Plays its steps; a step without an end waits there until the stream is cancelled."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        finished = False
        async for event in super().stream(request):
            finished = isinstance(event, Finished)
            yield event
        if not finished:
            await asyncio.Event().wait()


def _context(app: CircleApp) -> str:
    footer = str(main_screen(app).footer.content)
    return next(part for part in footer.split(" · ") if part.startswith("context "))


def _turn_lines(app: CircleApp) -> list[str]:
    return [row.text for row in main_screen(app).conversation.query(TurnLine)]


async def test_a_cancelled_turn_keeps_the_context_figure(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(2000))
    backend.model = StallsAfter(
        [answer("Hello.", usage=Usage(input=30_000, output=2_000)), [TextDelta(text=words)]]
    )
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: len(_turn_lines(app)) == 1)
        assert _context(app) == "context 16%"  # 32,000 of 200,000
        await send(pilot, screen, "slow")
        await until(pilot, lambda: screen.busy.tokens > 0)
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))

        now = _context(app)  # the counted 32,000, the message and the cut answer estimated
        assert now != "context –" and int(now.removeprefix("context ").removesuffix("%")) > 16
