"""A long session opens by its tail: the screen draws what it read, and the rest is read after.

The first frames show the last turns and take keys; once they are drawn (:data:`READ_AFTER_S`), a
worker reads the messages the session was opened without (the model needs them all with the next
message, and the conversation draws them on scroll-up), then the plan shows the session's todos.
The footer counts the whole session from the first frame (the store sums what the unread answers
used). A message sent sooner reads them itself first (the turn does), so it is not delayed by more; whichever
reads them, the conversation is told then and draws them on scroll-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from circle.domain.errors import CircleError
from circle.entrypoints.tui._heap import keeping_read

if TYPE_CHECKING:
    from circle.entrypoints.tui.screens.main import MainScreen


READ_AFTER_S = 0.5
"""Seconds after a long session's tail is drawn that the rest is read (its first frames take them:
in a 10,000-message session a read alongside held the ready screen back 0.16 s of 1.44)."""
TAIL_CHECK_S = 0.05
"""How often it is seen whether the tail's slices are all in, before :data:`READ_AFTER_S` counts."""


def show_session(screen: MainScreen) -> None:
    """Draw the open session's messages read so far; those it was opened without are read once
    these frames are drawn, and wait above (their count shows at once)."""
    conversation = screen.host.session.conversation
    screen.conversation.replay(conversation.messages, unread=conversation.earlier)
    read_rest_later(screen)


def read_rest_later(screen: MainScreen) -> None:
    """:func:`read_rest` once the tail just drawn has had its frames (none to read: nothing).
    Whichever reads the rest first (this, a message's turn, /undo, a compaction), the view is told
    of the earlier messages then (:func:`_told_when_read`)."""
    if not screen.host.session.conversation.complete:  # a parse alongside would hold them back
        _told_when_read(screen)
        _after_the_tail(screen, lambda: read_rest(screen))


def _after_the_tail(screen: MainScreen, then: Callable[[], None]) -> None:
    """``then``, :data:`READ_AFTER_S` after the tail's last slice went in: counted from the first
    frame instead, on a loaded machine the read came while the slices, and the keys typed at the
    first frame, were still going in, and held them back."""
    if screen.conversation.drawing_above:
        screen.set_timer(TAIL_CHECK_S, lambda: _after_the_tail(screen, then))
    else:
        screen.set_timer(READ_AFTER_S, then)


def _told_when_read(screen: MainScreen) -> None:
    """Once the open session reads the messages it was opened without, they wait above the rows
    shown, and the footer and plan count them."""
    conversation = screen.host.session.conversation
    unread = conversation.earlier

    async def told() -> None:
        if screen.host.session.conversation is not conversation:
            return  # another session was opened meanwhile: it draws its own
        screen.host.count_history()
        waiting = screen.conversation.earlier
        if waiting is not None and waiting.unread:  # not redrawn with them meanwhile
            screen.conversation.read_earlier(conversation.messages[:unread])
        screen.refresh_footer()
        screen.plan.set(screen.host.todos(), plan_mode=screen.host.plan_mode)

    conversation.on_loaded(told)


def read_rest(screen: MainScreen) -> None:
    """Read the messages the open session was opened without, on a worker (see the module)."""

    async def read() -> None:
        try:
            with keeping_read():  # thousands of messages, no cycles among them: see _heap.py
                await screen.host.read_rest()
        except CircleError as exc:
            screen.conversation.notice(f"The earlier messages could not be read: {exc.message}", kind="error")

    screen.run_worker(read(), group="rest")


__all__ = ["READ_AFTER_S", "TAIL_CHECK_S", "read_rest", "read_rest_later", "show_session"]
