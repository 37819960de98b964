"""Keys read in one burst (one terminal read) lose no message: two messages typed with their enters
at once both reach the model, in order, though the second is read before the first's turn started."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from textual import events
from textual._xterm_parser import XTermParser

from circle.domain.model import ModelEvent, ModelRequest, TextDelta
from circle.entrypoints.tui._esc_keys import EscapeFirstParser, esc_acts
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.picker import TextScreen
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.testing import Call, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, texts, until
from .test_burst_after_focus_move import job_in_the_strip, with_a_job


class AnswersForever(ScriptedModel):
    """Says a few words and never finishes its first answer; then answers from its script."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if self.requests:
            async for event in super().stream(request):
                yield event
            return
        self.requests.append(request)
        yield TextDelta(text="working on it")
        await asyncio.Event().wait()


def burst(app: CircleApp, *parts: str) -> None:
    """Post ``parts`` as the keys of one terminal read: each text's characters, then enter."""
    for part in parts:
        for character in part:
            app.post_message(events.Key("space" if character == " " else character, character))
        app.post_message(events.Key("enter", "\r"))


def said(backend: FakeBackend) -> list[str]:
    """The person's messages in the model's last request, in order."""
    request = backend.model.requests[-1]
    return [m.text for m in request.messages if m.role == "user"]


async def test_two_messages_with_their_enters_in_one_burst_both_reach_the_model_in_order(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Got the first."), answer("Got the second."), answer("Got more."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        burst(app, "fresh alpha", "fresh beta")
        await until(pilot, lambda: "fresh beta" in texts(screen) and not screen.host.session.is_busy)
        await until(pilot, lambda: bool(backend.model.requests) and "fresh beta" in said(backend)[-1])
        assert [text for text in said(backend) if "fresh" in text] == ["fresh alpha", "fresh beta"]
        shown = texts(screen)
        assert shown.index("fresh alpha") < shown.index("fresh beta")


async def test_a_message_typed_behind_esc_esc_during_an_answer_is_sent_once_the_turn_stopped(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model = AnswersForever([answer("Got it after the stop.")])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: "working on it" in texts(screen))
        reader = EscapeFirstParser(lambda: esc_acts(app))
        for event in [*reader.feed("\x1b\x1bafter two esc\r"), *reader.feed("")]:
            app.post_message(event)
        await until(pilot, lambda: "Got it after the stop." in texts(screen))
        assert said(backend)[-1] == "after two esc"
        assert not screen.host.session.is_busy and screen.composer.text == ""


async def test_down_and_enter_in_one_burst_on_the_empty_box_open_the_jobs_record(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    with_a_job(backend)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        await job_in_the_strip(app, pilot, backend)
        reader = XTermParser()
        for event in [*reader.feed("\x1b[B\r"), *reader.feed("")]:  # ↓ then enter, read at once
            app.post_message(event)
        await until(pilot, lambda: isinstance(app.screen, TextScreen), within=5)


async def test_esc_on_an_approval_card_and_a_message_in_one_burst_stop_the_turn_then_send_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(
        answer("", Call("write_file", {"file_path": "new.txt", "content": "x\n"})),
        answer("Doing nothing."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        reader = EscapeFirstParser(lambda: esc_acts(app))
        for event in [*reader.feed("\x1binstead do nothing\r"), *reader.feed("")]:
            app.post_message(event)
        await until(pilot, lambda: "Doing nothing." in texts(screen))
        assert said(backend)[-1] == "instead do nothing"
        assert screen.composer.text == ""
        assert "/work/new.txt" not in backend.files.files
