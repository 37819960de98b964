"""A question with no options is answered by typing. With words typed before it shown above it,
its keys line said 'what you type goes to the input box: enter sends it, the card waits' however
long the typing had paused, while what was typed went into its own field (as its answer): it now
says that typing answers it and that enter sends the words above first."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.card_keys import typed_answer_keys, typing_keys
from circle.entrypoints.tui.widgets.cards import QuestionCard
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until
from .test_card_keys_safety import Held
from .test_card_keys_typing import keys


def keys_row(app: CircleApp) -> str:
    """The question card's last row: its keys line."""
    lines = screen_lines(app)
    end = max(index for index, line in enumerate(lines) if "╰" in line)
    return lines[end - 1].strip(" │")


async def test_an_open_questions_keys_line_says_typing_answers_it_once_the_words_above_paused(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    ask = {"questions": [{"question": "What name?"}]}
    model = Held([answer("", Call("question", ask)), answer("Noted.")])
    backend.model = model
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "ask me")
        keys(app, "hello there")
        await until(pilot, lambda: screen.composer.text == "hello there")
        model.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        screen.composer.last_typed = float("-inf")  # the person stopped typing: the card shows
        await card_ready(pilot, screen, QuestionCard)
        card = screen.card
        assert isinstance(card, QuestionCard)
        await pilot.pause(0.2)
        said = keys_row(app)
        assert said == typed_answer_keys("esc dismisses")[0], said
        assert said not in typing_keys("esc dismisses")
        keys(app, "Bob")  # what it says: typing answers it
        await until(pilot, lambda: card.typed.value == "Bob")
        assert screen.composer.text == "hello there"
