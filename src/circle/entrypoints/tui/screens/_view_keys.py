"""The keys that move the conversation while the cursor stays in the input box: End and
ctrl+end follow the end again, PageUp/PageDown scroll a page, ctrl+home goes to the top, ctrl+o
opens the whole transcript; and the "new output below" marker they answer to.

:class:`~circle.entrypoints.tui.screens.main.MainScreen` is built on :class:`ViewKeys`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from circle.entrypoints.tui.widgets.conversation import ConversationView, ShellRow, ToolRow
from circle.entrypoints.tui.widgets.paging import page_by

BELOW = "↓ new output below · End follows it"
"""The marker while output arrived below the part shown."""
MORE_BELOW = "↓ more below · End goes back to the end"
"""The marker while the view is above the end and nothing new came (a scroll up, tab to a row):
'new output' was said of what was there before."""

if TYPE_CHECKING:
    from circle.entrypoints.tui._host import Host
    from circle.entrypoints.tui.widgets.cards import Card


class ViewKeys(Screen[None]):
    """The conversation's keys, for a screen that has a conversation, a marker and a card."""

    BINDINGS = [  # noqa: RUF012
        Binding("end", "follow", "follow", show=False, priority=True),
        Binding("ctrl+end", "follow", "follow", show=False, priority=True),
        Binding("pageup", "page(-1)", "scroll up", show=False, priority=True),
        Binding("pagedown", "page(1)", "scroll down", show=False, priority=True),
        Binding("ctrl+home", "page_home", "top", show=False, priority=True),
        Binding("ctrl+o", "transcript", "transcript", show=False, priority=True),
    ]

    host: Host
    conversation: ConversationView
    below: Static
    """The "new output below" marker."""
    card: Card | None

    def on_conversation_view_unseen_changed(self, message: ConversationView.UnseenChanged) -> None:
        self.below.update(BELOW if message.arrived else MORE_BELOW)
        self.below.display = message.unseen

    def on_conversation_view_earlier_read(self, message: ConversationView.EarlierRead) -> None:
        """A search open now covers the messages read (see FindBar.find_in_rest)."""
        from circle.entrypoints.tui.widgets.find_bar import FindBar

        for bar in self.query(FindBar):
            bar.find_in_rest()

    def action_follow(self) -> None:
        """End: back to the end of the conversation when scrolled up; else End in the input box."""
        if self.conversation.following:
            raise SkipAction()
        self.conversation.follow()

    def action_page(self, step: int) -> None:
        """PageUp/PageDown scroll the conversation; the cursor stays in the input box. A card
        that scrolls its diff takes them first."""
        if self.card is not None and self.card.has_focus_within:
            raise SkipAction()
        view = self.conversation
        if step < 0:
            view.page_up()
        elif view.scroll_y + view.scrollable_content_region.height >= view.max_scroll_y:
            view.follow()  # the last page: follow the end again (a scroll there would let go)
        else:
            page_by(view, 1)

    def action_transcript(self) -> None:
        """ctrl+o: the whole transcript, every tool output in full (esc or ctrl+o comes back)."""
        from circle.entrypoints.tui.screens.transcript import TranscriptScreen, call_diffs

        unsent = [(row.after, row.whole()) for row in self.conversation.query(ShellRow) if not row.sent]
        messages = self.host.session.conversation.messages
        rows = [(row.call_id, row.diff) for row in self.conversation.query(ToolRow)]
        diffs = call_diffs(messages, rows)
        self.app.push_screen(TranscriptScreen(messages, diffs=diffs, asides=unsent))

    def action_page_home(self) -> None:
        """ctrl+home: the start of the conversation (End or ctrl+end comes back)."""
        self.conversation.home()


__all__ = ["BELOW", "MORE_BELOW", "ViewKeys"]
