"""Typing at an approval card answers nothing: "stop that", typed at a card ready for keys, lost
every letter the card did not bind, and the "a" of "that" allowed the command for the session. A
printable key the card does not bind goes to the input box (shown above the card) and begins a run
of typing the card's own keys then join; a card's key read alone waits a moment, and a printable
key read in that moment makes both the box's. A paste goes to the box too."""

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
from circle.entrypoints.tui.screens._keys_at_card import LETTER_WAIT_S
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.card_keys import KeysLine
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.testing import Call, ScriptedModel, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, send, texts, until

NEW_FILE = "/work/new.txt"
WRITE = Call("write_file", {"file_path": "new.txt", "content": "x\n"})


def keys(app: CircleApp, text: str) -> None:
    """Post ``text``'s keys as read from the terminal, all at once."""
    for character in text:
        app.post_message(events.Key("space" if character == " " else character, character))


@asynccontextmanager
async def ready_card(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> AsyncIterator[tuple[CircleApp, Pilot[object], MainScreen, ApprovalCard]]:
    """The app once "write" was sent and the card for its write_file call takes keys."""
    backend.model.add(answer("", WRITE), answer("Done."))
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        assert isinstance(screen.card, ApprovalCard)
        yield app, pilot, screen, screen.card


@pytest.mark.parametrize("sentence", ["stop that", "yes but not there", "all of it", "no wait", "2 files"])
async def test_a_sentence_typed_at_a_ready_card_goes_to_the_box_and_answers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend, sentence: str
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, sentence)
        await until(pilot, lambda: screen.composer.text == sentence)
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and screen.card is card
        assert screen.composer.text == sentence and screen.composer.display  # seen as typed
        assert card.has_focus  # esc, enter and the arrows are still the card's
        assert NEW_FILE not in backend.files.files


async def test_typing_slowly_at_a_card_still_answers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys further apart than a burst's: the words in the box keep the card's keys theirs."""
    monkeypatch.setattr(screens._keys_at_card, "BURST_GAP_S", 0.05)
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        for character in "on y":
            keys(app, character)
            await pilot.pause(0.35)
        await until(pilot, lambda: screen.composer.text == "on y")
        await pilot.pause(LETTER_WAIT_S + 0.1)
        assert not card.answered and NEW_FILE not in backend.files.files


@pytest.mark.parametrize(("key", "written"), [("1", True), ("2", True), ("n", False)])
async def test_a_cards_key_alone_answers_it_after_a_moment(
    make_app: Callable[..., CircleApp], backend: FakeBackend, key: str, written: bool
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, key)
        await until(pilot, lambda: card.answered)
        await until(pilot, lambda: "Done." in texts(screen))
        assert (NEW_FILE in backend.files.files) is written
        assert screen.composer.text == ""


@pytest.mark.parametrize("letter", ["a", "y"])
async def test_no_letter_allows(
    make_app: Callable[..., CircleApp], backend: FakeBackend, letter: str
) -> None:
    """'y' typed alone, or the first key of 'yes…' typed a key a second, allowed the command."""
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, letter)
        await until(pilot, lambda: screen.composer.text == letter)
        await pilot.pause(LETTER_WAIT_S + 0.7)
        assert not card.answered and NEW_FILE not in backend.files.files
        assert "the card waits" in str(card.keys_line.content)  # while the box shows the letter
        assert "1 once · 2 this session · n deny" in str(KeysLine(card.keys))  # its own, after


async def test_a_paste_at_a_card_goes_to_the_box(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        app.post_message(events.Paste("all yes, then stop"))
        await until(pilot, lambda: screen.composer.text == "all yes, then stop")
        keys(app, "y")  # right behind the paste: part of the words
        await until(pilot, lambda: screen.composer.text == "all yes, then stopy")
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and screen.composer.display


async def test_words_typed_at_a_card_and_enter_are_sent_and_the_card_stays(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "stop that")
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: "stop that" in texts(screen))
        await pilot.pause(LETTER_WAIT_S + 0.2)
        assert not card.answered and screen.card is card
        assert not screen.composer.display  # emptied: the card has the frame again
        app.post_message(events.Key("escape", "\x1b"))
        await until(pilot, lambda: card.answered and not screen.host.session.is_busy)
        assert NEW_FILE not in backend.files.files


async def test_enter_after_a_pause_sends_the_words_above_the_card_and_answers_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screens._keys_at_card, "BURST_GAP_S", 0.05)
    monkeypatch.setattr(screens._keys_at_card, "TYPING_PAUSE_S", 0.05)
    async with ready_card(make_app, backend) as (app, pilot, screen, card):
        keys(app, "stop that")
        await until(pilot, lambda: screen.composer.text == "stop that")
        await pilot.pause(0.3)  # the person reads it over, then sends it
        app.post_message(events.Key("enter", "\r"))
        await until(pilot, lambda: "stop that" in texts(screen))
        await pilot.pause(LETTER_WAIT_S)
        assert not card.answered and NEW_FILE not in backend.files.files


async def test_the_busy_line_says_a_card_waits_while_words_being_typed_hold_it_back(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    class Held(ScriptedModel):
        go = asyncio.Event()

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            await self.go.wait()
            async for event in super().stream(request):
                yield event

    backend.model = Held([answer("", WRITE), answer("Done.")])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await pilot.press("h", "m")  # typing as the call comes: the fixed clock keeps it so
        Held.go.set()
        await until(pilot, lambda: screen.desk.first is not None)
        await until(pilot, lambda: screen.busy.activity == screens.main.CARD_WAITS)
        assert screen.card is None
        await pilot.press("enter")  # the words go; the card shows
        await until(pilot, lambda: isinstance(screen.card, ApprovalCard))
        assert screen.busy.activity != screens.main.CARD_WAITS
        assert "new.txt" in screen.busy.activity
