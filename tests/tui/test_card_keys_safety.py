"""No word typed while a card is up answers it, however it is typed (found by trying to get past
the rule): words typed before the card came stay in sight above it and keep every key theirs, the
enter meant to send them sends them, a second enter or a backspace that emptied the box answers
nothing a moment after, a number typed among words is a word, and a question card's option number
read with more is the start of a typed answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from textual import events
from textual.pilot import Pilot

from circle.domain.model import ModelEvent, ModelRequest
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens._keys_at_card import ENTER_QUIET_S, LETTER_WAIT_S
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.cards import ApprovalCard, QuestionCard
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S
from circle.testing import Call, ScriptedModel, answer

from .conftest import FakeBackend, FixedClock, card_ready, main_screen, send, texts, until
from .test_card_keys_typing import NEW_FILE, WRITE, keys, ready_card

SIZE = (80, 24)
PAUSE = TYPING_PAUSE_S


class Held(ScriptedModel):
    """Its answers wait for :attr:`go`: the person types while the model works."""

    def __init__(self, answers: list[object]) -> None:
        super().__init__(answers)  # type: ignore[arg-type]
        self.go = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        await self.go.wait()
        async for event in super().stream(request):
            yield event


@asynccontextmanager
async def question_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> AsyncIterator[tuple[CircleApp, Pilot[object], MainScreen, QuestionCard]]:
    """The app once "ask me" was sent and the card of its question (red, green, blue) takes keys."""
    question = {"questions": [{"question": "Which one?", "options": ["red", "green", "blue"]}]}
    backend.model.add(answer("", Call("question", question)), answer("Noted."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "ask me")
        await card_ready(pilot, screen, QuestionCard)
        card = screen.card
        assert isinstance(card, QuestionCard)
        yield app, pilot, screen, card


async def test_words_typed_before_the_card_stay_in_sight_and_enter_sends_them(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    """Before, the card hid the box with the words, and the enter meant to send them ran the
    command."""
    model = Held([answer("", WRITE), answer("Left it.")])
    backend.model = model
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        keys(app, "please do not run that")
        await until(pilot, lambda: screen.composer.text == "please do not run that")
        model.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        clock.now += PAUSE + 1  # the person stopped typing: the card shows
        await card_ready(pilot, screen, ApprovalCard)
        assert screen.composer.display and screen.composer.text == "please do not run that"
        await pilot.pause(PAUSE + 0.1)
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: "please do not run that" in texts(screen))
        await pilot.pause(LETTER_WAIT_S + 0.2)
        card = screen.card
        assert card is not None and not card.answered
        assert NEW_FILE not in backend.files.files


async def test_a_second_enter_or_one_after_the_box_was_emptied_answers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "why this")
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: "why this" in texts(screen))
        await pilot.pause(0.6)
        app.post_message(events.Key("enter", "\r"))  # the enter pressed twice
        await pilot.pause(PAUSE + 0.2)
        app.post_message(events.Key("enter", "\r"))  # and again, a while after
        keys(app, "ok")
        await until(pilot, lambda: screen.composer.text == "ok")
        app.post_message(events.Key("backspace", None))
        app.post_message(events.Key("backspace", None))
        await until(pilot, lambda: screen.composer.text == "")
        await pilot.pause(0.7)
        app.post_message(events.Key("enter", "\r"))  # the box emptied a moment ago
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and NEW_FILE not in backend.files.files


async def test_a_number_typed_among_words_in_the_box_is_a_word(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "yes do it")
        await until(pilot, lambda: screen.composer.text == "yes do it")
        await pilot.pause(PAUSE + 0.1)  # the words have waited: still the box's
        keys(app, "2")
        await pilot.pause(0.5)
        keys(app, " more")
        await until(pilot, lambda: screen.composer.text == "yes do it2 more")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and NEW_FILE not in backend.files.files


async def test_a_questions_number_read_with_more_begins_a_typed_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Before, '2 is fine but' typed at the question picked its second option at once."""
    async with question_card(make_app, backend) as (app, pilot, _, card):
        keys(app, "2 is fine but")
        await until(pilot, lambda: card.typed.value == "2 is fine but")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered


async def test_a_questions_number_alone_still_picks_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with question_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "2")
        await until(pilot, lambda: card.answered)
        await until(pilot, lambda: "Noted." in texts(screen))
        result = backend.model.requests[-1].messages[-1]
        assert "green" in result.text


async def test_words_typed_fast_at_a_question_all_reach_its_input(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Typed in one go at a question with options, the letters after the first were lost: the
    first moved the focus to its input, which then selected what it held (and the next replaced
    it), or the key sent to the card found the focus gone and went nowhere."""
    async with question_card(make_app, backend) as (app, pilot, _, card):
        keys(app, "none of them")
        await until(pilot, lambda: card.typed.value == "none of them")


async def test_ctrl_u_clears_the_words_typed_at_a_card_and_answers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Before, ctrl+u went to the card (which has no use for it) and the words stayed above it."""
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "stop that")
        await until(pilot, lambda: screen.composer.text == "stop that")
        await pilot.pause(PAUSE + 0.1)
        app.post_message(events.Key("ctrl+u", None))
        await until(pilot, lambda: screen.composer.text == "")
        assert not screen.composer.display and screen.card is card and card.has_focus
        app.post_message(events.Key("enter", "\r"))  # right after: the box's, not an answer
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and NEW_FILE not in backend.files.files


async def test_ctrl_u_clears_the_words_typed_before_the_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    model = Held([answer("", WRITE), answer("Left it.")])
    backend.model = model
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        keys(app, "please do not")
        await until(pilot, lambda: screen.composer.text == "please do not")
        model.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        clock.now += PAUSE + 1
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        assert card is not None
        await pilot.pause(PAUSE + 0.1)
        assert screen.composer.display and screen.composer.text == "please do not"
        app.post_message(events.Key("ctrl+u", None))
        await until(pilot, lambda: not screen.composer.display)
        assert screen.composer.text == "" and screen.card is card and not card.answered
        await pilot.pause(ENTER_QUIET_S + 0.1)
        app.post_message(events.Key("1", "1"))  # the card still answers its own keys
        await until(pilot, lambda: NEW_FILE in backend.files.files)


async def test_ctrl_u_in_a_questions_typed_answer_clears_that_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with question_card(make_app, backend) as (app, pilot, _, card):
        keys(app, "none of them")
        await until(pilot, lambda: card.typed.value == "none of them")
        app.post_message(events.Key("ctrl+u", None))
        await until(pilot, lambda: card.typed.value == "")
        assert not card.answered


async def test_ctrl_u_read_with_the_words_typed_at_a_card_clears_them(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "stop that")
        app.post_message(events.Key("ctrl+u", None))  # read in the same burst, before they are in
        keys(app, "x")
        await until(pilot, lambda: screen.composer.text == "x")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered
