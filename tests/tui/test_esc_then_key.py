"""esc, then a key typed at once (a terminal sends them as ``ESC f``, which reads as a meta key):
where esc does something the key is not lost, and esc still does its part; at the input box alone
the meta prefix keeps its meaning (alt+f moves a word)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from textual._xterm_parser import XTermParser

from circle.domain.model import ModelEvent, ModelRequest, TextDelta
from circle.entrypoints.tui._esc_keys import EscapeFirstParser, esc_acts
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, texts, until


class AnswersForever(ScriptedModel):
    """Says a few words, then never finishes."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        yield TextDelta(text="working on it")
        await asyncio.Event().wait()


def parser(app: CircleApp) -> XTermParser:
    """The parser the interface's driver reads the terminal with."""
    return EscapeFirstParser(lambda: esc_acts(app))


def typed(app: CircleApp, reader: XTermParser, data: str, *, wait: float = 0.0) -> None:
    """Give ``data`` to ``reader`` as the terminal would, and its events to the app."""
    events = list(reader.feed(data))
    if wait:
        time.sleep(wait)  # past the escape delay, the parser gives up on a sequence
        events += list(reader.tick())
    for event in events:
        app.post_message(event)


async def test_esc_then_a_key_at_once_stops_the_turn_and_the_key_reaches_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model = AnswersForever()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: "working on it" in texts(screen))
        typed(app, parser(app), "\x1bf")  # ESC f: what Textual reads as ctrl+right
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: screen.composer.text == "f")


async def test_esc_then_a_key_on_an_approval_card_stops_the_turn_and_types_the_key(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(
        answer("", Call("write_file", {"file_path": "new.txt", "content": "x\n"})), answer("ok")
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        typed(app, parser(app), "\x1bx", wait=0.2)  # ESC x, then the escape delay passes
        await until(pilot, lambda: screen.card is None and bool(screen.conversation.query(TurnLine)))
        await until(pilot, lambda: screen.composer.text == "x")
        await pilot.press("backspace", "y")  # the input box has the focus: not only printable keys reach it
        await until(pilot, lambda: screen.composer.text == "y")
        assert "/work/new.txt" not in backend.files.files


async def test_at_the_input_box_alone_esc_f_still_moves_a_word(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        screen.composer.insert("one two")
        screen.composer.move_cursor((0, 0))
        typed(app, parser(app), "\x1bf")
        await until(pilot, lambda: screen.composer.cursor_location != (0, 0))
        assert screen.composer.text == "one two"
