"""A session opened again, by /resume or by a new Circle (``--session``, as ``-r`` and ``-c`` open
it), is as it was left: at the thinking level last chosen in it, even after its last message, not at
the level of the session left behind; with the tokens guessed for a turn stopped by esc still in
its totals. ``/models NAME`` naming the model in use says so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from circle.domain.messages import Usage
from circle.domain.model import ModelEvent, ModelRequest, ThinkingDelta
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import ScriptedModel, answer

from .conftest import SIZE, FakeBackend, main_screen, send, texts, until


class StallsFirst(ScriptedModel):
    """Plays its steps; the first one waits after its events until the stream is cancelled."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        first = not self.requests
        async for event in super().stream(request):
            yield event
        if first:
            await asyncio.Event().wait()


def _footer(app: CircleApp) -> str:
    return str(main_screen(app).footer.content)


async def _resume(app: CircleApp, pilot: object, session_id: str) -> None:
    await send(pilot, main_screen(app), f"/resume {session_id}")
    await until(pilot, lambda: app.host is not None and app.host.session.session_id == session_id)
    await until(pilot, lambda: app.host is not None and app.host.session.conversation.complete)


async def test_resume_gives_a_session_its_own_level_not_the_one_of_the_session_left(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"), answer("three"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert app.host is not None
        screen = main_screen(app)
        await send(pilot, screen, "at off")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        first = app.host.session.session_id
        await send(pilot, screen, "/thinking low")  # after its last message
        await until(pilot, lambda: "thinking low" in _footer(app))
        await send(pilot, screen, "/new")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != first)
        await send(pilot, screen, "/thinking medium")
        await send(pilot, screen, "at medium")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        second = app.host.session.session_id
        await _resume(app, pilot, first)
        await pilot.pause()
        assert "thinking low" in _footer(app), _footer(app)
        await send(pilot, screen, "again")
        await until(pilot, lambda: len(backend.model.requests) == 3)
        assert backend.model.requests[-1].thinking == "low"
        await until(pilot, lambda: app.host is not None and not app.host.session.is_busy)
        await _resume(app, pilot, second)
        assert "thinking medium" in _footer(app), _footer(app)


async def test_a_level_chosen_after_the_last_message_is_kept_for_the_next_circle(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("one"), answer("two"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert app.host is not None
        screen = main_screen(app)
        await send(pilot, screen, "first")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        first = app.host.session.session_id
        await send(pilot, screen, "/thinking high")
        await until(pilot, lambda: "thinking high" in _footer(app))
    again = make_app(session=first)  # a new Circle: its options say nothing of thinking
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: again.host is not None and "scripted" in _footer(again))
        assert "thinking high" in _footer(again), _footer(again)
        await send(pilot, main_screen(again), "second")
        await until(pilot, lambda: len(backend.model.requests) == 2)
        assert backend.model.requests[-1].thinking == "high"


async def test_the_tokens_guessed_for_a_turn_stopped_by_esc_stay_in_the_totals_after_resume(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    words = " ".join(f"word{i}" for i in range(40))
    backend.model = StallsFirst([[ThinkingDelta(text=words)]])
    backend.model.add(answer("counted", usage=Usage(input=100, output=200)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        assert app.host is not None
        screen = main_screen(app)
        await send(pilot, screen, "think")
        await until(pilot, lambda: screen.busy.tokens == len(words) // 4)
        await pilot.press("escape")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 1)
        await send(pilot, screen, "then counted")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        await pilot.pause()
        before = _footer(app)
        assert f"~{300 + len(words) // 4} tokens" in before, before
        first = app.host.session.session_id
        await send(pilot, screen, "/new")
        await until(pilot, lambda: app.host is not None and app.host.session.session_id != first)
        await _resume(app, pilot, first)
        await pilot.pause()
        assert _footer(app) == before
    again = make_app(session=first)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: again.host is not None and "tokens" in _footer(again))
        assert _footer(again) == before


async def test_models_naming_the_model_in_use_says_it_is_in_use_already(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/models model-b")
        await until(pilot, lambda: "Model: model-b" in texts(screen))
        await send(pilot, screen, "/models model-b")
        await until(pilot, lambda: "The model is model-b already." in texts(screen))
        assert app.host is not None and app.host.model == "model-b"
        await send(pilot, screen, "/models model-x")  # still checked against the endpoint's list
        await until(pilot, lambda: "lists no model 'model-x'" in texts(screen))
