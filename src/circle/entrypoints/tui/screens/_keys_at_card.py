"""Which of the keys read while a card is up are the card's and which the input box's.

A card shown a moment ago, nobody has read yet: "hello" and its enter, typed as it came up, would
answer it. Words typed at a card, or before it, are the person's, however they are typed: a key
the card binds, read among them, is a word, and the enter that ends them sends them. The screen
asks :meth:`KeysAtCard.read` about every key before it goes where it would go (the app's
``on_event``); what it says goes to the input box is posted there, in the order read.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual import _time, events
from textual.widgets import Input

from circle.entrypoints.tui.widgets.card_fit import fit_card
from circle.entrypoints.tui.widgets.cards import ApprovalCard, Card, QuestionCard
from circle.entrypoints.tui.widgets.composer import TYPING_PAUSE_S

if TYPE_CHECKING:
    from textual.timer import Timer

    from circle.entrypoints.tui.screens.main import MainScreen

LETTER_WAIT_S = 0.3
"""Seconds a card's key (y, 2, n) waits before it acts: a printable key read within them makes
both the input box's, so "yes, but…" or "no wait" typed at a card answers nothing."""
WORDS_LETTER_WAIT_S = 0.8
"""``LETTER_WAIT_S`` while the input box shows words above the card (the typing of them paused):
a number typed on among them after a thinking pause ('yes do it', '2', ' more') is a word."""
ENTER_QUIET_S = 3.0
"""Seconds after a key typed at a card went to the input box during which enter is not the card's:
the enter that sent the words, pressed again, allowed the command (its choice was Allow once)."""
BURST_GAP_S = 0.4
"""Seconds at most between two keys of one run of typing. A run begun in the input box, or before
a card was ready for keys, stays the box's while it lasts: the enter that ends its words would
answer a card nobody has read yet."""
EDITING_KEYS = frozenset(
    {"left", "right", "home", "end", "ctrl+left", "ctrl+right", "ctrl+a", "ctrl+e", "ctrl+w", "ctrl+k"}
    | {"ctrl+u", "delete"}
)
"""The keys that edit the words shown above a card (backspace goes with the typing): they went to
the card, which has no use for them, so ``no wait``, left ×4 and ``X`` read ``no waitX``."""


class KeysAtCard:
    """The screen's reading of the keys typed while a card is up: what went to the input box and
    when, and a card's key waiting to act."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.typed_at: float | None = None
        """When the last key of the person's run of typing was read, in the keys' own seconds (None
        when the last key read was not one: an enter that sent, an arrow, a key for a card)."""
        self.drafted_at = float("-inf")
        """When the last key typed at a card went to the input box, in the keys' seconds."""
        self.drafted_key: str | None = None
        """That key (``paste`` for a paste): an enter, or a backspace, that emptied the box keeps
        the card's keys the box's a moment longer; ctrl+u (or ctrl+c) gives them back at once."""
        self.cleared_at = float("-inf")
        """When the words above a card were let go of with ctrl+u (or ctrl+c): the enter right
        after is not the card's, as after the enter that sent them (its keys are at once)."""
        self.pause_timer: Timer | None = None
        """Tells the card's keys line once the typing of the words above it has paused."""
        self.letter: tuple[Card, events.Key] | None = None
        """A card's key read alone, waiting ``LETTER_WAIT_S`` to act (see :meth:`read`)."""
        self.escaped: Card | None = None
        """The card an esc was read for: the keys read behind it wait for it to answer."""

    def read(self, event: events.Key) -> bool:
        """A key read while a card is up but not yet ready for keys (on screen less than
        ``cards.READY_S``: nobody has read it), or in a run of typing (read within ``BURST_GAP_S``
        of the key before, or within ``TYPING_PAUSE_S`` of a key that went to the input box), is
        not the card's when it could answer it or move its choice: text, backspace and enter go to
        the input box (shown above the card), in the order typed (the enter sends the words, as it
        would have with no card), ↑ and ↓ go nowhere (once the typing paused they move the card's
        choice, words in the box or not, and its own keys answer it: the keys line says which).
        Enter and backspace stay the box's while it shows words. On an approval card a printable
        key it does not bind begins such a run (the person types what to do instead), and a key it
        binds waits ``LETTER_WAIT_S`` first (``WORDS_LETTER_WAIT_S`` with words shown above): a
        printable key read then makes both the box's. Once ctrl+u let go of the words, the card's
        keys are its own at once (:meth:`box_emptied`). The editing keys
        (:data:`EDITING_KEYS`: the arrows left and right, home, end, delete, ctrl+a/e/w/k/u) edit
        the words shown above the card, as they do with no card. Other keys act as ever: esc still
        denies and stops the turn, ctrl+c still interrupts. True when the card did not get the key."""
        now = event.time
        card = self.screen.card
        if card is None or card.answered:
            self.letter = None
            typing = self.screen.composer.display and (event.is_printable or event.key == "backspace")
            self.typed_at = now if typing else None
            return False
        if self.letter is not None and self._after_letter(card, event):
            return True
        if self.escaped is card:  # queued behind its esc, they go to the box once it is answered
            return False
        if event.key in EDITING_KEYS and self._box_shows_words():  # they edit them, as with no card
            self.typed_at = self.drafted_at = now  # an enter right after it answers nothing
            self.drafted_key = event.key
            self.screen.composer.post_message(events.Key(event.key, event.character))
            self._typing(card)
            return True
        typed = event.is_printable or event.key in ("enter", "backspace")
        if not typed and event.key not in ("up", "down"):
            if event.key == "escape":
                self.typed_at = None
                self.escaped = card
            return False
        run = self.typed_at is not None and now - self.typed_at < BURST_GAP_S
        box = self.screen.composer
        words = bool(box.text.strip())
        # a key that went to the box a moment ago (a word, the enter that sent them, a backspace
        # that emptied it) makes the next the box's too: a second enter, or a number typed on,
        # never answers the card; once the typing paused, its own keys answer it, words or not
        run = run or now - self.drafted_at < TYPING_PAUSE_S
        if words and event.key in ("enter", "backspace"):
            run = True  # the words shown above the card (typed before it too): enter sends them
        if event.key == "enter" and now - max(self.drafted_at, self.cleared_at) < ENTER_QUIET_S:
            run = True  # an enter pressed again after the one that sent the words: not an answer
        ready = card.ready(now)
        if not run and ready and event.is_printable and _answers(card, event.key):
            self.letter = (card, event)  # alone, it is the card's; read with more, a word's
            wait = WORDS_LETTER_WAIT_S if words else LETTER_WAIT_S
            self.screen.set_timer(wait, partial(self.screen.app.call_later, self._letter_due, event))
            return True
        if isinstance(card, QuestionCard) and not run and ready:
            return False  # its own input takes the words typed at it
        if not run and ready and event.is_printable and isinstance(card, ApprovalCard):
            run = True  # a key the card does not bind: the person types what to do instead
        if not run and ready:
            self.typed_at = None
            return False
        self._to_box(card, event, now)
        return True

    def _box_shows_words(self) -> bool:
        """The input box shows above the card (for words typed before it or at it, which may
        still be on their way there), and no field of the card's holds words."""
        focused = self.screen.focused
        if isinstance(focused, Input) and focused.value:  # a question's typed answer: its own
            return False
        return self.screen.composer.display and self.screen.composer.beside_card

    def _to_box(self, card: Card, event: events.Key, now: float) -> None:
        """``event``, read while ``card`` is up, goes to the input box, shown above the card."""
        self.typed_at = now
        if event.key in ("up", "down"):
            return
        self.drafted_at, self.drafted_key = now, event.key
        if not self.screen.composer.display and event.key not in ("enter", "backspace"):
            self.screen.composer.beside_card = True
            self.screen.composer.display = True
            self.screen.call_after_refresh(fit_card, card)
        self.screen.composer.post_message(events.Key(event.key, event.character))
        if self.screen.composer.display:  # its keys line says where the keys go: else they seem lost
            self._typing(card)

    def _typing(self, card: Card) -> None:
        """Keys typed at ``card`` go to the input box: its keys line says so until the typing has
        paused ``TYPING_PAUSE_S``, then gives the card's keys (they answer it again)."""
        card.words_above(True, typing=True)
        if self.pause_timer is not None:
            self.pause_timer.stop()
        self.pause_timer = self.screen.set_timer(TYPING_PAUSE_S, partial(self._paused, card))

    def _paused(self, card: Card) -> None:
        """The typing at ``card`` paused: its keys line gives its own keys, the words kept."""
        self.pause_timer = None
        if card is self.screen.card and not card.answered and card.beside_words:
            card.words_above(True, typing=False)

    def box_emptied(self) -> None:
        """The words shown above the card are gone (the box goes). Let go of with ctrl+u (or
        ctrl+c), the card's keys are its own at once: a digit typed 0.5 s later came back in the
        box as its only word, and the enter after it sent it to the model; emptied by enter or
        backspace, the keys typed on a moment longer are still the box's."""
        if self.pause_timer is not None:
            self.pause_timer.stop()
            self.pause_timer = None
        if self.drafted_key not in ("enter", "backspace"):
            self.cleared_at = max(self.drafted_at, _time.get_time())
            self.drafted_at = float("-inf")
            self.typed_at = None

    def _after_letter(self, card: Card, event: events.Key) -> bool:
        """A key read while a card's letter waits (see :meth:`read`): printable, or backspace,
        it and the letter go to the input box (True); esc drops the letter (it stops the turn);
        any other key lets the letter act first."""
        held = self.letter
        assert held is not None
        self.letter = None
        if held[0] is not card:
            return False
        if (event.is_printable and event.character) or event.key == "backspace":
            if isinstance(card, QuestionCard):  # "2 is fine but": words for its own input
                _type_into(card, held[1], event)
            else:
                self._to_box(card, held[1], event.time)
                self._to_box(card, event, event.time)
            return True
        if event.key != "escape":
            _answer(card, held[1])
        return False

    def _letter_due(self, event: events.Key) -> None:
        """The card's letter waited its while, and no key came after it: it acts (run behind the
        keys read before now, which would have taken it to the input box)."""
        held = self.letter
        if held is None or held[1] is not event:
            return
        self.letter = None
        card = held[0]
        if card is self.screen.card and not card.answered:
            self.typed_at = None
            _answer(card, event)

    def paste(self, event: events.Paste) -> None:
        """A paste while an approval card is up goes to the input box, as typing does."""
        card = self.screen.card
        if isinstance(card, ApprovalCard) and not card.answered:
            event.stop()
            self.letter = None
            now = _time.get_time()
            self.typed_at = self.drafted_at = now
            self.drafted_key = "paste"
            if not self.screen.composer.display:
                self.screen.composer.beside_card = True
                self.screen.composer.display = True
                self.screen.call_after_refresh(fit_card, card)
            self.screen.composer.post_message(events.Paste(event.text))
            self._typing(card)


def _answers(card: Card, key: str) -> bool:
    """Whether ``key``, read alone, answers ``card``: an approval card's own keys, a question's
    option number while nothing is typed in its input."""
    if isinstance(card, ApprovalCard):
        return card.binds(key)
    if isinstance(card, QuestionCard):
        return key.isdigit() and 0 < int(key) <= len(card.options) and not card.typed.value
    return False


def _answer(card: Card, key: events.Key) -> None:
    """``key`` answers ``card`` (it waited, and nothing was typed after it)."""
    if isinstance(card, ApprovalCard):
        card.shortcut(key.key)
    else:  # posted to the card itself: not read again as the screen's (see KeysAtCard.read)
        card.post_message(events.Key(key.key, key.character))


def _type_into(card: QuestionCard, *keys: events.Key) -> None:
    """``keys`` typed at a question card go into its input, as words."""
    card.typed.focus()
    for key in keys:
        if key.key == "backspace":
            card.typed.action_delete_left()
        elif key.character:
            card.typed.insert_text_at_cursor(key.character)


__all__ = [
    "BURST_GAP_S",
    "EDITING_KEYS",
    "ENTER_QUIET_S",
    "LETTER_WAIT_S",
    "WORDS_LETTER_WAIT_S",
    "KeysAtCard",
]
