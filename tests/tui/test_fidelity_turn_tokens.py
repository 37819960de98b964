"""After a cancelled turn the footer's total counts the guessed tokens the turn's line counts, both
marked as estimates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.domain.model import Finished, ModelEvent, ModelRequest, ThinkingDelta
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


def _turn_lines(app: CircleApp) -> list[str]:
    return [row.text for row in main_screen(app).conversation.query(TurnLine)]


def _footer_tokens(app: CircleApp) -> str:
    footer = str(main_screen(app).footer.content)
    return next(part for part in footer.split(" · ") if part.endswith(" tokens"))


async def test_the_footer_total_counts_the_tokens_guessed_for_a_cancelled_turn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(40))
    backend.model = StallsAfter([[ThinkingDelta(text=words[:100]), ThinkingDelta(text=words[100:])]])
    app = make_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: screen.busy.tokens == len(words) // 4)
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))
        guessed = len(words) // 4
        assert f"~{guessed} tokens" in _turn_lines(app)[-1]
        assert _footer_tokens(app) == f"~{guessed} tokens"
        backend.model.add(answer("Counted."))
        await send(pilot, screen, "again")
        await until(pilot, lambda: len(_turn_lines(app)) == 2)
        counted = _turn_lines(app)[-1].split(" · ")[1]
        assert not counted.startswith("~")
        total = int(_footer_tokens(app).removeprefix("~").removesuffix(" tokens"))
        assert _footer_tokens(app).startswith("~") and total >= guessed + int(counted.split()[0])
