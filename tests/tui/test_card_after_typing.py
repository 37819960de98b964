"""A card takes no key typed before anyone could have read it: "hello" and its enter, typed as an
approval card came up, answered it with its highlighted option (Allow once) and left "h" in the
box. Keys read before the card has been on screen for ``READY_S``, and the rest of their run of
typing, go to the input box behind it (the enter sends the words); esc still denies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from textual import events
from textual.pilot import Pilot

from circle.domain.model import ModelEvent, ModelRequest
from circle.entrypoints.tui import screens
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets import cards
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S
from circle.testing import Call, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, texts, until

NEW_FILE = "/work/new.txt"
WRITE = Call("write_file", {"file_path": "new.txt", "content": "x\n"})


def keys(app: CircleApp, text: str, *, enter: bool = False) -> None:
    """Post ``text``'s keys (and an enter) as read from the terminal, all at once."""
    for character in text:
        app.post_message(events.Key("space" if character == " " else character, character))
    if enter:
        app.post_message(events.Key("enter", "\r"))


def told(app: CircleApp) -> list[str]:
    """The toasts on the screen."""
    from textual.widgets._toast import Toast

    return [toast._notification.message for toast in app.screen.query(Toast)]


def said(backend: FakeBackend) -> list[str]:
    return [m.text for m in backend.model.requests[-1].messages if m.role == "user"]


@pytest.fixture
def slow_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cards wait 3 s for keys: the test's keys, posted once the card is seen, come well before."""
    monkeypatch.setattr(cards, "READY_S", 3.0)


async def card_up(app: CircleApp, pilot: object) -> ApprovalCard:
    screen = main_screen(app)
    await send(pilot, screen, "write")
    await until(pilot, lambda: isinstance(screen.card, ApprovalCard))
    assert isinstance(screen.card, ApprovalCard)
    return screen.card


@asynccontextmanager
async def on_a_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend, then: str
) -> AsyncIterator[tuple[CircleApp, Pilot[object], MainScreen, ApprovalCard]]:
    """The app, once the person sent "write" and the card for its write_file call is up; the
    model says ``then`` after the call."""
    backend.model.add(answer("", WRITE), answer(then))
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        yield app, pilot, main_screen(app), await card_up(app, pilot)


@pytest.mark.usefixtures("slow_card")
async def test_words_and_enter_typed_as_a_card_comes_up_are_sent_and_answer_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with on_a_card(make_app, backend, "Left it alone.") as (app, pilot, screen, card):
        keys(app, "hello there", enter=True)
        await until(pilot, lambda: "hello there" in texts(screen))
        await pilot.pause(0.1)
        assert screen.card is card and not card.answered, "the enter answered the card"
        assert NEW_FILE not in backend.files.files
        assert screen.composer.text == ""  # sent, none of it left behind
        assert card.has_focus
        await card_ready(pilot, screen)
        await pilot.press("n")
        await until(pilot, lambda: "Left it alone." in texts(screen))
        assert NEW_FILE not in backend.files.files
        assert "hello there" in said(backend)  # steered into the turn, read before the next step


@pytest.mark.usefixtures("slow_card")
async def test_the_cards_own_keys_typed_too_soon_stay_in_the_box_and_answer_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with on_a_card(make_app, backend, "Wrote it.") as (app, pilot, screen, card):
        keys(app, "ya1")  # allow once, for the session, once: typed as a word, none answers
        app.post_message(events.Key("down", None))  # nor moves the choice
        await until(pilot, lambda: screen.composer.text == "ya1")
        assert not card.answered and screen.card is card and card.selected == 0
        await until(pilot, lambda: card.beside_words)  # its keys line says where they went
        assert not told(app)  # no toast over the card's options
        await card_ready(pilot, screen)
        assert not card.answered and NEW_FILE not in backend.files.files
        await pilot.pause(TYPING_PAUSE_S + 0.1)  # the typing paused: its keys line gives its keys
        await pilot.press("1")  # alone, after the pause: its answer, the words kept
        await until(pilot, lambda: "Wrote it." in texts(screen))
        assert backend.files.files[NEW_FILE] == b"x\n" and screen.composer.text == "ya1"


async def test_a_run_of_typing_begun_in_the_box_stays_the_boxs_after_the_card_is_ready(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card takes keys at once here, but the person was typing into the box as it came up
    and goes on: the rest of the run is the box's."""
    monkeypatch.setattr(cards, "READY_S", 0.0)
    monkeypatch.setattr(screens._keys_at_card, "BURST_GAP_S", 60.0)  # however slow this machine is now

    class Held(ScriptedModel):
        go = asyncio.Event()

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            await self.go.wait()
            async for event in super().stream(request):
                yield event

    backend.model = Held([answer("", WRITE), answer("Left it alone.")])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        keys(app, "h")
        await until(pilot, lambda: screen.composer.text == "h")
        app.post_message(events.Key("backspace", None))  # the box is empty: the card may show
        await until(pilot, lambda: screen.composer.text == "")
        Held.go.set()
        await until(pilot, lambda: isinstance(screen.card, ApprovalCard))
        card = screen.card
        assert card is not None
        keys(app, "ello", enter=True)
        await until(pilot, lambda: "ello" in texts(screen))
        assert not card.answered and NEW_FILE not in backend.files.files
        app.post_message(events.Key("escape", "\x1b"))  # esc is the card's, in a run or not
        await until(pilot, lambda: card.answered and not screen.host.session.is_busy)
        assert NEW_FILE not in backend.files.files


@pytest.mark.usefixtures("slow_card")
async def test_esc_on_a_card_too_new_for_keys_still_denies_and_stops_the_turn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with on_a_card(make_app, backend, "Never asked for.") as (app, pilot, screen, card):
        app.post_message(events.Key("escape", "\x1b"))
        await until(pilot, lambda: card.answered and not screen.host.session.is_busy)
        assert NEW_FILE not in backend.files.files
        assert len(backend.model.requests) == 1


async def test_a_card_on_screen_for_a_moment_takes_the_next_key(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with on_a_card(make_app, backend, "Done.") as (_, pilot, screen, _):
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("1")
        await until(pilot, lambda: "Done." in texts(screen))
        assert backend.files.files[NEW_FILE] == b"x\n"


@pytest.mark.usefixtures("slow_card")
async def test_ctrl_c_on_a_card_too_new_for_keys_still_stops_the_turn(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """Only the keys that could answer the card or move its choice wait: the others act as ever."""
    async with on_a_card(make_app, backend, "Never asked for.") as (app, pilot, screen, _):
        app.post_message(events.Key("ctrl+c", None))
        await until(pilot, lambda: not screen.host.session.is_busy)
        assert NEW_FILE not in backend.files.files
        assert len(backend.model.requests) == 1
