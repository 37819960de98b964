"""esc while an answer streams keeps the text shown: the resumed session draws it, marked stopped."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.domain.model import ModelEvent, ModelRequest, TextDelta, ThinkingDelta
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Answer, Thinking, TurnLine
from circle.testing import ScriptedModel

from .conftest import SIZE, FakeBackend, main_screen, send, until
from .test_resumed_rows import resumed


class StallsAfter(ScriptedModel):
    """Plays its steps; a step without an end waits there until the stream is cancelled."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        async for event in super().stream(request):
            yield event
        await asyncio.Event().wait()


def _answers(app: CircleApp) -> list[str]:
    return [row.source for row in main_screen(app).conversation.query(Answer)]


def _turn_lines(app: CircleApp) -> list[str]:
    return [str(row.content) for row in main_screen(app).conversation.query(TurnLine)]


async def test_esc_mid_answer_keeps_the_text_and_the_resumed_view_shows_it_stopped(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    streamed = [
        ThinkingDelta(text="Plan the answer."),
        TextDelta(text="Here is the first "),
        TextDelta(text="half"),
    ]
    backend.model = StallsAfter([streamed])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "explain")
        await until(pilot, lambda: "Here is the first half" in _answers(app))
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))
        assert _turn_lines(app)[-1].startswith("⏹")
        rows = await resumed(app, pilot)
        assert "answer Here is the first half" in rows
        assert [row.split()[0] for row in rows] == ["UserRow", "thinking", "answer"]
        await until(pilot, lambda: _turn_lines(app) == ["⏹ cancelled"])


async def test_esc_mid_thinking_marks_the_block_cut_and_the_turn_line_counts_its_tokens(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(40))  # 40 words, 269 characters: about 67 tokens
    backend.model = StallsAfter([[ThinkingDelta(text=words[:100]), ThinkingDelta(text=words[100:])]])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: screen.busy.tokens == len(words) // 4)
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))
        thinking = screen.conversation.query_one(Thinking)
        assert thinking.title == "Thought (40 words, cut)"
        assert thinking.collapsed
        line = _turn_lines(app)[-1]  # the guessed tokens are priced too: the cost is an estimate
        assert line.startswith(f"⏹ 0.0s · ~{len(words) // 4} tokens · ~$") and line.endswith(" · cancelled")


async def test_thinking_finished_before_esc_is_not_marked_cut(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model = StallsAfter([[ThinkingDelta(text="Plan the answer."), TextDelta(text="Here it")]])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "explain")
        await until(pilot, lambda: "Here it" in _answers(app))
        await pilot.press("escape")
        await until(pilot, lambda: any("cancelled" in line for line in _turn_lines(app)))
        assert screen.conversation.query_one(Thinking).title == "Thought (3 words)"
        assert _turn_lines(app)[-1].startswith("⏹ 0.0s · ~")
