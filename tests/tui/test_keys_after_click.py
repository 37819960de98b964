"""Printable keys typed in one burst right after a click reach the input box, whichever row of the
conversation the click focused."""

from __future__ import annotations

from collections.abc import Callable

from textual import events

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Thinking, TurnLine
from circle.testing import answer

from .conftest import FakeBackend, main_screen, send, until


async def test_keys_typed_in_a_burst_after_a_click_on_the_thinking_reach_the_input_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("The answer.", thinking="Let me weigh the options carefully"), answer("Hi."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        thinking = screen.conversation.query_one(Thinking)
        await pilot.click(thinking, offset=(2, 0))
        await pilot.pause(0.1)
        typed = "after click"
        for character in typed:  # one burst, as a terminal sends
            app.post_message(events.Key("space" if character == " " else character, character))
        await until(pilot, lambda: screen.composer.text == typed)
        assert screen.composer.has_focus
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: len(backend.model.requests) == 2)
        assert backend.model.requests[1].messages[-1].text == typed


async def test_keys_typed_in_a_burst_reach_the_input_box_from_every_focusable_part_of_the_conversation(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    text = "Here:\n\n```python\n" + "x = 1  # " + "long " * 40 + "\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    backend.model.add(answer(text, thinking="Let me weigh the options carefully"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "why")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.2)
        parts = [w for w in screen.focus_chain if screen.conversation in w.ancestors_with_self]
        assert len(parts) >= 2  # the conversation and the thinking block's title at least
        for part in parts:
            screen.composer.clear()
            screen.set_focus(part)
            await pilot.pause(0.1)
            for character in "abc":  # one burst, as a terminal sends
                app.post_message(events.Key(character, character))
            await until(pilot, lambda: screen.composer.text == "abc")
            assert screen.composer.has_focus, part
