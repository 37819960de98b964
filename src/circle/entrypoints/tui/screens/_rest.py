"""A long session opens by its tail: the screen draws what it read, and the rest is read after.

The first frame shows the last turns and takes keys at once; right after it, a worker reads the
messages the session was opened without (the model needs them all with the next message, and the
conversation draws them on scroll-up), then the footer counts the whole session and the plan shows
its todos. A message sent meanwhile waits for the same read (the turn reads them first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from circle.domain.errors import CircleError

if TYPE_CHECKING:
    from circle.entrypoints.tui.screens.main import MainScreen


def show_session(screen: MainScreen) -> None:
    """Draw the open session's messages read so far; those it was opened without are read once
    this frame is up, and wait above (their count shows at once)."""
    conversation = screen.host.session.conversation
    screen.conversation.replay(conversation.messages, unread=conversation.earlier)
    if not conversation.complete:
        screen.call_after_refresh(read_rest, screen)


def read_rest(screen: MainScreen) -> None:
    """Read the messages the open session was opened without, on a worker (see the module)."""
    conversation = screen.host.session.conversation

    async def read() -> None:
        try:
            earlier = await screen.host.read_rest()
        except CircleError as exc:
            screen.conversation.notice(f"The earlier messages could not be read: {exc.message}", kind="error")
            return
        if screen.host.session.conversation is not conversation:
            return  # another session was opened meanwhile: it draws its own
        screen.conversation.read_earlier(earlier)
        screen.refresh_footer()
        screen.plan.set(screen.host.todos(), plan_mode=screen.host.plan_mode)

    screen.run_worker(read(), group="rest")


__all__ = ["read_rest", "show_session"]
